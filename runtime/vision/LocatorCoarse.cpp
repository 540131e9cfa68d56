// The locator's coarse search: the frame downsampled as far as the template allows, the best
// separated correlation peaks at one scale (a coloured template's peaks checked for colour).
#include "vision/LocatorSearch.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"

namespace eacu::locator {

namespace {

// The pre-pass level for a coarse level of `pixels` pixels reduced by `factor`, where the
// template is `tsize` (at that level): the least further reduction that brings the level
// under kPrepassPixels while the template keeps a short side of kPrepassMinSide; 0 when the
// level is small enough, or no such level exists.
double prepassLevel(double pixels, double factor, cv::Size tsize) {
    if (pixels <= kPrepassPixels) return 0;
    double chosen = 0;
    for (double l : kLevels) {
        if (l <= factor) continue;
        const double shrink = factor / l;
        if (std::min(tsize.width, tsize.height) * shrink < kPrepassMinSide) break;
        chosen = l;
        if (pixels * shrink * shrink <= kPrepassPixels) break;
    }
    return chosen;
}

// The local maxima of `r` (CV_32F) at or above `floor`: places no 8-neighbour exceeds (as
// r >= dilate(r) with OpenCV's 3x3 default, in one pass without the temporaries).
std::vector<cv::Point> localMaxima(const cv::Mat& r, float floor) {
    std::vector<cv::Point> out;
    for (int y = 0; y < r.rows; ++y) {
        const float* row = r.ptr<float>(y);
        const float* above = y > 0 ? r.ptr<float>(y - 1) : nullptr;
        const float* below = y + 1 < r.rows ? r.ptr<float>(y + 1) : nullptr;
        for (int x = 0; x < r.cols; ++x) {
            const float v = row[x];
            if (!(v >= floor)) continue;
            const int x0 = std::max(0, x - 1), x1 = std::min(r.cols - 1, x + 1);
            bool peak = true;
            for (int i = x0; i <= x1 && peak; ++i)
                peak = row[i] <= v && (!above || above[i] <= v) && (!below || below[i] <= v);
            if (peak) out.emplace_back(x, y);
        }
    }
    return out;
}

}  // namespace

cv::Mat Search::coarseCorrelation(const cv::Rect& croi, double factor, const cv::Mat& tpl, const cv::Mat& mask) {
    const cv::Mat level = pf_.downsampled(factor)(croi);
    cv::Mat r;
    const double pre = mask.empty() ? prepassLevel(double(level.total()), factor, tpl.size()) : 0;
    // The pre-pass: the searched area on a level reduced further, its best local maxima kept.
    const double shrink = factor / pre;
    const cv::Mat& small_frame = pre ? pf_.downsampled(pre) : level;
    cv::Rect sroi = pre ? cv::Rect(int(std::ceil(croi.x * shrink)), int(std::ceil(croi.y * shrink)),
                                   int(std::floor(croi.width * shrink)), int(std::floor(croi.height * shrink))) &
                              cv::Rect(0, 0, small_frame.cols, small_frame.rows)
                        : cv::Rect();
    cv::Size small_size(int(std::lround(tpl.cols * shrink)), int(std::lround(tpl.rows * shrink)));
    if (pre == 0 || small_size.width > sroi.width || small_size.height > sroi.height) {
        cv::matchTemplate(level, tpl, r, cv::TM_CCOEFF_NORMED, mask);
        cv::patchNaNs(r, -1.0);
        return r;
    }
    const cv::Mat small_level = small_frame(sroi);
    const cv::Point offset(int(std::lround(sroi.x / shrink)) - croi.x, int(std::lround(sroi.y / shrink)) - croi.y);
    cv::Mat rp;
    cv::matchTemplate(small_level, resizeTo(tpl, small_size), rp, cv::TM_CCOEFF_NORMED);
    cv::patchNaNs(rp, -1.0);
    std::vector<cv::Point> locs = localMaxima(rp, float(kCoarseFloor / 2));
    const size_t keep = std::min(locs.size(), size_t(kPrepassPeaks));
    std::partial_sort(locs.begin(), locs.begin() + keep, locs.end(),
                      [&](const cv::Point& a, const cv::Point& b) { return rp.at<float>(a) > rp.at<float>(b); });
    locs.resize(keep);
    // The level itself round each: the pre-pass's pixel and one more either way.
    r.create(level.rows - tpl.rows + 1, level.cols - tpl.cols + 1, CV_32F);
    r.setTo(-1.0);
    const ZeroMeanTemplate zm(tpl);
    const int reach = int(std::ceil(1 / shrink)) + 1;
    const cv::Rect positions(0, 0, r.cols, r.rows);
    for (const cv::Point& p : locs) {
        cv::Rect around = cv::Rect(int(std::lround(p.x / shrink)) + offset.x - reach,
                                   int(std::lround(p.y / shrink)) + offset.y - reach,
                                   2 * reach + 1, 2 * reach + 1) & positions;
        if (around.empty()) continue;
        cv::Mat part;
        correlate(level(cv::Rect(around.x, around.y, around.width + tpl.cols - 1, around.height + tpl.rows - 1)), tpl,
                  zm, part);
        cv::Mat dst = r(around);
        cv::max(dst, part, dst);
    }
    return r;
}

std::vector<Candidate> Search::coarse(double s, int k) {
    double minside = std::min(tgrey_.cols, tgrey_.rows) * s;
    double area = tgrey_.cols * s * tgrey_.rows * s;
    double ideal = std::min(minside / o_.coarse_min_side, std::sqrt(area / o_.coarse_min_area));
    double factor = 1.0;
    for (double l : kLevels)
        if (l <= ideal) factor = l;
    const cv::Mat& level = pf_.downsampled(factor);
    cv::Rect croi(int(std::floor(area_.x / factor)), int(std::floor(area_.y / factor)),
                  int(std::floor(area_.w / factor)), int(std::floor(area_.h / factor)));
    croi &= cv::Rect(0, 0, level.cols, level.rows);
    cv::Size tsize(int(std::lround(tgrey_.cols * s / factor)), int(std::lround(tgrey_.rows * s / factor)));
    if (tsize.width < 3 || tsize.height < 3 || tsize.width > croi.width || tsize.height > croi.height)
        return {};
    cv::Mat ct = resizeTo(tgrey_, tsize);
    cv::Mat cm = tpl_.mask.empty() ? cv::Mat() : resizeTo(tpl_.mask, tsize, true);
    // A coloured template's peaks are first checked for colour on the frame's chroma
    // overview (see kCoarseColourFloor), so grey look-alikes do not crowd out the coloured
    // original.
    double of = 1.0;
    const cv::Mat* cframe = chromatic_ ? &pf_.chromaOverview(&of) : nullptr;
    cv::Size osize(int(std::lround(tgrey_.cols * s / of)), int(std::lround(tgrey_.rows * s / of)));
    if (osize.width < 3 || osize.height < 3) cframe = nullptr;  // too small to tell colours there
    cv::Mat ctpl = cframe ? chromaPlanes(resizeTo(tpl_.bgr, osize), 0.5) : cv::Mat();
    cv::Mat omask = cframe && !tpl_.mask.empty() ? resizeTo(tpl_.mask, osize, true) : cv::Mat();
    cv::Mat r = coarseCorrelation(croi, factor, ct, cm);
    std::vector<Candidate> out;
    // The confirm searches around each peak: a coarse pixel either way, plus 5 % of the
    // template's width sideways and of its height up and down, what a size half a scale step
    // (1.2) off moves the top-left of a match aligned on its middle (a line of text correlates
    // along itself, so its coarse peak may sit a glyph or two from the truth).
    const Margin margin(int(std::ceil(factor)) + 2 + int(std::ceil(0.05 * tgrey_.cols * s)),
                        int(std::ceil(factor)) + 2 + int(std::ceil(0.05 * tgrey_.rows * s)));
    // Local maxima (3x3) above the floor, best first, then greedy suppression of peaks
    // within half a template of a better one.
    std::vector<cv::Point> locs = localMaxima(r, float(kCoarseFloor));
    std::vector<std::pair<float, cv::Point>> scored;
    scored.reserve(locs.size());
    for (const auto& p : locs) scored.emplace_back(r.at<float>(p), p);
    size_t keep = std::min(scored.size(), size_t(8 * k));
    std::partial_sort(scored.begin(), scored.begin() + keep, scored.end(),
                      [](const auto& a, const auto& b) { return a.first > b.first; });
    std::vector<cv::Point> taken;
    for (size_t i = 0; i < keep && int(out.size()) < k; ++i) {
        const cv::Point& p = scored[i].second;
        bool near = false;
        for (const auto& q : taken)
            if (std::abs(p.x - q.x) < (tsize.width + 1) / 2 && std::abs(p.y - q.y) < (tsize.height + 1) / 2) {
                near = true;
                break;
            }
        if (near) continue;
        if (cframe) {
            cv::Rect pr(int(std::lround((croi.x + p.x) * factor / of)), int(std::lround((croi.y + p.y) * factor / of)),
                        osize.width, osize.height);
            if ((pr & cv::Rect(0, 0, cframe->cols, cframe->rows)) == pr &&
                chromaAgreementOfPlanes((*cframe)(pr), ctpl, omask) < kCoarseColourFloor)
                continue;
        }
        taken.push_back(p);
        out.push_back({{int(std::lround((croi.x + p.x) * factor)), int(std::lround((croi.y + p.y) * factor))},
                       scored[i].first, s, margin});
    }
    return out;
}

}  // namespace eacu::locator

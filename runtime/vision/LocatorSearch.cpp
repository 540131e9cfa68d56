// The locator's search at a scale: the scaled-template cache, the confirm of a candidate
// around a position within a scale range, and its refinement at full resolution.
#include "vision/LocatorSearch.h"

#include <algorithm>
#include <cmath>

#include <opencv2/imgproc.hpp>

#include "vision/ColourAgreement.h"

namespace eacu::locator {

cv::Mat resizeTo(const cv::Mat& src, cv::Size size, bool nearest) {
    cv::Mat out;
    int interp = nearest ? cv::INTER_NEAREST
                         : (size.width < src.cols ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::resize(src, out, size, 0, 0, interp);
    return out;
}

cv::Size colourSize(cv::Size size) {
    const double reduce = std::ceil(std::sqrt(double(size.area()) / 65536.0));
    if (reduce <= 1) return size;
    return {std::max(1, int(std::lround(size.width / reduce))), std::max(1, int(std::lround(size.height / reduce)))};
}

cv::Mat colourPlanes(const cv::Mat& bgr, cv::Size at) {
    return at == bgr.size() ? chromaPlanes(bgr, 1.0) : chromaPlanes(resizeTo(bgr, at), 0.5);
}

Search::Search(const PreparedFrame& pf, const Template& tpl, const Rect& area, const LocatorOptions& o)
    : pf_(pf), tpl_(tpl), area_(area), o_(o) {
    cv::cvtColor(tpl.bgr, tgrey_, cv::COLOR_BGR2GRAY);
    // Whether it has colour: against its own grey copy, compared as rescore compares (the
    // template's planes are kept for rescore; a grey image's chroma planes are zero).
    const cv::Size at = colourSize(tpl.bgr.size());
    const cv::Mat mask = tpl.mask.empty() || at == tpl.mask.size() ? tpl.mask : resizeTo(tpl.mask, at, true);
    chromatic_ = chromaAgreementOfPlanes(templateChroma(tpl.bgr, at), cv::Mat::zeros(at, CV_32FC2), mask) <
                 kCoarseColourFloor;
}

const Scaled* Search::at(double s, double f, cv::Point phase) {
    const bool whole = isWholeLevel(f);
    if (!whole) phase = {0, 0};
    const auto key = std::make_tuple(int(std::lround(s * 10000)), int(std::lround(f * 100)), phase.x, phase.y);
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second.grey.empty() ? nullptr : &it->second;
    Scaled sc;
    const cv::Size full(int(std::lround(tgrey_.cols * s)), int(std::lround(tgrey_.rows * s)));
    if (full.width <= area_.w && full.height <= area_.h) {
        const cv::Mat* grey = &tgrey_;
        const cv::Mat* mask = &tpl_.mask;
        cv::Size size = full;
        if (f > 1.0) {
            Reduced& lt = level_templates_[{std::get<1>(key), phase.x, phase.y}];
            if (lt.grey.empty()) {
                if (whole) {
                    // The frame's blocks start at multiples of f: with the template's top-left
                    // at `phase` of one, its first whole block starts (f - phase) % f in.
                    const int fi = int(f);
                    lt.origin = {(fi - phase.x) % fi, (fi - phase.y) % fi};
                    const cv::Size blocks((tgrey_.cols - lt.origin.x) / fi, (tgrey_.rows - lt.origin.y) / fi);
                    if (blocks.width > 0 && blocks.height > 0) {
                        cv::Mat& means = block_means_[fi];
                        if (means.empty())
                            cv::boxFilter(tgrey_, means, CV_32F, {fi, fi}, {0, 0}, true, cv::BORDER_REPLICATE);
                        // As INTER_AREA by f of the cut, without resizing it for every phase.
                        lt.grey.create(blocks, CV_8U);
                        for (int y = 0; y < blocks.height; ++y) {
                            const float* row = means.ptr<float>(lt.origin.y + y * fi) + lt.origin.x;
                            uchar* out = lt.grey.ptr<uchar>(y);
                            for (int x = 0; x < blocks.width; ++x) out[x] = cv::saturate_cast<uchar>(row[x * fi]);
                        }
                        if (!tpl_.mask.empty()) {
                            const cv::Rect cut(lt.origin.x, lt.origin.y, blocks.width * fi, blocks.height * fi);
                            lt.mask = resizeTo(tpl_.mask(cut), blocks, true);
                        }
                    }
                } else {
                    cv::Size reduced(std::max(1, int(std::lround(tgrey_.cols / f))), std::max(1, int(std::lround(tgrey_.rows / f))));
                    lt.grey = resizeTo(tgrey_, reduced);
                    if (!tpl_.mask.empty()) lt.mask = resizeTo(tpl_.mask, reduced, true);
                }
            }
            grey = &lt.grey;
            mask = &lt.mask;
            // Its size at s: from the reduced template's own size on a whole level (the blocks
            // it kept), else as the frame's level rounds.
            size = whole ? cv::Size(int(std::lround(lt.grey.cols * s)), int(std::lround(lt.grey.rows * s)))
                         : cv::Size(int(std::lround(tgrey_.cols * s / f)), int(std::lround(tgrey_.rows * s / f)));
            sc.origin = {lt.origin.x * s, lt.origin.y * s};
        }
        if (size.width >= 3 && size.height >= 3) {
            sc.grey = grey->size() == size ? grey->clone() : resizeTo(*grey, size);
            if (f > 1.0) cv::GaussianBlur(sc.grey, sc.grey, {0, 0}, kLevelSoften, kLevelSoften, cv::BORDER_REPLICATE);
            if (!mask->empty()) sc.mask = mask->size() == size ? mask->clone() : resizeTo(*mask, size, true);
            else sc.zm = ZeroMeanTemplate(sc.grey);
        }
    }
    auto& slot = cache_[key] = std::move(sc);
    return slot.grey.empty() ? nullptr : &slot;
}

namespace {

// The offset of a peak's vertex from its middle sample, for samples a, b, c at -1, 0, 1 (b
// the largest): the parabola's, within ±0.5; 0 when the three are flat.
double vertex(double a, double b, double c) {
    const double d = a - 2 * b + c;
    return d < 0 ? std::clamp(0.5 * (a - c) / d, -0.5, 0.5) : 0.0;
}

}  // namespace

Search::Peak Search::peakIn(const cv::Rect& roi, const Scaled& t, double f) {
    const auto key = std::make_tuple(&t, roi.x, roi.y, roi.width, roi.height);
    {
        std::lock_guard<std::mutex> lock(mutex_);
        if (auto it = peaks_.find(key); it != peaks_.end()) return it->second;
    }
    const cv::Mat window = f > 1.0 ? pf_.softened(f, kLevelSoften)(roi) : pf_.greyRegion(roi);
    cv::Mat r;
    if (t.mask.empty()) {
        correlate(window, t.grey, t.zm, r);
    } else {
        cv::matchTemplate(window, t.grey, r, cv::TM_CCOEFF_NORMED, t.mask);
        cv::patchNaNs(r, -1.0);
    }
    Peak peak;
    cv::minMaxLoc(r, nullptr, &peak.score, nullptr, &peak.at);
    peak.score = std::min(peak.score, 1.0);
    // Between a level's pixels (at full resolution the place is a whole pixel).
    if (f > 1.0) {
        const int x = peak.at.x, y = peak.at.y;
        if (x > 0 && x + 1 < r.cols)
            peak.sub.x = vertex(r.at<float>(y, x - 1), r.at<float>(y, x), r.at<float>(y, x + 1));
        if (y > 0 && y + 1 < r.rows)
            peak.sub.y = vertex(r.at<float>(y - 1, x), r.at<float>(y, x), r.at<float>(y + 1, x));
    }
    std::lock_guard<std::mutex> lock(mutex_);
    peaks_[key] = peak;
    return peak;
}

Match Search::confirmAt(Point approx, double s, Margin margin, double log_range, int n, double f) {
    Match best;
    best.score = -2;
    // The level's size (at full resolution only the searched window is converted to grey).
    const cv::Size size = f > 1.0 ? pf_.downsampled(f).size() : pf_.bgr().size();
    cv::Rect bounds(int(std::ceil(area_.x / f)), int(std::ceil(area_.y / f)),
                    int(std::floor(area_.w / f)), int(std::floor(area_.h / f)));
    bounds &= cv::Rect(0, 0, size.width, size.height);
    const int mx = int(std::ceil(margin.x / f)) + 1, my = int(std::ceil(margin.y / f)) + 1;

    // Where a top-left falls within a block of a whole level (0 elsewhere).
    const int fi = isWholeLevel(f) ? int(f) : 1;
    auto phaseOf = [fi](Point p) { return cv::Point(((p.x % fi) + fi) % fi, ((p.y % fi) + fi) % fi); };
    // The peak of the template at scale sc reduced for top-left `near`, within (rx, ry) of
    // the level's pixels round it: its score, and in `top_left` the place, interpolated.
    auto peakNear = [&](double sc, Point near, int rx, int ry, Point* top_left) -> double {
        const Scaled* t = at(sc, f, phaseOf(near));
        if (!t) return -2;
        cv::Rect roi(int(std::lround((near.x + t->origin.x) / f)) - rx, int(std::lround((near.y + t->origin.y) / f)) - ry,
                     t->grey.cols + 2 * rx, t->grey.rows + 2 * ry);
        roi &= bounds;
        if (roi.width < t->grey.cols || roi.height < t->grey.rows) return -2;
        const Peak peak = peakIn(roi, *t, f);
        *top_left = {int(std::lround((roi.x + peak.at.x + peak.sub.x) * f - t->origin.x)),
                     int(std::lround((roi.y + peak.at.y + peak.sub.y) * f - t->origin.y))};
        return peak.score;
    };
    for (int i = -n; i <= n; ++i) {
        double sc = s * std::exp(n ? log_range * i / n : 0.0);
        if (sc < o_.min_scale || sc > o_.max_scale) continue;
        Point top_left;
        double score = peakNear(sc, approx, mx, my, &top_left);
        if (score < -1.5) continue;
        // Found in another part of a block than `approx`: the template was reduced for the
        // wrong blocks there, so it is compared once more, reduced for the place found.
        if (phaseOf(top_left) != phaseOf(approx)) {
            Point again;
            const double second = peakNear(sc, top_left, 1, 1, &again);
            if (second > score) {
                score = second;
                top_left = again;
            }
        }
        if (score > best.score) {
            best.score = score;
            best.scale = sc;
            best.box = {top_left.x, top_left.y, int(std::lround(tgrey_.cols * sc)), int(std::lround(tgrey_.rows * sc))};
        }
    }
    return best;
}

double Search::confirmLevel(double s) const {
    double w = tgrey_.cols * s, h = tgrey_.rows * s;
    double f = std::min(std::min(w, h) / 10.0, std::sqrt(w * h / 2000.0));
    double level = 1.0;
    for (double l : kLevels)
        if (l <= f) level = l;
    return level;
}

// A correlation this high leaves nothing for a finer scale to gain: the refine stops there.
constexpr double kPerfect = 0.995;
// A sure correlation on a level puts the size within a pixel or two of that level; its climb
// stops after this many (a bound, not a tuning: it is reached only on a flat correlation).
constexpr int kMaxClimb = 8;

Match Search::refine(Match m, double log_range, int margin, const std::atomic<bool>* stop) {
    auto stopped = [stop] { return stop && stop->load(std::memory_order_relaxed); };
    if (m.score < -1.5) return m;
    // Coarse to fine over a pyramid (levels 8, 4, 2 that keep the template discriminative and
    // leave something to search: a margin of at least two of their pixels), then full
    // resolution. On each level: the position within the margin at five scales across the range,
    // then the scale step halved until it moves the template's width by less than one of the
    // level's pixels; the next level searches one pixel of this level round what it found, in
    // the last step either way. Full-resolution correlation of a large template is the costly
    // part, so there the search is a 3x3 window (computed directly, vision/Correlation.h) that
    // climbs to the best neighbour.
    Point p{m.box.x, m.box.y};
    double s = m.scale, r = log_range;
    int mg = margin;
    Match best;
    best.score = -2;
    for (double f : {8.0, 4.0, 2.0}) {
        if (f > confirmLevel(s) || mg < 2 * f) continue;
        // The scale as it is first: a sure correlation there means the scale is right to within
        // this level's pixels over the template's width, and only the position is taken from
        // it; else the range, then the halving.
        Match b = confirmAt(p, s, mg, 0, 0, f);
        if (b.score < -1.5 || stopped()) continue;
        if (b.score < o_.sure_score) {
            Match c = confirmAt(p, s, mg, r, 2, f);
            if (c.score > b.score) b = c;
            double rr = r / 2;
            for (; rr * tgrey_.cols * b.scale / f >= 1 && b.score < kPerfect && !stopped(); rr /= 2) {
                Match d = confirmAt({b.box.x, b.box.y}, b.scale, int(std::ceil(2 * f)), rr, 1, f);
                if (d.score > b.score) b = d;
            }
            r = 2 * rr;
        } else {
            // Sure as it is: the scale is right to within a pixel or two of this level over
            // the template's longer side. Short of a perfect correlation, a size one pixel of
            // this level larger or smaller is tried, and the size climbs that way while the
            // correlation gains (up to kMaxClimb pixels); the finer levels then search one such
            // pixel either way.
            const double step = f / std::max(1.0, std::max(tgrey_.cols, tgrey_.rows) * b.scale);
            for (int dir = -1; dir <= 1 && b.score < kPerfect && !stopped(); dir += 2) {
                bool moved = false;
                for (int k = 0; k < kMaxClimb && b.score < kPerfect; ++k) {
                    Match d = confirmAt({b.box.x, b.box.y}, b.scale * std::exp(dir * step), int(std::ceil(f)), 0, 0, f);
                    if (d.score <= b.score) break;
                    b = d;
                    moved = true;
                }
                if (moved) break;
            }
            r = std::min(r, step);
        }
        p = {b.box.x, b.box.y};
        s = b.scale;
        mg = int(std::ceil(f));
    }
    // Full resolution: the window, at the scales of the last step, then climbing: `b` was
    // found in a 3x3 window round `centre`; while it lies off the centre, the window moves there.
    auto climb = [&](Match b, Point centre) {
        for (int steps = 0; b.score > -1.5 && steps < 2 * mg + 4 && !stopped(); ++steps) {
            if (b.box.x == centre.x && b.box.y == centre.y) break;
            centre = {b.box.x, b.box.y};
            Match c = confirmAt(centre, b.scale, 0, 0, 0, 1.0);
            if (c.score <= b.score + 1e-6) break;
            b = c;
        }
        return b;
    };
    // A margin of one pixel (confirmAt widens it by one) when a level above narrowed it down,
    // else the caller's margin and the range at five scales.
    const bool narrowed = mg < margin;
    best = confirmAt(p, s, narrowed ? 0 : mg, 0, 0, 1.0);
    if (narrowed) best = climb(best, p);
    if (best.score < kPerfect && !stopped()) {
        Match b = narrowed ? climb(confirmAt(p, s, 0, r, 1, 1.0), p) : confirmAt(p, s, mg, r, 2, 1.0);
        if (b.score > best.score) best = b;
    }
    // Down to steps of a quarter pixel over the width: the width and the height round apart,
    // so a step under a pixel can still give the size that fits.
    double min_r = 0.25 / std::max(8.0, tgrey_.cols * std::max(best.scale, 0.01));
    for (double rr = r / 2; best.score > -1.5 && best.score < kPerfect && rr >= min_r && !stopped(); rr /= 2) {
        Point at{best.box.x, best.box.y};
        Match b = climb(confirmAt(at, best.scale, 0, rr, 1, 1.0), at);
        if (b.score > best.score) best = b;
    }
    return best.score > -1.5 ? best : m;
}

}  // namespace eacu::locator

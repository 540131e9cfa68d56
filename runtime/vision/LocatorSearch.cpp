// The locator's search at a scale: the scaled-template cache, the confirm of a candidate
// around a position within a scale range, and its refinement at full resolution.
#include "vision/LocatorSearch.h"

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

const Scaled* Search::at(double s, double f) {
    const auto key = std::make_pair(int(std::lround(s * 10000)), int(std::lround(f * 100)));
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = cache_.find(key);
    if (it != cache_.end()) return it->second.grey.empty() ? nullptr : &it->second;
    Scaled sc;
    cv::Size size(int(std::lround(tgrey_.cols * s / f)), int(std::lround(tgrey_.rows * s / f)));
    if (size.width >= 3 && size.height >= 3 && size.width * f <= area_.w && size.height * f <= area_.h) {
        const cv::Mat* grey = &tgrey_;
        const cv::Mat* mask = &tpl_.mask;
        if (f > 1.0) {
            auto& [lg, lm] = level_templates_[key.second];
            if (lg.empty()) {
                cv::Size reduced(std::max(1, int(std::lround(tgrey_.cols / f))), std::max(1, int(std::lround(tgrey_.rows / f))));
                lg = resizeTo(tgrey_, reduced);
                if (!tpl_.mask.empty()) lm = resizeTo(tpl_.mask, reduced, true);
            }
            grey = &lg;
            mask = &lm;
        }
        sc.grey = grey->size() == size ? grey->clone() : resizeTo(*grey, size);
        if (f > 1.0) cv::GaussianBlur(sc.grey, sc.grey, {0, 0}, kLevelSoften, kLevelSoften, cv::BORDER_REPLICATE);
        if (!mask->empty()) sc.mask = mask->size() == size ? mask->clone() : resizeTo(*mask, size, true);
        else sc.zm = ZeroMeanTemplate(sc.grey);
    }
    auto& slot = cache_[key] = std::move(sc);
    return slot.grey.empty() ? nullptr : &slot;
}

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
    for (int i = -n; i <= n; ++i) {
        double sc = s * std::exp(n ? log_range * i / n : 0.0);
        if (sc < o_.min_scale || sc > o_.max_scale) continue;
        const Scaled* t = at(sc, f);
        if (!t) continue;
        cv::Rect roi(int(std::lround(approx.x / f)) - mx, int(std::lround(approx.y / f)) - my,
                     t->grey.cols + 2 * mx, t->grey.rows + 2 * my);
        roi &= bounds;
        if (roi.width < t->grey.cols || roi.height < t->grey.rows) continue;
        const Peak peak = peakIn(roi, *t, f);
        if (peak.score > best.score) {
            best.score = peak.score;
            best.scale = sc;
            best.box = {int(std::lround((roi.x + peak.at.x) * f)), int(std::lround((roi.y + peak.at.y) * f)),
                        int(std::lround(t->grey.cols * f)), int(std::lround(t->grey.rows * f))};
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
            // the template's width, which is what is left for the finer levels to search.
            r = std::min(r, 2 * f / std::max(1.0, tgrey_.cols * b.scale));
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

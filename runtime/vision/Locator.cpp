// The locator's driver: for each variant, the stages in order (last seen, expected scale,
// multi-scale, features); and findAll at the scale found. The stages are in Locator*.cpp.
#include "vision/Locator.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <opencv2/core.hpp>

#include "vision/LocatorStages.h"
#include "vision/TemplateMatcher.h"

namespace eacu {

using namespace locator;

namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

bool isPlain(const Template& t) {
    cv::Scalar mean, stddev;
    cv::meanStdDev(t.bgr, mean, stddev, t.mask);
    return stddev[0] + stddev[1] + stddev[2] < 1.0;
}

}  // namespace

LocateReport Locator::locate(const PreparedFrame& frame, const std::vector<Template>& variants,
                             const LocateHints& hints) const {
    if (variants.empty()) throw std::invalid_argument("locate: no template given");
    LocateReport report;
    const cv::Mat& bgr = frame.bgr();
    Rect full{0, 0, bgr.cols, bgr.rows};
    Rect area = hints.region ? hints.region->intersect(full) : full;
    if (area.empty()) throw std::invalid_argument("locate: the region " + hints.region->str() + " is outside the frame");
    const double step_log = std::log(options_.scale_step);

    Match best;
    bool have = false;
    auto consider = [&](const std::string& stage, Match m, double ms) {
        m.ms = ms;
        report.stages.push_back({stage, m, ms});
        if (!have || better(m, best)) {
            best = m;
            have = true;
        }
        return m.found;
    };

    for (const Template& tpl : variants) {
        if (tpl.bgr.empty()) throw std::invalid_argument("locate: template \"" + tpl.name + "\" is empty");
        if (isPlain(tpl)) {
            // A plain-colour template has no scale to find: compare it as it is.
            auto t0 = Clock::now();
            TemplateMatcher plain;
            if (area.w >= tpl.bgr.cols && area.h >= tpl.bgr.rows)
                if (consider("plain", plain.locate(bgr, tpl, area), msSince(t0))) break;
            continue;
        }
        Search search(frame, tpl, area, options_);
        // Away from the expected scale a match must be clearly better than the threshold.
        auto required = [&](double scale) {
            if (!hints.expected_scale) return tpl.threshold;
            if (std::abs(std::log(scale / *hints.expected_scale)) <= std::log(options_.scale_tolerance))
                return tpl.threshold;
            return std::min(0.99, tpl.threshold + options_.off_scale_margin);
        };
        // 1. Where it was last seen, at the scale it was seen.
        if (hints.last_seen && hints.last_scale) {
            auto t0 = Clock::now();
            Rect ls = *hints.last_seen;
            int grow = std::clamp(std::max(ls.w, ls.h) / 4, 16, 48);  // it moved a little, if at all
            Match m = search.confirmAt({ls.x, ls.y}, *hints.last_scale, grow, std::log(1.02), 1);
            m = search.refine(m, std::log(1.01), 2);
            m = finish(search, m, "last_seen", tpl.threshold);
            // Found there, but clearly worse than when it was seen there: the full search
            // decides (what stands at the place now may be another element); a found match
            // stays the best there is when the search finds nothing better.
            const bool as_before = !hints.last_score || m.score >= *hints.last_score - kLastSeenDrop;
            if (consider("last_seen", m, msSince(t0)) && as_before) break;
        }
        // 2. The expected scale.
        double prior = hints.expected_scale.value_or(1.0);
        if (hints.expected_scale) {
            auto t0 = Clock::now();
            std::vector<Confirmed> pool;
            for (const Candidate& c : search.coarse(prior, 2 * options_.candidates_per_scale))
                pool.push_back(confirmCandidate(search, c, std::log(options_.scale_tolerance)));
            auto cands = refineBest(search, std::move(pool), options_.refine_budget, std::log(options_.scale_tolerance) / 2,
                                    std::max(options_.sure_score, tpl.threshold), options_.tie_margin + 0.02, tpl.threshold);
            Match m = pick(search, cands, "expected_scale", [&](double) { return tpl.threshold; });
            if (consider("expected_scale", m, msSince(t0))) break;
        }
        // 3. Coarse-to-fine over the whole scale range, nearest the prior first.
        {
            auto t0 = Clock::now();
            std::vector<double> scales;
            for (double s = options_.min_scale; s <= options_.max_scale * 1.0001; s *= options_.scale_step)
                scales.push_back(s);
            // The prior itself (the template's own size when nothing is known, the likeliest
            // scale): a long template found 4 % off its size correlates too weakly at the
            // coarse level to be kept among look-alikes.
            bool on_grid = false;
            for (double s : scales) on_grid = on_grid || std::abs(std::log(s / prior)) < 0.01;
            if (!on_grid && prior >= options_.min_scale && prior <= options_.max_scale) scales.push_back(prior);
            std::sort(scales.begin(), scales.end(), [&](double a, double b) {
                return std::abs(std::log(a / prior)) < std::abs(std::log(b / prior));
            });
            std::vector<Match> cands = multiScale(search, scales, options_, step_log, tpl.threshold);
            Match m = pick(search, cands, "multi_scale", required);
            if (consider("multi_scale", m, msSince(t0))) break;
        }
        // 4. Features, for templates with texture enough.
        if (options_.features) {
            auto t0 = Clock::now();
            bool ran = false;
            Match m = featureStage(search, frame, options_, &ran);
            if (ran) {
                Match f = finish(search, m, "features", required(m.scale));
                confirmWords(search, f);
                if (consider("features", f, msSince(t0))) break;
            }
        }
    }
    double total = 0;
    for (const auto& s : report.stages) total += s.ms;
    best.ms = total;
    report.match = best;
    return report;
}

Match Locator::locate(const cv::Mat& frame, const Template& tpl, std::optional<Rect> region) const {
    PreparedFrame pf(frame);
    LocateHints hints;
    hints.region = region;
    return locate(pf, {tpl}, hints).match;
}

std::vector<Match> Locator::findAll(const cv::Mat& frame, const Template& tpl,
                                    std::optional<Rect> region, int max_results) const {
    Match best = locate(frame, tpl, region);
    if (!best.found) return {};
    Template scaled = tpl;
    if (std::abs(best.scale - 1.0) > 1e-3) {
        scaled.bgr = resizeTo(tpl.bgr, {best.box.w, best.box.h});
        if (!tpl.mask.empty()) scaled.mask = resizeTo(tpl.mask, {best.box.w, best.box.h}, true);
        scaled.offset = {int(std::lround(tpl.offset.x * best.scale)), int(std::lround(tpl.offset.y * best.scale))};
    }
    auto all = TemplateMatcher().findAll(frame, scaled, region, max_results);
    for (auto& m : all) {
        m.scale = best.scale;
        m.method = best.method;
    }
    return all;
}

}  // namespace eacu

#include "vision/Locator.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <map>
#include <mutex>
#include <stdexcept>
#include <thread>

#include <opencv2/calib3d.hpp>
#include <opencv2/features2d.hpp>
#include <opencv2/imgproc.hpp>

#include "vision/Nms.h"
#include "vision/TemplateMatcher.h"

namespace eacu {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Downsampling factors of the coarse level; sharing a few levels lets scales reuse them.
constexpr double kLevels[] = {1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 8.0};

// Coarse peaks below this correlation are not worth confirming.
constexpr double kCoarseFloor = 0.2;

struct Scaled {
    cv::Mat grey;
    cv::Mat mask;
};

struct Candidate {
    Point pos;      // estimated top-left at full resolution
    double coarse;  // coarse correlation
    double scale;
    int margin;     // search margin for the full-resolution confirm (pixels)
};

cv::Mat resizeTo(const cv::Mat& src, cv::Size size, bool nearest = false) {
    cv::Mat out;
    int interp = nearest ? cv::INTER_NEAREST
                         : (size.width < src.cols ? cv::INTER_AREA : cv::INTER_LINEAR);
    cv::resize(src, out, size, 0, 0, interp);
    return out;
}

bool isPlain(const Template& t) {
    cv::Scalar mean, stddev;
    cv::meanStdDev(t.bgr, mean, stddev, t.mask);
    return stddev[0] + stddev[1] + stddev[2] < 1.0;
}

// One variant searched in one frame (or region of it).
class Search {
public:
    Search(const PreparedFrame& pf, const Template& tpl, const Rect& area, const LocatorOptions& o)
        : pf_(pf), tpl_(tpl), area_(area), o_(o) {
        cv::cvtColor(tpl.bgr, tgrey_, cv::COLOR_BGR2GRAY);
    }

    // The template resized to `s` (greyscale and mask), cached.
    const Scaled* at(double s) {
        int key = int(std::lround(s * 10000));
        std::lock_guard<std::mutex> lock(mutex_);
        auto it = cache_.find(key);
        if (it != cache_.end()) return it->second.grey.empty() ? nullptr : &it->second;
        Scaled sc;
        cv::Size size(int(std::lround(tgrey_.cols * s)), int(std::lround(tgrey_.rows * s)));
        if (size.width >= 3 && size.height >= 3 && size.width <= area_.w && size.height <= area_.h) {
            sc.grey = resizeTo(tgrey_, size);
            if (!tpl_.mask.empty()) sc.mask = resizeTo(tpl_.mask, size, true);
        }
        auto& slot = cache_[key] = std::move(sc);
        return slot.grey.empty() ? nullptr : &slot;
    }

    // Confirms around `approx` (full-resolution top-left) at scales s·e^(i·step), i in
    // [-n, n], within `margin` pixels. Returns the best confirmed candidate (grey score only).
    Match confirm(Point approx, double s, int margin, double log_range, int n) {
        Match best;
        best.score = -2;
        const cv::Mat& grey = pf_.grey();
        for (int i = -n; i <= n; ++i) {
            double sc = s * std::exp(n ? log_range * i / n : 0.0);
            if (sc < o_.min_scale * 0.97 || sc > o_.max_scale * 1.03) continue;
            const Scaled* t = at(sc);
            if (!t) continue;
            Rect roi = Rect{approx.x - margin, approx.y - margin, t->grey.cols + 2 * margin,
                            t->grey.rows + 2 * margin}.intersect(area_);
            if (roi.w < t->grey.cols || roi.h < t->grey.rows) continue;
            cv::Mat r;
            cv::matchTemplate(grey(cv::Rect(roi.x, roi.y, roi.w, roi.h)), t->grey, r,
                              cv::TM_CCOEFF_NORMED, t->mask);
            cv::patchNaNs(r, -1.0);
            double mx;
            cv::Point loc;
            cv::minMaxLoc(r, nullptr, &mx, nullptr, &loc);
            mx = std::min(mx, 1.0);
            if (mx > best.score) {
                best.score = mx;
                best.scale = sc;
                best.box = {roi.x + loc.x, roi.y + loc.y, t->grey.cols, t->grey.rows};
            }
        }
        return best;
    }

    // Coarse search at scale s: the frame downsampled as far as the template allows, the
    // best `k` separated peaks.
    std::vector<Candidate> coarse(double s, int k) {
        double minside = std::min(tgrey_.cols, tgrey_.rows) * s;
        double ideal = minside / o_.coarse_min_side;
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
        cv::Mat r;
        cv::matchTemplate(level(croi), ct, r, cv::TM_CCOEFF_NORMED, cm);
        cv::patchNaNs(r, -1.0);
        std::vector<Candidate> out;
        int margin = int(std::ceil(factor)) + 2;
        for (int i = 0; i < k; ++i) {
            double mx;
            cv::Point loc;
            cv::minMaxLoc(r, nullptr, &mx, nullptr, &loc);
            if (mx < kCoarseFloor) break;
            out.push_back({{int(std::lround((croi.x + loc.x) * factor)), int(std::lround((croi.y + loc.y) * factor))},
                           mx, s, margin});
            // Suppress this peak's neighbourhood (a template's size around it).
            cv::Rect sup(loc.x - tsize.width / 2, loc.y - tsize.height / 2, tsize.width, tsize.height);
            sup &= cv::Rect(0, 0, r.cols, r.rows);
            r(sup).setTo(-1.0);
        }
        return out;
    }

    // The colour confirm of a confirmed grey match: TM_CCOEFF_NORMED over BGR at its place and
    // scale.
    double colorScore(const Match& m) {
        Template scaled = tpl_;
        scaled.bgr = resizeTo(tpl_.bgr, {m.box.w, m.box.h});
        if (!tpl_.mask.empty()) scaled.mask = resizeTo(tpl_.mask, {m.box.w, m.box.h}, true);
        return TemplateMatcher::colorScore(pf_.bgr(), scaled, m.box);
    }

    const Template& tpl() const { return tpl_; }
    const cv::Mat& tgrey() const { return tgrey_; }
    const Rect& area() const { return area_; }

private:
    const PreparedFrame& pf_;
    const Template& tpl_;
    Rect area_;
    const LocatorOptions& o_;
    cv::Mat tgrey_;
    std::map<int, Scaled> cache_;
    std::mutex mutex_;
};

// Fills target, threshold, colour score and found of a confirmed grey match.
Match finish(Search& s, Match m, const std::string& method) {
    const Template& t = s.tpl();
    m.method = method;
    m.threshold = t.threshold;
    if (m.score < -1.5) {  // nothing was confirmed
        m.score = 0;
        m.found = false;
        return m;
    }
    m.color_score = s.colorScore(m);
    m.found = m.score >= t.threshold && m.color_score >= t.threshold;
    Point c = m.box.center();
    double k = m.box.w / double(std::max(1, t.bgr.cols));
    m.target = {c.x + int(std::lround(t.offset.x * k)), c.y + int(std::lround(t.offset.y * k))};
    return m;
}

bool better(const Match& a, const Match& b) {
    if (a.found != b.found) return a.found;
    return a.score > b.score;
}

// Multi-scale coarse-to-fine search over `scales` (in the order given), shared by `threads`.
Match multiScale(Search& search, const std::vector<double>& scales, const LocatorOptions& o,
                 double step_log, double threshold) {
    std::mutex mutex;
    std::vector<Candidate> pool;
    Match best;
    best.score = -2;
    std::atomic<size_t> next{0};
    std::atomic<bool> done{false};
    double sure = std::max(o.sure_score, threshold);
    auto worker = [&] {
        for (;;) {
            size_t i = next++;
            if (i >= scales.size() || done) return;
            auto cands = search.coarse(scales[i], o.candidates_per_scale);
            // Confirm the strongest peaks of this scale now; keep the rest for later.
            for (size_t c = 0; c < cands.size(); ++c) {
                if (c < 2) {
                    Match m = search.confirm(cands[c].pos, cands[c].scale, cands[c].margin, step_log / 2, 2);
                    std::lock_guard<std::mutex> lock(mutex);
                    if (m.score > best.score) best = m;
                    if (m.score >= sure) done = true;
                } else {
                    std::lock_guard<std::mutex> lock(mutex);
                    pool.push_back(cands[c]);
                }
            }
        }
    };
    int n = std::max(1, std::min<int>(o.threads, int(scales.size())));
    std::vector<std::thread> threads;
    for (int t = 1; t < n; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    if (!done) {
        std::sort(pool.begin(), pool.end(), [](const Candidate& a, const Candidate& b) { return a.coarse > b.coarse; });
        int budget = std::max(0, o.verify_budget - 2 * int(scales.size()));
        for (int i = 0; i < int(pool.size()) && i < budget; ++i) {
            Match m = search.confirm(pool[i].pos, pool[i].scale, pool[i].margin, step_log / 2, 2);
            if (m.score > best.score) best = m;
        }
    }
    if (best.score > -1.5) {
        // Polish: a finer scale sweep around the best.
        Match p = search.confirm({best.box.x, best.box.y}, best.scale, 3, step_log / 4, 2);
        if (p.score > best.score) best = p;
    }
    return best;
}

// ORB keypoints + RANSAC homography; the projected box is then confirmed by correlation.
Match featureStage(Search& search, const PreparedFrame& pf, const LocatorOptions& o, bool* ran) {
    Match none;
    none.score = -2;
    *ran = false;
    const cv::Mat& tg = search.tgrey();
    // Small templates are upscaled so that ORB's patches fit.
    double up = std::max(1.0, 64.0 / std::min(tg.cols, tg.rows));
    cv::Mat t = up > 1 ? resizeTo(tg, {int(tg.cols * up), int(tg.rows * up)}) : tg;
    auto orb = cv::ORB::create(500, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    std::vector<cv::KeyPoint> tk, fk;
    cv::Mat td, fd;
    orb->detectAndCompute(t, cv::noArray(), tk, td);
    if (tk.size() < 20) return none;  // too little texture for features: not attempted
    *ran = true;
    const Rect& a = search.area();
    cv::Mat fg = pf.grey()(cv::Rect(a.x, a.y, a.w, a.h));
    auto forb = cv::ORB::create(8000, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    forb->detectAndCompute(fg, cv::noArray(), fk, fd);
    if (fk.size() < 4 || fd.empty()) return none;
    cv::BFMatcher matcher(cv::NORM_HAMMING);
    std::vector<std::vector<cv::DMatch>> knn;
    matcher.knnMatch(td, fd, knn, 2);
    std::vector<cv::Point2f> src, dst;
    for (const auto& m : knn)
        if (m.size() == 2 && m[0].distance < 0.75f * m[1].distance) {
            src.push_back(tk[m[0].queryIdx].pt);
            dst.push_back(fk[m[0].trainIdx].pt);
        }
    if (src.size() < 6) return none;
    cv::Mat h = cv::findHomography(src, dst, cv::RANSAC, 5.0);
    if (h.empty()) return none;
    std::vector<cv::Point2f> corners = {{0, 0}, {float(t.cols), 0}, {float(t.cols), float(t.rows)}, {0, float(t.rows)}}, proj;
    cv::perspectiveTransform(corners, proj, h);
    cv::Rect2f bb = cv::boundingRect(proj);
    double scale = std::sqrt(std::max(0.0f, bb.area()) / (double(tg.cols) * tg.rows));
    if (!(scale >= o.min_scale && scale <= o.max_scale)) return none;
    Point approx{a.x + int(bb.x), a.y + int(bb.y)};
    return search.confirm(approx, scale, int(4 + 0.1 * std::max(bb.width, bb.height)), std::log(1.1), 3);
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
        // 1. Where it was last seen, at the scale it was seen.
        if (hints.last_seen && hints.last_scale) {
            auto t0 = Clock::now();
            Rect ls = *hints.last_seen;
            int grow = std::max(16, std::max(ls.w, ls.h) / 2);
            Match m = search.confirm({ls.x, ls.y}, *hints.last_scale, grow, std::log(1.03), 1);
            if (consider("last_seen", finish(search, m, "last_seen"), msSince(t0))) break;
        }
        // 2. The expected scale.
        double prior = hints.expected_scale.value_or(1.0);
        if (hints.expected_scale) {
            auto t0 = Clock::now();
            Match m;
            m.score = -2;
            for (const Candidate& c : search.coarse(prior, options_.candidates_per_scale)) {
                Match v = search.confirm(c.pos, c.scale, c.margin, step_log / 2, 2);
                if (v.score > m.score) m = v;
            }
            if (consider("expected_scale", finish(search, m, "expected_scale"), msSince(t0))) break;
        }
        // 3. Coarse-to-fine over the whole scale range, nearest the prior first.
        {
            auto t0 = Clock::now();
            std::vector<double> scales;
            for (double s = options_.min_scale; s <= options_.max_scale * 1.0001; s *= options_.scale_step)
                scales.push_back(s);
            std::sort(scales.begin(), scales.end(), [&](double a, double b) {
                return std::abs(std::log(a / prior)) < std::abs(std::log(b / prior));
            });
            Match m = multiScale(search, scales, options_, step_log, tpl.threshold);
            if (consider("multi_scale", finish(search, m, "multi_scale"), msSince(t0))) break;
        }
        // 4. Features, for templates with texture enough.
        if (options_.features) {
            auto t0 = Clock::now();
            bool ran = false;
            Match m = featureStage(search, frame, options_, &ran);
            if (ran && consider("features", finish(search, m, "features"), msSince(t0))) break;
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

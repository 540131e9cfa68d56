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

#include "vision/ColourAgreement.h"
#include "vision/Nms.h"
#include "vision/TemplateMatcher.h"
#include "vision/ocr/TextConfirm.h"

namespace eacu {
namespace {

using Clock = std::chrono::steady_clock;

double msSince(Clock::time_point t0) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// Downsampling factors of the coarse level; sharing a few levels lets scales reuse them.
constexpr double kLevels[] = {1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0, 5.0, 6.0, 8.0};

// The worst correlation over the parts of a template: it is cut into vertical strips about as
// wide as it is high (2 to 8), each compared with the patch within one pixel sideways; strips
// with almost no contrast (standard deviation under 10 grey levels) say nothing and are
// skipped. A look-alike word shares most glyphs with the template and differs in one, which
// the whole-template correlation averages away and the worst part does not.
double partsScore(const cv::Mat& patch, const cv::Mat& tpl) {
    int k = std::clamp(int(std::lround(double(tpl.cols) / std::max(1, tpl.rows))), 2, 8);
    double worst = 2;
    for (int i = 0; i < k; ++i) {
        int x0 = tpl.cols * i / k, x1 = tpl.cols * (i + 1) / k;
        if (x1 - x0 < 2) continue;
        cv::Mat strip = tpl(cv::Rect(x0, 0, x1 - x0, tpl.rows));
        cv::Scalar mean, sd;
        cv::meanStdDev(strip, mean, sd);
        if (sd[0] < 10) continue;
        int a0 = std::max(0, x0 - 1), a1 = std::min(patch.cols, x1 + 1);
        cv::Mat r;
        cv::matchTemplate(patch(cv::Rect(a0, 0, a1 - a0, patch.rows)), strip, r, cv::TM_CCOEFF_NORMED);
        cv::patchNaNs(r, -1.0);
        double v;
        cv::minMaxLoc(r, nullptr, &v);
        worst = std::min(worst, v);
    }
    return worst > 1.5 ? 1.0 : worst;
}

// Coarse peaks below this correlation are not worth confirming.
constexpr double kCoarseFloor = 0.2;

// At the coarse level a coloured template's peak is dropped when its colours clearly differ
// (chroma agreement below this: grey or black text where the template is a blue link scores
// about 0.1-0.2, the same colours about 0.9-1); the full-resolution confirm then applies the
// template's threshold. A template whose agreement with its own grey copy is below it counts
// as coloured.
constexpr double kCoarseColourFloor = 0.3;

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
        cv::Mat grey_bgr;
        cv::cvtColor(tgrey_, grey_bgr, cv::COLOR_GRAY2BGR);
        chromatic_ = chromaAgreement(tpl.bgr, grey_bgr, tpl.mask) < kCoarseColourFloor;
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

    // Locates the template around `approx` (full-resolution top-left, within `margin` full
    // pixels) at scales s·e^(i·log_range/n), i in [-n, n], on the frame downsampled by `f`
    // (1 = full resolution). Returns the best (grey correlation; box in full-resolution
    // pixels, exact only when f = 1), or score -2 when no scale fits.
    Match confirmAt(Point approx, double s, int margin, double log_range, int n, double f = 1.0) {
        Match best;
        best.score = -2;
        // At full resolution only the searched window is converted to grey.
        const cv::Mat* img = f > 1.0 ? &pf_.downsampled(f) : nullptr;
        cv::Size size = img ? img->size() : pf_.bgr().size();
        cv::Rect bounds(int(std::ceil(area_.x / f)), int(std::ceil(area_.y / f)),
                        int(std::floor(area_.w / f)), int(std::floor(area_.h / f)));
        bounds &= cv::Rect(0, 0, size.width, size.height);
        int m = int(std::ceil(margin / f)) + 1;
        for (int i = -n; i <= n; ++i) {
            double sc = s * std::exp(n ? log_range * i / n : 0.0);
            if (sc < o_.min_scale || sc > o_.max_scale) continue;
            const Scaled* t = at(sc / f);
            if (!t) continue;
            cv::Rect roi(int(std::lround(approx.x / f)) - m, int(std::lround(approx.y / f)) - m,
                         t->grey.cols + 2 * m, t->grey.rows + 2 * m);
            roi &= bounds;
            if (roi.width < t->grey.cols || roi.height < t->grey.rows) continue;
            cv::Mat r;
            cv::matchTemplate(img ? (*img)(roi) : pf_.greyRegion(roi), t->grey, r, cv::TM_CCOEFF_NORMED, t->mask);
            cv::patchNaNs(r, -1.0);
            double mx;
            cv::Point loc;
            cv::minMaxLoc(r, nullptr, &mx, nullptr, &loc);
            mx = std::min(mx, 1.0);
            if (mx > best.score) {
                best.score = mx;
                best.scale = sc;
                best.box = {int(std::lround((roi.x + loc.x) * f)), int(std::lround((roi.y + loc.y) * f)),
                            int(std::lround(t->grey.cols * f)), int(std::lround(t->grey.rows * f))};
            }
        }
        return best;
    }

    // The level on which candidates at scale s are first confirmed: as coarse as keeps the
    // template's short side >= 10 px and its area >= 2000 px (big templates stay
    // discriminative when reduced).
    double confirmLevel(double s) const {
        double w = tgrey_.cols * s, h = tgrey_.rows * s;
        double f = std::min(std::min(w, h) / 10.0, std::sqrt(w * h / 2000.0));
        double level = 1.0;
        for (double l : kLevels)
            if (l <= f) level = l;
        return level;
    }

    // Full-resolution refinement of a candidate: position and scale, halving the scale step
    // until it changes the template's width by less than a pixel.
    Match refine(Match m, double log_range, int margin) {
        if (m.score < -1.5) return m;
        Match best = confirmAt({m.box.x, m.box.y}, m.scale, margin, log_range, 2, 1.0);
        double r = log_range / 2;
        double min_r = 0.5 / std::max(8.0, tgrey_.cols * best.scale);
        while (best.score > -1.5 && r >= min_r) {
            Match b = confirmAt({best.box.x, best.box.y}, best.scale, 2, r, 1, 1.0);
            if (b.score > best.score) best = b;
            r /= 2;
        }
        return best.score > -1.5 ? best : m;
    }

    // Coarse search at scale s: the frame downsampled as far as the template allows, the
    // best `k` separated peaks.
    std::vector<Candidate> coarse(double s, int k) {
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
        cv::Mat r;
        cv::matchTemplate(level(croi), ct, r, cv::TM_CCOEFF_NORMED, cm);
        cv::patchNaNs(r, -1.0);
        std::vector<Candidate> out;
        // The confirm searches around each peak: a coarse pixel either way, plus 5 % of the
        // template's width, what a size half a scale step (1.2) off moves the top-left of a
        // match aligned on its middle (a line of text correlates along itself, so its coarse
        // peak may sit a glyph or two from the truth).
        int margin = int(std::ceil(factor)) + 2 + int(std::ceil(0.05 * tgrey_.cols * s));
        // Local maxima (3x3) above the floor, best first, then greedy suppression of peaks
        // within half a template of a better one.
        cv::Mat dil;
        cv::dilate(r, dil, cv::Mat());
        cv::Mat peaks = (r >= dil) & (r >= kCoarseFloor);
        std::vector<cv::Point> locs;
        cv::findNonZero(peaks, locs);
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

    // The confirm score of a located candidate, compared at the lower of the two resolutions
    // (see Locator), best over one-pixel shifts of the box. Sets m.score, m.color_score (the
    // chroma agreement at the best shift) and moves m.box to the best shift.
    void rescore(Match& m) {
        const cv::Mat& frame_bgr = pf_.bgr();
        cv::Rect bounds(0, 0, frame_bgr.cols, frame_bgr.rows);
        double s = m.box.w / double(tpl_.bgr.cols);
        bool shrink_frame = s > 1.02, shrink_tpl = s < 0.98;
        cv::Mat tb = tpl_.bgr, tm = tpl_.mask;
        if (shrink_tpl) {
            tb = resizeTo(tpl_.bgr, {m.box.w, m.box.h});
            if (!tm.empty()) tm = resizeTo(tpl_.mask, {m.box.w, m.box.h}, true);
        }
        cv::Mat tg;
        cv::cvtColor(tb, tg, cv::COLOR_BGR2GRAY);
        double best = -2;
        Rect best_box = m.box;
        cv::Mat best_pg, best_patch;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx) {
                cv::Rect r(m.box.x + dx, m.box.y + dy, m.box.w, m.box.h);
                if ((r & bounds) != r) continue;
                cv::Mat patch = frame_bgr(r);
                if (shrink_frame) patch = resizeTo(patch, tb.size());
                else if (shrink_tpl) {
                    cv::Mat soft;
                    cv::GaussianBlur(patch, soft, {0, 0}, 0.5);
                    patch = soft;
                } else if (patch.size() != tb.size()) {
                    patch = resizeTo(patch, tb.size());
                }
                cv::Mat pg, res;
                cv::cvtColor(patch, pg, cv::COLOR_BGR2GRAY);
                cv::matchTemplate(pg, tg, res, cv::TM_CCOEFF_NORMED, tm);
                double v = res.at<float>(0, 0);
                if (std::isnan(v)) v = -1;
                if (v > best) {
                    best = std::min(v, 1.0);
                    best_box = {r.x, r.y, r.width, r.height};
                    best_pg = pg;
                    best_patch = patch;
                }
            }
        if (best > -1.5) {
            m.score = best;
            m.color_score = chromaAgreement(best_patch, tb, tm);
            m.box = best_box;
            m.parts_score = tm.empty() ? partsScore(best_pg, tg) : best;
        }
    }

    // Whether a refined candidate's colours agree with the template's (the colour confirm of
    // finish, at the template's own threshold), so that a differently coloured look-alike
    // (black body text shaped like a blue link) neither uses up the refine budget nor ends
    // the search early.
    bool colourAgrees(Match m) {
        rescore(m);
        return m.color_score >= tpl_.threshold;
    }

    // Set once the text confirm has rejected a candidate of this search (see confirmWords).
    bool lookalike_rejected = false;

    const Template& tpl() const { return tpl_; }
    const cv::Mat& frameBgr() const { return pf_.bgr(); }
    const cv::Mat& tgrey() const { return tgrey_; }
    const Rect& area() const { return area_; }
    const LocatorOptions& options() const { return o_; }

private:
    const PreparedFrame& pf_;
    const Template& tpl_;
    Rect area_;
    const LocatorOptions& o_;
    cv::Mat tgrey_;
    bool chromatic_ = false;  // the template has colour (it disagrees with its own grey)
    std::map<int, Scaled> cache_;
    std::mutex mutex_;
};

// Fills score (the confirm at the lower resolution), colour score, target, threshold and found
// of a located candidate. `required` is the threshold it must reach (the template's, or higher
// for a match away from the expected scale).
Match finish(Search& s, Match m, const std::string& method, double required) {
    const Template& t = s.tpl();
    m.method = method;
    m.threshold = required;
    if (m.score < -1.5) {  // nothing was confirmed
        m.score = 0;
        m.found = false;
        return m;
    }
    s.rescore(m);
    m.found = m.score >= required && m.color_score >= required &&
              m.parts_score >= required - s.options().parts_slack;
    Point c = m.box.center();
    double k = m.box.w / double(std::max(1, t.bgr.cols));
    m.target = {c.x + int(std::lround(t.offset.x * k)), c.y + int(std::lround(t.offset.y * k))};
    return m;
}

bool better(const Match& a, const Match& b) {
    if (a.found != b.found) return a.found;
    return a.score > b.score;
}

// Phase 1 of confirming coarse candidates: each is located on its confirm level within the
// coarse scale step; the result keeps the candidate's margin for the full-resolution refine.
struct Confirmed {
    Match match;
    int margin;
};

Confirmed confirmCandidate(Search& search, const Candidate& c, double log_range) {
    double f = search.confirmLevel(c.scale);
    return {search.confirmAt(c.pos, c.scale, c.margin, log_range, 2, f), c.margin + int(std::ceil(f))};
}

// The best `keep` phase-1 results refined at full resolution, non-maximum suppressed. Those
// whose colours disagree are passed over (among the best 3 * keep) unless none agree, when
// the best of them is refined for diagnostics.
std::vector<Match> refineBest(Search& search, std::vector<Confirmed> pool, int keep, double log_range) {
    std::sort(pool.begin(), pool.end(), [](const Confirmed& a, const Confirmed& b) { return a.match.score > b.match.score; });
    std::vector<Match> out;
    const Confirmed* off_colour = nullptr;
    for (int i = 0; i < int(pool.size()) && int(out.size()) < keep && i < 3 * keep; ++i) {
        if (pool[i].match.score < -1.5) continue;
        if (!search.colourAgrees(pool[i].match)) {  // judged before the costly refine
            if (!off_colour) off_colour = &pool[i];
            continue;
        }
        Match m = search.refine(pool[i].match, log_range, pool[i].margin);
        if (m.score > -1.5) out.push_back(m);
    }
    if (out.empty() && off_colour) {
        Match m = search.refine(off_colour->match, log_range, off_colour->margin);
        if (m.score > -1.5) out.push_back(m);
    }
    return nonMaximumSuppression(std::move(out), 0.3, keep);
}

// Multi-scale coarse-to-fine search over `scales` (in the order given), shared by `threads`:
// coarse peaks per scale, confirmed on a reduced level, the best refined at full resolution.
// A refined score of at least `sure` ends the search early. Returns refined candidates.
std::vector<Match> multiScale(Search& search, const std::vector<double>& scales, const LocatorOptions& o,
                              double step_log, double threshold) {
    std::mutex mutex;
    std::vector<Confirmed> pool;
    std::vector<Match> early;
    std::atomic<size_t> next{0};
    std::atomic<bool> done{false};
    double sure = std::max(o.sure_score, threshold);
    auto worker = [&] {
        for (;;) {
            size_t i = next++;
            if (i >= scales.size() || done) return;
            std::vector<Confirmed> mine;
            for (const Candidate& c : search.coarse(scales[i], o.candidates_per_scale))
                mine.push_back(confirmCandidate(search, c, step_log / 2));
            std::sort(mine.begin(), mine.end(), [](const Confirmed& a, const Confirmed& b) { return a.match.score > b.match.score; });
            if (!mine.empty() && mine.front().match.score >= sure) {
                // Refine every candidate as good as the best (identical elements on one screen
                // are then all there for the reading-order tie-break).
                double floor = mine.front().match.score - o.tie_margin - 0.02;
                for (const Confirmed& c : mine) {
                    if (c.match.score < floor) break;
                    Match m = search.refine(c.match, step_log / 4, c.margin);
                    if (m.score >= sure && search.colourAgrees(m)) {
                        std::lock_guard<std::mutex> lock(mutex);
                        early.push_back(m);
                        done = true;
                    }
                }
            }
            std::lock_guard<std::mutex> lock(mutex);
            pool.insert(pool.end(), mine.begin(), mine.end());
        }
    };
    int n = std::max(1, std::min<int>(o.threads, int(scales.size())));
    std::vector<std::thread> threads;
    for (int t = 1; t < n; ++t) threads.emplace_back(worker);
    worker();
    for (auto& t : threads) t.join();
    std::vector<Match> out = refineBest(search, std::move(pool), o.refine_budget, step_log / 4);
    out.insert(out.end(), early.begin(), early.end());
    return nonMaximumSuppression(std::move(out), 0.3, o.refine_budget + 1);
}

// The text confirm of a found candidate below options.text_confirm_below (see
// LocatorOptions and vision/ocr/TextConfirm): when it judges that the place does not show the
// template's words, the candidate is rejected and `veto` says why. Once a look-alike has been
// rejected on this screen, pixel evidence alone no longer suffices: a later candidate whose
// words cannot be read is rejected too. An OCR failure (Tesseract missing) leaves the pixel
// match standing.
void confirmWords(Search& search, Match& m) {
    const LocatorOptions& o = search.options();
    if (!m.found || !o.text_confirm || m.score >= o.text_confirm_below) return;
    try {
        TextVerdict v = confirmText(search.frameBgr(), search.tpl(), m.box);
        if (v.judged && !v.agrees) {
            m.found = false;
            m.veto = "reads \"" + v.frame_text + "\" where the template reads \"" + v.template_text + "\"";
            search.lookalike_rejected = true;
        } else if (!v.judged && v.template_legible && search.lookalike_rejected) {
            m.found = false;
            m.veto = "shows no legible \"" + v.template_text + "\" (read \"" + v.frame_text +
                     "\"), and a look-alike of it was rejected on this screen";
        }
    } catch (const std::exception&) {
    }
}

// The final choice among confirmed candidates: each is rescored (finish), the best passing
// one wins; candidates within tie_margin of it are taken in reading order. The chosen one is
// text-confirmed (confirmWords); if that rejects it, the choice is made again.
template <class Required>
Match pick(Search& search, const std::vector<Match>& cands, const std::string& method, Required required) {
    std::vector<Match> done;
    for (const Match& c : cands) done.push_back(finish(search, c, method, required(c.scale)));
    if (done.empty()) {
        Match none;
        none.score = -2;
        return finish(search, none, method, search.tpl().threshold);
    }
    std::vector<bool> checked(done.size(), false);
    for (;;) {
        std::vector<size_t> order(done.size());
        for (size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return better(done[a], done[b]); });
        const Match& top = done[order.front()];
        size_t chosen = order.front();
        for (size_t i : order) {
            const Match& m = done[i];
            const Match& c = done[chosen];
            if (m.found == top.found && top.score - m.score <= search.options().tie_margin &&
                (m.box.y < c.box.y - c.box.h / 2 || (std::abs(m.box.y - c.box.y) <= c.box.h / 2 && m.box.x < c.box.x)))
                chosen = i;
        }
        if (checked[chosen] || !done[chosen].found) return done[chosen];
        checked[chosen] = true;
        confirmWords(search, done[chosen]);
        if (done[chosen].found) return done[chosen];
    }
}

// ORB keypoints + RANSAC homography; the projected box is then confirmed by correlation.
Match featureStage(Search& search, const PreparedFrame& pf, const LocatorOptions& o, bool* ran) {
    Match none;
    none.score = -2;
    *ran = false;
    const cv::Mat& tg = search.tgrey();
    // Features are for textured images (icons, pictures) of some size; a line of text has few
    // stable keypoints and is left to the template stages. Very small images are upscaled so
    // that ORB's patches fit.
    double up = std::max(1.0, 24.0 / std::min(tg.cols, tg.rows));
    cv::Mat t = up > 1 ? resizeTo(tg, {int(tg.cols * up), int(tg.rows * up)}) : tg;
    auto orb = cv::ORB::create(500, 1.2f, 8, 15, 0, 2, cv::ORB::HARRIS_SCORE, 15);
    std::vector<cv::KeyPoint> tk, fk;
    cv::Mat td, fd;
    orb->detectAndCompute(t, cv::noArray(), tk, td);
    if (tk.size() < 25) return none;  // too little texture for features: not attempted
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
    Match m = search.confirmAt(approx, scale, int(4 + 0.1 * std::max(bb.width, bb.height)), std::log(1.1), 3);
    return search.refine(m, std::log(1.03), 4);
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
            if (consider("last_seen", finish(search, m, "last_seen", tpl.threshold), msSince(t0))) break;
        }
        // 2. The expected scale.
        double prior = hints.expected_scale.value_or(1.0);
        if (hints.expected_scale) {
            auto t0 = Clock::now();
            std::vector<Confirmed> pool;
            for (const Candidate& c : search.coarse(prior, 2 * options_.candidates_per_scale))
                pool.push_back(confirmCandidate(search, c, std::log(options_.scale_tolerance)));
            auto cands = refineBest(search, std::move(pool), options_.refine_budget, std::log(options_.scale_tolerance) / 2);
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

#include "task/Session.h"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>

#include <nlohmann/json.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Format.h"
#include "device/Gestures.h"
#include "device/KeyCombo.h"
#include "geometry/Coords.h"
#include "vision/ocr/OcrCache.h"
#include "vision/ocr/OcrEngine.h"
#include "vision/ocr/TextFinder.h"
#include "vision/ScreenDiff.h"

namespace eacu {
namespace {


double msBetween(double t0, double t1) { return (t1 - t0) * 1000.0; }

// What an action's settle wait saw, as recorded in steps.params: "effect" is "changed" when the
// screen changed beyond noise, else "none"; "settled" whether it then stayed still in time.
nlohmann::json settleParams(const Settle& st) {
    return {{"effect", st.changed ? "changed" : "none"}, {"settled", st.settled}};
}

}  // namespace

std::string describeTarget(const TargetSpec& t) {
    if (!t.label.empty()) return t.label;
    if (t.image) return "\"" + *t.image + "\"";
    if (t.text) return "{text=\"" + *t.text + "\"}";
    if (t.point)
        return "{x=" + fixed((*t.point)[0], 3) + ", y=" + fixed((*t.point)[1], 3) + "}";
    return "(no target)";
}

Session::Session(Device& device, const AssetLibrary& assets, const Locator& locator, RunLog* log,
                 int64_t run_id, SessionOptions options)
    : device_(device), assets_(assets), locator_(locator), log_(log), run_id_(run_id),
      options_(std::move(options)), limits_(options_.limits) {}

Session::~Session() {
    for (auto& p : processes_) p->stop();
}

std::vector<Template> Session::templatesFor(const TargetSpec& t) const {
    std::vector<Template> variants = assets_.resolveVariants(*t.image, options_.script_dir);
    for (Template& tpl : variants) {
        if (t.threshold) tpl.threshold = *t.threshold;
        if (t.offset) tpl.offset = *t.offset;
    }
    return variants;
}

std::optional<Rect> Session::regionFor(const TargetSpec& t) const {
    if (!t.region) return std::nullopt;
    const auto& r = *t.region;
    return resolveRegion(r[0], r[1], r[2], r[3], device_.screenSize());
}

Point Session::pointFor(const TargetSpec& t) const {
    Point p = resolvePoint((*t.point)[0], (*t.point)[1], device_.screenSize());
    if (t.offset) p = {p.x + t.offset->x, p.y + t.offset->y};
    return p;
}

// The key under which a target's last-seen place is kept: its image and search region.
static std::string seenKey(const TargetSpec& t) {
    std::string k = t.image ? *t.image : "";
    if (t.region)
        for (double v : *t.region) k += "|" + std::to_string(v);
    return k;
}

// One look for a text target on frame `f`: OCR (cached per frame), then the best reading of
// the phrase whatever its similarity, so that a miss can report how close it came.
Session::Located Session::lookForText(const TargetSpec& t, Frame f) const {
    std::string langs = t.lang.value_or(OcrEngine::langsFor(*t.text));
    TextFindOptions any;
    any.threshold = 0;
    any.max_results = 1;
    double required = t.threshold.value_or(TextFindOptions{}.threshold);
    double t0 = monotonicSeconds();
    std::shared_ptr<const OcrResult> ocr = OcrCache::shared().get(f.bgr, regionFor(t), langs);
    std::vector<TextMatch> hits = findText(*ocr, *t.text, any);
    Match m;
    m.method = "ocr";
    m.threshold = required;
    if (!hits.empty()) {
        const TextMatch& h = hits.front();
        m.box = h.box;
        m.score = m.color_score = h.score;
        m.found = h.score >= required;
        Point c = h.box.center();
        m.target = {c.x + (t.offset ? t.offset->x : 0), c.y + (t.offset ? t.offset->y : 0)};
    }
    m.ms = msBetween(t0, monotonicSeconds());
    return {m, std::move(f), {}};
}

// One look for an image target (its variants) on frame `f`, with the session's hints: the
// expected scale (learned device scale, else the frame's over the template's) and where the
// target was last seen. A match found updates both.
Session::Located Session::lookForImage(const TargetSpec& t, const std::vector<Template>& variants, Frame f) {
    LocateHints hints;
    hints.region = regionFor(t);
    double recorded = variants.front().scale;
    hints.expected_scale = scales_.expectedScale(recorded).value_or(f.scale / recorded);
    std::string key = seenKey(t);
    if (auto it = last_seen_.find(key); it != last_seen_.end()) {
        hints.last_seen = it->second.first;
        hints.last_scale = it->second.second;
    }
    PreparedFrame pf(f.bgr);
    LocateReport r = locator_.locate(pf, variants, hints);
    if (r.match.found) {
        scales_.observe(r.match, recorded);
        last_seen_[key] = {r.match.box, r.match.scale};
    }
    return {r.match, std::move(f), r.stages};
}

Session::Located Session::find(const TargetSpec& t, double timeout, bool want_present) {
    if (!t.text && !t.image) throw std::invalid_argument("expected an image or text target, got " + describeTarget(t));
    std::vector<Template> variants;
    if (t.image) variants = templatesFor(t);
    double deadline = monotonicSeconds() + std::max(0.0, timeout);
    Located best;
    bool have_best = false;
    for (;;) {
        cancel().check();
        Frame f = device_.capture();
        Located l = t.text ? lookForText(t, std::move(f)) : lookForImage(t, variants, std::move(f));
        if (!have_best || l.match.found == want_present || l.match.score > best.match.score) {
            best = std::move(l);
            have_best = true;
        }
        if (best.match.found == want_present) return best;
        if (monotonicSeconds() + options_.poll_interval > deadline) return best;
        cancel().sleep(options_.poll_interval);
    }
}

// find(), with the registered blockers looked for whenever the target is missing: one look
// first, then blockers, then looks in slices of blocker_interval until the deadline.
Session::Located Session::findOrDismiss(const TargetSpec& t, double timeout) {
    if (blockers_.empty() || in_blocker_) return find(t, timeout, true);
    const double deadline = monotonicSeconds() + std::max(0.0, timeout);
    Located l = find(t, 0, true);
    int handled = 0;
    while (!l.match.found) {
        if (handled < 10) {
            Located appeared;
            if (!handleBlockersFor(describeTarget(t), &t, &appeared).empty()) {
                ++handled;
                l = find(t, 0, true);
                continue;
            }
            if (appeared.match.found) return appeared;
        }
        double remaining = deadline - monotonicSeconds();
        if (remaining <= 0) break;
        l = find(t, std::min(remaining, options_.blocker_interval), true);
    }
    return l;
}

// Before a click: a frame older than the settle interval may no longer show where the target
// is (it may have moved): look again, once, and use the new place when it is found.
Session::Located Session::relocateIfStale(const TargetSpec& t, Located l, bool& relocated) {
    relocated = false;
    if (l.frame.monotonic <= 0 || monotonicSeconds() - l.frame.monotonic <= options_.settle_interval) return l;
    Located again = find(t, 0, true);
    if (!again.match.found) return l;
    relocated = !(again.match.box == l.match.box);
    return again;
}

void Session::beforeAction(const std::string& action, const std::string& target) {
    limits_.beforeAction(action + (target.empty() ? "" : " " + target));
}

StepRecord Session::newStep(const std::string& action, const TargetSpec* t) {
    StepRecord s;
    s.run_id = run_id_;
    s.idx = ++step_counter_;
    s.action = action;
    if (t) s.target = describeTarget(*t);
    s.started_at = wallSeconds();
    s.transform_json = nlohmann::json{{"scale", device_.scaleFactor()}, {"space", "physical"}}.dump();
    return s;
}

int64_t Session::saveFrame(const Frame& f) {
    if (!log_ || !options_.record_frames || f.empty()) return 0;
    return log_->addFrame(run_id_, f);
}

int64_t Session::commit(StepRecord& s) {
    s.ended_at = wallSeconds();
    if (s.status.empty()) s.status = "ok";
    if (!log_) return 0;
    s.id = log_->addStep(s);
    return s.id;
}

// The best candidate of each locate stage, as text for errors ("multi_scale 0.62 at (..)
// x1.48") and as JSON for the run log.
static std::string stagesText(const std::vector<StageResult>& stages) {
    std::string out;
    for (const auto& st : stages)
        out += (out.empty() ? "" : "; ") + st.stage + " " + fixed(st.best.score) + " at " +
               st.best.box.str() + " x" + fixed(st.best.scale);
    return out;
}

static nlohmann::json stagesJson(const std::vector<StageResult>& stages) {
    nlohmann::json arr = nlohmann::json::array();
    for (const auto& st : stages)
        arr.push_back({{"stage", st.stage},
                       {"score", st.best.score},
                       {"color_score", st.best.color_score},
                       {"threshold", st.best.threshold},
                       {"box", {st.best.box.x, st.best.box.y, st.best.box.w, st.best.box.h}},
                       {"scale", st.best.scale},
                       {"found", st.best.found},
                       {"veto", st.best.veto},
                       {"ms", st.ms}});
    return arr;
}

void Session::failLocate(StepRecord& s, const TargetSpec& t, const Located& l, double timeout,
                         const char* verb) {
    int64_t frame = saveFrame(l.frame);
    s.frame_before = frame ? std::optional<int64_t>(frame) : std::nullopt;
    const Match& m = l.match;
    std::string msg = s.action + " " + describeTarget(t) + ": " + verb;
    if (timeout > 0) msg += " within " + fixed(timeout, 1) + " s";
    msg += ": best score " + fixed(m.score) + " (colour " + fixed(m.color_score) + ") at " +
           m.box.str() + ", threshold " + fixed(m.threshold);
    if (!m.veto.empty()) msg += " (rejected: it " + m.veto + ")";
    if (!l.stages.empty()) msg += " [" + stagesText(l.stages) + "]";
    nlohmann::json params = nlohmann::json::parse(s.params_json.empty() ? "{}" : s.params_json);
    params["stages"] = stagesJson(l.stages);
    s.params_json = params.dump();
    if (frame) msg += "; frame " + std::to_string(frame) + " of run " + std::to_string(run_id_);
    if (log_) msg += " in " + log_->path();
    s.status = "failed";
    s.error = msg;
    s.method = m.method;
    s.score = m.score;
    s.threshold = m.threshold;
    s.box = m.box;
    int64_t id = commit(s);
    throw StepError(std::string(verb) == "still present" ? failure::kFailed : failure::kNotFound, msg, id, frame,
                    describeTarget(t), m);
}

Match Session::locate(const TargetSpec& t, double timeout) {
    StepRecord s = newStep("locate", &t);
    Located l = find(t, timeout, true);
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    s.box = l.match.box;
    s.locate_ms = l.match.ms;
    s.params_json = nlohmann::json{{"stages", stagesJson(l.stages)}, {"scale", l.match.scale}}.dump();
    s.status = l.match.found ? "ok" : "not_found";
    commit(s);
    return l.match;
}

std::shared_ptr<const OcrResult> Session::ocr(const std::optional<std::array<double, 4>>& region,
                                              const std::string& langs) {
    TargetSpec area;
    area.region = region;
    StepRecord s = newStep("ocr", nullptr);
    s.method = "ocr";
    Frame f = device_.capture();
    std::optional<Rect> r = regionFor(area);
    double t0 = monotonicSeconds();
    std::shared_ptr<const OcrResult> result = OcrCache::shared().get(f.bgr, r, langs);
    s.locate_ms = msBetween(t0, monotonicSeconds());
    if (r) s.box = *r;
    s.target = langs;
    s.params_json = nlohmann::json{{"lines", result->lines.size()}, {"langs", langs}}.dump();
    if (auto id = saveFrame(f)) s.frame_before = id;
    commit(s);
    return result;
}

std::vector<Match> Session::findAll(const TargetSpec& t, int max_results) {
    if (!t.image) throw std::invalid_argument("find_all: expected an image target, got " + describeTarget(t));
    StepRecord s = newStep("find_all", &t);
    Frame f = device_.capture();
    Template tpl = templatesFor(t).front();
    auto t0 = monotonicSeconds();
    std::vector<Match> all = locator_.findAll(f.bgr, tpl, regionFor(t), max_results);
    s.locate_ms = msBetween(t0, monotonicSeconds());
    s.method = "template";
    s.threshold = tpl.threshold;
    s.params_json = nlohmann::json{{"count", all.size()}}.dump();
    if (!all.empty()) {
        s.score = all.front().score;
        s.box = all.front().box;
    }
    commit(s);
    return all;
}

Match Session::wait(const TargetSpec& t, double timeout, const std::string& action) {
    if (timeout < 0) timeout = options_.find_timeout;
    StepRecord s = newStep(action, &t);
    Located l = findOrDismiss(t, timeout);
    if (!l.match.found) failLocate(s, t, l, timeout, "not found");
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    s.box = l.match.box;
    s.locate_ms = l.match.ms;
    if (auto id = saveFrame(l.frame)) s.frame_before = id;
    commit(s);
    return l.match;
}

void Session::waitVanish(const TargetSpec& t, double timeout) {
    if (timeout < 0) timeout = options_.find_timeout;
    StepRecord s = newStep("wait_vanish", &t);
    Located l = find(t, timeout, false);
    if (l.match.found) failLocate(s, t, l, timeout, "still present");
    s.method = l.match.method;
    s.score = l.match.score;
    s.threshold = l.match.threshold;
    commit(s);
}

Point Session::moveExactly(Point p) {
    // Move, read the pointer back and correct until it is where it should be (seed 001 §4:
    // up to N attempts); never press somewhere else.
    Point c{};
    for (int i = 0; i < std::max(1, options_.cursor_attempts); ++i) {
        device_.move(p);
        device_.sync();
        c = device_.cursor();
        if (c.x == p.x && c.y == p.y) return c;
    }
    throw std::runtime_error("the pointer is at (" + std::to_string(c.x) + "," + std::to_string(c.y) +
                             ") after " + std::to_string(std::max(1, options_.cursor_attempts)) +
                             " moves, expected (" + std::to_string(p.x) + "," + std::to_string(p.y) +
                             "): not pressing");
}

Match Session::tap(const TargetSpec& t, const TapOptions& o) {
    StepRecord s = newStep(o.action, &t);
    nlohmann::json params{{"button", buttonNumber(o.button)}, {"count", o.count}, {"hold", o.hold}};
    s.params_json = params.dump();
    beforeAction(o.action, s.target);
    Match m;
    Frame before;
    if (t.searched()) {
        double timeout = o.timeout < 0 ? options_.find_timeout : o.timeout;
        Located l = findOrDismiss(t, timeout);
        if (!l.match.found) failLocate(s, t, l, timeout, "not found");
        bool relocated = false;
        double age = monotonicSeconds() - l.frame.monotonic;
        l = relocateIfStale(t, std::move(l), relocated);
        if (relocated) params["relocated"] = {{"frame_age_ms", age * 1000}};
        m = l.match;
        before = std::move(l.frame);
        s.locate_ms = m.ms;
    } else if (t.point) {
        m.found = true;
        m.method = "point";
        m.target = pointFor(t);
        m.box = {m.target.x, m.target.y, 1, 1};
        before = device_.capture();
    } else {
        throw std::invalid_argument(o.action + ": expected an image or a point target");
    }
    s.method = m.method;
    if (m.method != "point") {
        s.score = m.score;
        s.threshold = m.threshold;
        s.box = m.box;
    }
    s.input = m.target;
    auto press = [&](Point p) {
        try {
            moveExactly(p);
        } catch (const std::exception& e) {
            s.status = "failed";
            s.error = o.action + " " + describeTarget(t) + ": " + e.what();
            s.params_json = params.dump();
            int64_t id = commit(s);
            throw StepError(failure::kDevice, s.error, id, 0, describeTarget(t));
        }
        if (o.hold > 0) {
            device_.press(o.button);
            device_.sync();
            cancel().sleep(o.hold);
            device_.release(o.button);
        } else {
            device_.click(o.button, o.count);
        }
        device_.sync();
    };
    double a0 = monotonicSeconds();
    press(m.target);
    s.action_ms = msBetween(a0, monotonicSeconds());
    if (auto id = saveFrame(before)) s.frame_before = id;
    Settle st = waitSettled(before);
    // Effect check (seed 000 §5): a single tap that changed nothing is tapped again a few
    // pixels off, inside the target's box. Long presses and double taps are not repeated.
    int retries = 0;
    if (!st.changed && o.count == 1 && o.hold <= 0) {
        static const int dirs[4][2] = {{1, 0}, {0, 1}, {-1, 0}, {0, -1}};
        nlohmann::json tried = nlohmann::json::array();
        // A loaded machine may draw the effect late: give it one more effect interval before
        // pressing again (a second press of a key that did work would type it twice).
        if (options_.tap_retries > 0) {
            Settle late = waitSettled(before);
            late.ms += st.ms;
            st = std::move(late);
        }
        for (int i = 0; i < options_.tap_retries && !st.changed; ++i) {
            int j = options_.jitter;
            Point p{m.target.x + dirs[i % 4][0] * j, m.target.y + dirs[i % 4][1] * j};
            if (m.method != "point") {
                p.x = std::clamp(p.x, m.box.x, m.box.x + std::max(0, m.box.w - 1));
                p.y = std::clamp(p.y, m.box.y, m.box.y + std::max(0, m.box.h - 1));
            }
            press(p);
            ++retries;
            tried.push_back({p.x, p.y});
            s.input = p;
            st = waitSettled(before);
        }
        params["retried_at"] = tried;
    }
    params["retries"] = retries;
    params.update(settleParams(st));
    s.params_json = params.dump();
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    commit(s);
    return m;
}

Settle Session::finishAction(StepRecord& s, const Frame& before, double a0) {
    s.action_ms = msBetween(a0, monotonicSeconds());
    if (auto id = saveFrame(before)) s.frame_before = id;
    Settle st = waitSettled(before);
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    return st;
}

void Session::input(const std::string& text) {
    StepRecord s = newStep("input", nullptr);
    s.target = text;
    s.method = "keyboard";
    beforeAction("input", nlohmann::json(text).dump());
    Frame before = device_.capture();
    double a0 = monotonicSeconds();
    device_.typeText(text);
    device_.sync();
    Settle st = finishAction(s, before, a0);
    s.params_json = settleParams(st).dump();
    commit(s);
}

void Session::key(const std::string& combo) {
    std::vector<Key> keys = parseKeyCombo(combo);
    StepRecord s = newStep("key", nullptr);
    s.target = combo;
    s.method = "keyboard";
    beforeAction("key", combo);
    Frame before = device_.capture();
    double a0 = monotonicSeconds();
    device_.keyCombo(keys);
    device_.sync();
    Settle st = finishAction(s, before, a0);
    s.params_json = settleParams(st).dump();
    commit(s);
}

bool Session::scroll(int dx, int dy, const std::optional<TargetSpec>& at) {
    StepRecord s = newStep("scroll", at ? &*at : nullptr);
    s.params_json = nlohmann::json{{"dx", dx}, {"dy", dy}}.dump();
    beforeAction("scroll", s.target);
    Frame before;
    if (at) {
        Match m;
        if (at->searched()) {
            Located l = findOrDismiss(*at, options_.find_timeout);
            if (!l.match.found) failLocate(s, *at, l, options_.find_timeout, "not found");
            m = l.match;
            before = std::move(l.frame);
            s.score = m.score;
            s.threshold = m.threshold;
            s.box = m.box;
        } else {
            m.target = pointFor(*at);
            before = device_.capture();
        }
        s.input = m.target;
        moveExactly(m.target);
    } else {
        before = device_.capture();
        s.input = device_.cursor();
    }
    s.method = "wheel";
    double a0 = monotonicSeconds();
    device_.scroll(dx, dy);
    device_.sync();
    Settle st = finishAction(s, before, a0);
    // A scroll that moved nothing (the end of the page, nothing scrollable under the pointer)
    // is reported in the step, not retried (seed 000: the caller may scroll the other way).
    nlohmann::json params = settleParams(st);
    params["dx"] = dx;
    params["dy"] = dy;
    s.params_json = params.dump();
    commit(s);
    return st.changed;
}

void Session::drag(const TargetSpec& from, const TargetSpec& to, double duration) {
    StepRecord s = newStep("drag", &from);
    s.target = describeTarget(from) + " -> " + describeTarget(to);
    beforeAction("drag", s.target);
    auto resolve = [&](const TargetSpec& t, Frame& frame) -> Point {
        if (t.point) {
            if (frame.empty()) frame = device_.capture();
            return pointFor(t);
        }
        Located l = findOrDismiss(t, options_.find_timeout);
        if (!l.match.found) failLocate(s, t, l, options_.find_timeout, "not found");
        if (frame.empty()) frame = l.frame;
        return l.match.target;
    };
    Frame before;
    Point a = resolve(from, before);
    Point b = resolve(to, before);
    s.input = a;
    s.method = "pointer";
    s.params_json = nlohmann::json{{"to", {b.x, b.y}}, {"duration", duration}}.dump();
    double a0 = monotonicSeconds();
    moveExactly(a);
    dragPointer(device_, a, b, duration, cancel());
    finishAction(s, before, a0);
    commit(s);
}

int64_t Session::screenshot(const std::string& path, Frame* out) {
    StepRecord s = newStep("screenshot", nullptr);
    s.target = path;
    Frame f = device_.capture();
    if (!path.empty() && !cv::imwrite(path, f.bgr))
        throw std::runtime_error("screenshot: cannot write \"" + path + "\"");
    int64_t id = log_ ? log_->addFrame(run_id_, f) : 0;
    if (id) s.frame_after = id;
    commit(s);
    if (out) *out = std::move(f);
    return id;
}

void Session::sleep(double seconds) {
    if (seconds < 0) throw std::invalid_argument("sleep: expected seconds >= 0, got " + fixed(seconds));
    cancel().sleep(seconds);
}

std::shared_ptr<Process> Session::launch(const std::vector<std::string>& argv) {
    StepRecord s = newStep("launch", nullptr);
    nlohmann::json args = argv;
    s.target = args.dump();
    std::shared_ptr<Process> p = Process::spawn(argv, {});
    s.params_json = nlohmann::json{{"pid", p->pid()}}.dump();
    s.method = "process";
    commit(s);
    processes_.push_back(p);
    return p;
}

StepRecord Session::beginStep(const std::string& action, const std::string& target) {
    StepRecord s = newStep(action, nullptr);
    s.target = target;
    return s;
}

int64_t Session::commitStep(StepRecord& s) { return commit(s); }

int64_t Session::recordFrame(const Frame& f) { return saveFrame(f); }

StabilityOptions Session::stability() const {
    StabilityOptions o;
    o.tolerance = options_.change_tolerance;
    o.noise_ratio = options_.noise_ratio;
    o.effect_timeout = options_.effect_timeout;
    o.settle_interval = options_.settle_interval;
    o.settle_timeout = options_.settle_timeout;
    o.poll_interval = options_.poll_interval;
    o.cancel = options_.cancel.get();
    return o;
}

Settle Session::waitSettled(const Frame& before) {
    return waitEffectAndSettle([this] { return device_.capture(); }, before, stability());
}

Settle Session::waitChange(std::optional<Rect> region, double threshold, double timeout) {
    if (timeout < 0) timeout = options_.find_timeout;
    StepRecord s = newStep("wait_change", nullptr);
    StabilityOptions o = stability();
    o.region = region;
    s.target = region ? region->str() : "screen";
    s.method = "diff";
    s.threshold = threshold;
    Frame before = device_.capture();
    Settle st = eacu::waitChange([this] { return device_.capture(); }, before, threshold, timeout, o);
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    s.params_json = nlohmann::json{{"changed", st.changed}, {"settled", st.settled}, {"frames", st.frames},
                                   {"timeout", timeout}}.dump();
    if (auto id = saveFrame(before)) s.frame_before = id;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    if (!st.changed) {
        s.status = "failed";
        s.error = "wait_change " + s.target + ": no change above " + fixed(threshold, 4) + " within " +
                  fixed(timeout, 1) + " s: the largest change was " + fixed(st.change_ratio, 4);
        int64_t id = commit(s);
        throw StepError(failure::kNoEffect, s.error, id, s.frame_after.value_or(0));
    }
    commit(s);
    return st;
}

Settle Session::waitStable(double timeout) {
    if (timeout < 0) timeout = options_.settle_timeout;
    StepRecord s = newStep("wait_stable", nullptr);
    s.target = "screen";
    s.method = "diff";
    Settle st = eacu::waitStable([this] { return device_.capture(); }, timeout, stability());
    s.change_ratio = st.change_ratio;
    s.settle_ms = st.ms;
    if (auto id = saveFrame(st.frame)) s.frame_after = id;
    if (!st.settled) {
        s.status = "failed";
        s.error = "wait_stable: the screen kept changing for " + fixed(timeout, 1) + " s (largest change " +
                  fixed(st.change_ratio, 4) + ")";
        int64_t id = commit(s);
        throw StepError(failure::kFailed, s.error, id, s.frame_after.value_or(0));
    }
    commit(s);
    return st;
}

std::string Session::handleBlockers(const std::string& context) { return handleBlockersFor(context, nullptr, nullptr); }

std::string Session::handleBlockersFor(const std::string& context, const TargetSpec* sought, Located* found) {
    if (blockers_.empty() || in_blocker_) return "";
    for (Blocker& b : blockers_.list()) {
        if (b.max_handled > 0 && b.handled >= b.max_handled) continue;
        Located l = find(b.target, 0, true);
        if (!l.match.found) continue;
        // The sought target may have appeared since it was last looked for (a dialog that is
        // both the awaited screen and a registered blocker): then there is nothing to dismiss.
        if (sought && found) {
            *found = find(*sought, 0, true);
            if (found->match.found) return "";
        }
        // Found: handle it with the other blockers switched off (a handler's own taps must not
        // recurse into blocker handling).
        in_blocker_ = true;
        StepRecord s = newStep("blocker", &b.target);
        s.target = b.name;
        s.method = l.match.method;
        s.score = l.match.score;
        s.threshold = l.match.threshold;
        s.box = l.match.box;
        s.locate_ms = l.match.ms;
        std::string how = b.handler ? "handler" : b.dismiss ? "tap " + describeTarget(*b.dismiss)
                                                           : "key " + (b.key.empty() ? std::string("Escape") : b.key);
        s.params_json = nlohmann::json{{"kind", b.kind}, {"while_looking_for", context}, {"dismiss", how},
                                       {"handled_before", b.handled}}.dump();
        if (auto id = saveFrame(l.frame)) s.frame_before = id;
        commit(s);
        try {
            if (b.handler) b.handler(l.match);
            else if (b.dismiss) tap(*b.dismiss);
            else key(b.key.empty() ? "Escape" : b.key);
        } catch (...) {
            in_blocker_ = false;
            throw;
        }
        in_blocker_ = false;
        ++b.handled;
        return b.name;
    }
    return "";
}

}  // namespace eacu

// Session: the input verbs (tap, input, key, scroll, drag): a target resolved, then the ActionExecutor.
#include "step/Session.h"

#include <nlohmann/json.hpp>

#include "base/Format.h"
#include "step/ActionExecutor.h"

namespace eacu {

namespace {

std::string inputHexId(uint64_t id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
    return buf;
}

std::string inputWindowLabel(const WindowInfo& w) { return "\"" + w.title + "\" (" + w.cls + ")"; }

}  // namespace

void Session::failStep(StepRecord& s, const char* code, const std::string& msg, const nlohmann::json& params,
                       const Frame* seen) {
    int64_t frame = seen ? saveFrame(*seen) : 0;
    if (frame) s.frame_before = frame;
    nlohmann::json p = s.params_json.empty() ? nlohmann::json::object() : nlohmann::json::parse(s.params_json);
    for (auto it = params.begin(); it != params.end(); ++it) p[it.key()] = it.value();
    s.params_json = p.dump();
    s.status = "failed";
    s.error = msg;
    int64_t id = commit(s);
    throw StepError(code, msg, id, frame, s.target);
}

WindowInfo Session::prepareWindow(StepRecord& s, const TargetSpec& t, nlohmann::json& params) {
    const uint64_t id = *t.window;
    std::optional<WindowInfo> w;
    try {
        w = device_.windows().info(id);
        if (w && t.raise && (!w->focused || w->minimized)) {
            *w = device_.windows().focus(id);
            params["raised"] = true;
        }
    } catch (const DeviceError& e) {
        failStep(s, failure::kDevice, s.action + " " + describeTarget(t) + ": " + e.what(), params);
    }
    if (!w) failStep(s, failure::kDevice, s.action + " " + describeTarget(t) + ": window " + inputHexId(id) + " is gone", params);
    if (w->minimized)
        failStep(s, failure::kCovered, s.action + " " + describeTarget(t) + ": window " + inputHexId(id) + " " +
                                           inputWindowLabel(*w) + " is minimized; pass raise = true to restore it",
                 params);
    return *w;
}

void Session::checkUncovered(StepRecord& s, const TargetSpec& t, const WindowInfo& w, Point p,
                             const nlohmann::json& params, const Frame& seen) {
    std::optional<WindowInfo> top = device_.windows().windowAt(p);
    if (top && top->id == w.id) return;
    std::string at = "(" + std::to_string(p.x) + "," + std::to_string(p.y) + ")";
    std::string msg = s.action + " " + describeTarget(t) + ": ";
    if (!top)
        msg += "window " + inputHexId(w.id) + " " + inputWindowLabel(w) + " does not show at " + at +
               " (the point is outside it)";
    else
        msg += "covered by window " + inputHexId(top->id) + " " + inputWindowLabel(*top) + " at " + at +
               "; pass raise = true to bring " + inputWindowLabel(w) + " to the front";
    nlohmann::json more = params;
    if (top) more["covered_by"] = {{"id", top->id}, {"title", top->title}, {"class", top->cls}};
    failStep(s, top ? failure::kCovered : failure::kInvalid, msg, more, &seen);
}

// Resolves `t` for an input: finds an image or text target (blockers handled, a stale frame
// looked at again) or maps a point; fails the step `s` when it is not found.
// A window-bound target (t.window): the window is raised first when t.raise, the target is
// looked for in its own pixels, and an input sent through the screen (not as events) is refused
// when another window covers the point.
Session::Located Session::resolveForInput(StepRecord& s, const TargetSpec& t, double timeout, nlohmann::json& params) {
    if (t.window) {
        if (!s.params_json.empty()) {  // the window, raise and focus (newStep)
            const nlohmann::json tag = nlohmann::json::parse(s.params_json);
            for (auto it = tag.begin(); it != tag.end(); ++it) params[it.key()] = it.value();
        }
        WindowInfo w = prepareWindow(s, t, params);
        Located l = resolveOnScreen(s, t, timeout, params);
        if (t.focus) {
            if (l.frame.empty()) {
                Point origin;
                l.frame = captureFor(t, origin);
            }
            if (l.match.method != "point") {  // what was found, for the step when it fails
                s.method = l.match.method;
                s.score = l.match.score;
                s.threshold = l.match.threshold;
                s.box = l.match.box;
                s.locate_ms = l.match.ms;
            }
            s.input = l.match.target;
            checkUncovered(s, t, w, l.match.target, params, l.frame);
        }
        return l;
    }
    return resolveOnScreen(s, t, timeout, params);
}

Session::Located Session::resolveOnScreen(StepRecord& s, const TargetSpec& t, double timeout, nlohmann::json& params) {
    if (t.searched()) {
        Located l = findOrDismiss(t, timeout);
        bool healed = false;
        if (!l.match.found) {
            l = healOrFail(s, t, std::move(l), timeout, &params);
            healed = true;
        }
        bool relocated = false;
        double age = monotonicSeconds() - l.frame.monotonic;
        if (!healed) l = relocateIfStale(t, std::move(l), relocated);
        if (relocated) params["relocated"] = {{"frame_age_ms", age * 1000}};
        if (l.anchor) {
            params["anchor"] = {l.anchor->x, l.anchor->y, l.anchor->w, l.anchor->h};
            params["candidate_source"] = l.source;
        }
        return l;
    }
    if (t.point) {
        Located l;
        l.match.found = true;
        l.match.method = "point";
        l.match.target = pointFor(t);
        l.match.box = {l.match.target.x, l.match.target.y, 1, 1};
        return l;
    }
    throw std::invalid_argument(s.action + ": expected an image, text or point target, got " + describeTarget(t));
}

// The fields of an InputAction that say how its target was found.
Match Session::tap(const TargetSpec& t, const TapOptions& o) {
    auto io = ioBound(o.timeout < 0 ? options_.find_timeout : o.timeout);
    StepRecord s = newStep(o.action, &t);
    executor_.checkLimits(o.action + " " + s.target);
    nlohmann::json params = nlohmann::json::object();
    double timeout = o.timeout < 0 ? options_.find_timeout : o.timeout;
    Located l = resolveForInput(s, t, timeout, params);
    InputAction a;
    a.idx = s.idx;  // the executor writes the step
    a.action = o.action;
    a.target = s.target;
    a.at = l.match.target;
    a.foundBy(l.match);
    a.button = o.button;
    a.count = o.count;
    a.hold = o.hold;
    a.params = params;
    a.before = std::move(l.frame);
    if (l.element) {
        a.params["a11y"] = {{"role", l.element->role}, {"name", l.element->name}, {"path", l.element->path},
                            {"pid", l.element->pid}};
        a.params["query"] = queryJson(*t.a11y);
    }
    if (t.a11y && !t.a11y->press.empty() && l.element) {  // the element's own action, not the pointer
        try {
            a.element_action = chooseAction(*l.element, *t.a11y);
        } catch (const std::invalid_argument& e) {
            s.status = "failed";
            s.error = o.action + " " + s.target + ": " + e.what();
            s.method = "a11y";
            int64_t id = commit(s);
            throw StepError(failure::kInvalid, s.error, id, 0, s.target, l.match);
        }
        a.element = l.element;
        a.at.reset();
        a.retry_without_effect = false;
    }
    a.window = t.window.value_or(0);
    a.send_events = t.window && !t.focus;
    executor_.perform(std::move(a));
    return l.match;
}

// Keyboard input to window `window`: focused first (recorded in params), or sent as events.
void Session::keyboardTo(InputAction& a, std::optional<uint64_t> window, bool focus) {
    if (!window) return;
    a.window = *window;
    a.send_events = !focus;
    a.params["window"] = windowTag(*window);
    if (!focus) {
        a.params["focus"] = false;
        return;
    }
    try {
        device_.windows().focus(*window);
        a.params["raised"] = true;
    } catch (const DeviceError& e) {
        throw StepError(failure::kDevice, a.action + ": " + e.what(), 0, 0, a.target);
    }
}

void Session::input(const std::string& text, std::optional<uint64_t> window, bool focus, bool secret, bool check) {
    auto io = ioBound(options_.find_timeout);  // a step's default timeout (an outer step's bound holds too)
    InputAction a;
    a.action = "input";
    a.target = text;
    a.text = text;
    a.secret = secret;
    a.check = check;
    keyboardTo(a, window, focus);
    executor_.perform(std::move(a));
}

void Session::key(const std::string& combo, std::optional<uint64_t> window, bool focus) {
    auto io = ioBound(options_.find_timeout);
    InputAction a;
    a.action = "key";
    a.target = combo;
    a.combo = combo;
    keyboardTo(a, window, focus);
    executor_.perform(std::move(a));
}

bool Session::scroll(int dx, int dy, const std::optional<TargetSpec>& at) {
    auto io = ioBound(options_.find_timeout);
    InputAction a;
    a.action = "scroll";
    a.dx = dx;
    a.dy = dy;
    if (at) {
        StepRecord s = newStep("scroll", &*at);
        executor_.checkLimits("scroll " + s.target);
        Located l = resolveForInput(s, *at, options_.find_timeout, a.params);
        a.idx = s.idx;
        a.target = s.target;
        a.at = l.match.target;
        a.foundBy(l.match);
        a.before = std::move(l.frame);
        a.window = at->window.value_or(0);
        a.send_events = at->window && !at->focus;
    }
    a.method = "wheel";
    // A scroll that moved nothing (the end of the page, nothing scrollable under the pointer)
    // is reported in the step, not retried (seed 000: the caller may scroll the other way).
    return executor_.perform(std::move(a)).settle.changed;
}

void Session::drag(const TargetSpec& from, const TargetSpec& to, double duration) {
    StepRecord s = newStep("drag", &from);
    s.target = describeTarget(from) + " -> " + describeTarget(to);
    executor_.checkLimits("drag " + s.target);
    nlohmann::json params = nlohmann::json::object();
    Located a0 = resolveForInput(s, from, options_.find_timeout, params);
    Located b0 = resolveForInput(s, to, options_.find_timeout, params);
    InputAction a;
    a.idx = s.idx;
    a.action = "drag";
    a.target = s.target;
    a.at = a0.match.target;
    a.to = b0.match.target;
    a.duration = duration;
    a.method = "pointer";
    a.params = params;
    a.before = a0.frame.empty() ? std::move(b0.frame) : std::move(a0.frame);
    // Both ends in one window: its effect is watched there (the ends' windows may differ).
    if (from.window && to.window && *from.window == *to.window) a.window = *from.window;
    else if (from.window || to.window) a.before = Frame{};
    a.send_events = (from.window && !from.focus) || (to.window && !to.focus);
    executor_.perform(std::move(a));
}

}  // namespace eacu

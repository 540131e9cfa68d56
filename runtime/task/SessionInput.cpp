// Session: the input verbs (tap, input, key, scroll, drag): a target resolved, then the ActionExecutor.
#include "task/Session.h"

#include <nlohmann/json.hpp>

#include "task/ActionExecutor.h"

namespace eacu {

// Resolves `t` for an input: finds an image or text target (blockers handled, a stale frame
// looked at again) or maps a point; fails the step `s` when it is not found.
Session::Located Session::resolveForInput(StepRecord& s, const TargetSpec& t, double timeout, nlohmann::json& params) {
    if (t.searched()) {
        Located l = findOrDismiss(t, timeout);
        if (!l.match.found) failLocate(s, t, l, timeout, "not found");
        bool relocated = false;
        double age = monotonicSeconds() - l.frame.monotonic;
        l = relocateIfStale(t, std::move(l), relocated);
        if (relocated) params["relocated"] = {{"frame_age_ms", age * 1000}};
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
static void describeFound(InputAction& a, const Match& m) {
    a.method = m.method;
    if (m.method != "point") {
        a.score = m.score;
        a.threshold = m.threshold;
        a.box = m.box;
        a.locate_ms = m.ms;
    }
}

Match Session::tap(const TargetSpec& t, const TapOptions& o) {
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
    describeFound(a, l.match);
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
    if (t.a11y && !t.a11y->press.empty()) {  // the element's own action, not the pointer
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
    executor_.perform(std::move(a));
    return l.match;
}

void Session::input(const std::string& text) {
    InputAction a;
    a.action = "input";
    a.target = text;
    a.text = text;
    executor_.perform(std::move(a));
}

void Session::key(const std::string& combo) {
    InputAction a;
    a.action = "key";
    a.target = combo;
    a.combo = combo;
    executor_.perform(std::move(a));
}

bool Session::scroll(int dx, int dy, const std::optional<TargetSpec>& at) {
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
        describeFound(a, l.match);
        a.before = std::move(l.frame);
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
    executor_.perform(std::move(a));
}

}  // namespace eacu

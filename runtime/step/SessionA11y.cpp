// Session: targets in the accessibility tree (a11y targets, set_text, snapshots).
#include "step/Session.h"

#include <nlohmann/json.hpp>

namespace eacu {

nlohmann::json queryJson(const A11yQuery& q) {
    nlohmann::json j = nlohmann::json::object();
    if (q.role) j["role"] = *q.role;
    if (q.name) j["name"] = *q.name;
    if (!q.press.empty()) j["press"] = q.press;
    if (q.id) j["resource_id"] = *q.id;
    if (q.value) j["value"] = *q.value;
    return j;
}

A11yQuery queryFromJson(const nlohmann::json& j) {
    A11yQuery q;
    if (j.contains("role") && j["role"].is_string()) q.role = j["role"].get<std::string>();
    if (j.contains("name") && j["name"].is_string()) q.name = j["name"].get<std::string>();
    if (j.contains("press") && j["press"].is_string()) q.press = j["press"].get<std::string>();
    if (j.contains("resource_id") && j["resource_id"].is_string()) q.id = j["resource_id"].get<std::string>();
    if (j.contains("value") && j["value"].is_string()) q.value = j["value"].get<std::string>();
    return q;
}

A11yElement Session::a11ySnapshot(std::optional<uint64_t> window, double deadline) {
    A11yScope scope;
    scope.deadline = deadline < 0 ? monotonicSeconds() + options_.find_timeout : deadline;
    if (window) {
        std::optional<WindowInfo> w = device_.windows().info(*window);
        if (!w) throw DeviceError("a11y: window " + std::to_string(*window) + " is gone");
        if (w->pid <= 0)
            throw DeviceError("a11y: window \"" + w->title + "\" does not say which process owns it (no _NET_WM_PID), "
                              "so its program's tree cannot be told apart");
        scope.pid = w->pid;
    }
    return device_.accessibility().snapshot(scope);
}

// One look for an a11y target in the tree now (of its window's program when it has one); a
// tree not readable yet is tried again until `deadline`, the find's own.
Session::Located Session::lookForA11y(const TargetSpec& t, double deadline) {
    double t0 = monotonicSeconds();
    A11yElement root = a11ySnapshot(t.window, deadline);
    A11yFound f = findElement(root, *t.a11y);
    Located l;
    l.match.method = "a11y";
    l.match.threshold = 1.0;
    if (f.element) {
        const A11yElement& e = *f.element;
        l.match.box = e.bounds;
        Point c = e.bounds.center();
        l.match.target = {c.x + (t.offset ? t.offset->x : 0), c.y + (t.offset ? t.offset->y : 0)};
        l.match.score = f.how == "name" ? 1.0 : 0.9;
        l.match.color_score = l.match.score;
        // Tapping needs a place on the screen; calling its action does not.
        if (e.bounds.empty() && t.a11y->press.empty()) {
            l.note = e.role + " \"" + e.name + "\" is in the tree but not on the screen (no bounds; states: " +
                     [&] {
                         std::string s;
                         for (const auto& st : e.states) s += (s.empty() ? "" : " ") + st;
                         return s;
                     }() + ")";
            l.match.score = 0.5;
        } else {
            l.match.found = true;
        }
        l.element = e;
    } else {
        if (t.window && root.children.empty())
            f.why = "the program of window " + std::to_string(*t.window) + " has no accessible tree (it exports none: " +
                    "use an image or text target)";
        l.note = f.why;
    }
    l.match.ms = (monotonicSeconds() - t0) * 1000.0;
    return l;
}

Match Session::setText(const TargetSpec& t0, const std::string& text, double timeout) {
    if (!t0.a11y) throw std::invalid_argument("set_text: expected an a11y target ({name=...} or {role=...}), got " +
                                              describeTarget(t0));
    TargetSpec t = t0;
    t.a11y->editable = true;
    t.a11y->press = "set_text";  // acted on through the tree: bounds are not needed
    if (timeout < 0) timeout = options_.find_timeout;
    StepRecord s = newStep("set_text", &t);
    executor_.checkLimits("set_text " + s.target);
    Located l = findOrDismiss(t, timeout);
    if (!l.match.found) failLocate(s, t, l, timeout, "not found");
    InputAction a;
    a.idx = s.idx;
    a.action = "set_text";
    a.target = s.target;
    a.text = text;
    a.element = l.element;
    a.method = "a11y";
    a.score = l.match.score;
    a.threshold = l.match.threshold;
    if (!l.match.box.empty()) a.box = l.match.box;
    a.locate_ms = l.match.ms;
    a.retry_without_effect = false;
    a.params = {{"query", queryJson(*t0.a11y)}, {"text", text}};
    executor_.perform(std::move(a));
    return l.match;
}

}  // namespace eacu

// Session: window listing and the recorded window operations (device/Windows.h).
#include <algorithm>

#include <nlohmann/json.hpp>

#include "base/Frame.h"
#include "step/Session.h"

namespace eacu {

namespace {

nlohmann::json windowJson(const WindowInfo& w) {
    return {{"id", w.id},         {"pid", w.pid},       {"title", w.title},         {"class", w.cls},
            {"x", w.x},           {"y", w.y},           {"w", w.w},                 {"h", w.h},
            {"focused", w.focused}, {"minimized", w.minimized}, {"maximized", w.maximized}};
}

}  // namespace

std::vector<WindowInfo> Session::windows() { return device_.windows().list(); }

std::optional<WindowInfo> Session::frontmost() { return device_.windows().frontmost(); }

std::optional<WindowInfo> Session::window(uint64_t id) { return device_.windows().info(id); }

WindowInfo Session::windowOp(const std::string& op, uint64_t id, int a, int b, double timeout, int idx) {
    static const char* kOps[] = {"focus", "minimize", "maximize", "restore", "close", "move", "resize"};
    if (std::find(std::begin(kOps), std::end(kOps), op) == std::end(kOps))
        throw StepError(failure::kInvalid, "window: expected an operation focus, minimize, maximize, restore, "
                                           "close, move or resize, got \"" + op + "\"");
    Windows* wsp = nullptr;
    std::optional<WindowInfo> before;
    try {
        wsp = &device_.windows();
        before = wsp->info(id);
    } catch (const DeviceError& e) {
        throw StepError(failure::kDevice, std::string("window ") + op + ": " + e.what());
    }
    Windows& ws = *wsp;
    std::string label = before ? "\"" + before->title + "\" (" + before->cls + ")" : "window " + std::to_string(id);
    try {
        limits_.beforeAction("window " + op + " " + label);
    } catch (const LimitExceeded& e) {
        throw StepError(limits_.timeUsedUp() ? failure::kTimeout : failure::kLimit, e.what());
    }
    StepRecord s = beginStep("window", label, idx);
    s.method = "window";
    nlohmann::json params{{"op", op}, {"id", id}};
    if (before) params.update({{"title", before->title}, {"class", before->cls}});
    if (op == "move") params.update({{"x", a}, {"y", b}});
    if (op == "resize") params.update({{"w", a}, {"h", b}});
    const double t0 = monotonicSeconds();
    try {
        if (!before) throw DeviceError("window " + std::to_string(id) + " is gone");
        WindowInfo after = *before;
        if (op == "focus") after = ws.focus(id, timeout);
        else if (op == "minimize") after = ws.minimize(id, timeout);
        else if (op == "maximize") after = ws.maximize(id, timeout);
        else if (op == "restore") after = ws.restore(id, timeout);
        else if (op == "close") ws.close(id, timeout);
        else if (op == "move") after = ws.move(id, a, b, timeout);
        else after = ws.resize(id, a, b, timeout);
        s.action_ms = (monotonicSeconds() - t0) * 1000;
        if (op != "close") params["result"] = windowJson(after);
        s.box = Rect{after.x, after.y, after.w, after.h};
        s.params_json = params.dump();
        commit(s);
        return after;
    } catch (const DeviceError& e) {
        s.action_ms = (monotonicSeconds() - t0) * 1000;
        s.status = "failed";
        s.error = std::string("window ") + op + ": " + e.what();
        s.params_json = params.dump();
        int64_t sid = commit(s);
        throw StepError(failure::kDevice, s.error, sid, 0, label);
    }
}

}  // namespace eacu

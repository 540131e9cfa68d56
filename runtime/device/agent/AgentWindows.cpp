#include "device/agent/AgentWindows.h"

#include "device/PeerJson.h"

#include <thread>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "device/Device.h"
#include "device/agent/AgentDevice.h"
#include "device/agent/AgentKeys.h"

namespace eacu {

namespace {

const std::string kWindowsWho = "agent windows";

WindowInfo fromJson(const nlohmann::json& j) {
    WindowInfo w;
    w.id = uint64_t(peerInt(j, "id", kWindowsWho, uint64_t(0)));
    w.pid = int(peerInt(j, "pid", kWindowsWho, 0));
    w.title = peerString(j, "title", kWindowsWho, "");
    w.cls = peerString(j, "cls", kWindowsWho, "");
    w.instance = peerString(j, "instance", kWindowsWho, "");
    w.x = int(peerInt(j, "x", kWindowsWho, 0));
    w.y = int(peerInt(j, "y", kWindowsWho, 0));
    w.w = int(peerInt(j, "w", kWindowsWho, 0));
    w.h = int(peerInt(j, "h", kWindowsWho, 0));
    w.focused = peerBool(j, "focused", kWindowsWho, false);
    w.minimized = peerBool(j, "minimized", kWindowsWho, false);
    w.maximized = peerBool(j, "maximized", kWindowsWho, false);
    return w;
}

std::string label(const WindowInfo& i) {
    return "window " + std::to_string(i.id) + " \"" + i.title + "\" (" + i.cls + ")";
}

std::string state(const WindowInfo& i) {
    return "at " + std::to_string(i.x) + "," + std::to_string(i.y) + " " + std::to_string(i.w) + "x" +
           std::to_string(i.h) + (i.focused ? ", focused" : ", not focused") + (i.minimized ? ", minimized" : "") +
           (i.maximized ? ", maximized" : "");
}

}  // namespace

std::vector<WindowInfo> AgentWindows::list() {
    std::vector<WindowInfo> out;
    AgentReply r = device_.connection().call({{"op", "windows"}});  // kept: the loop reads into it
    for (const auto& j : peerArray(r.header, "windows", kWindowsWho)) out.push_back(fromJson(j));
    return out;
}

std::optional<WindowInfo> AgentWindows::info(uint64_t id) {
    auto h = device_.connection().call({{"op", "window"}, {"action", "info"}, {"window", id}}).header;
    if (!h.contains("window") || h["window"].is_null()) return std::nullopt;
    return fromJson(h["window"]);
}

std::optional<WindowInfo> AgentWindows::frontmost() {
    for (const auto& w : list())
        if (w.focused) return w;
    return std::nullopt;
}

WindowInfo AgentWindows::act(uint64_t id, const char* action, double timeout,
                             const std::function<bool(const WindowInfo&)>& ok, const std::string& expected,
                             nlohmann::json extra) {
    extra["op"] = "window";
    extra["action"] = action;
    extra["window"] = id;
    auto h = device_.connection().call(extra).header;
    WindowInfo last = fromJson(h.at("window"));
    const double deadline = monotonicSeconds() + timeout;
    double step = 0.005;
    while (!ok(last)) {
        if (monotonicSeconds() >= deadline)
            throw DeviceError(label(last) + ": expected " + expected + " within " + std::to_string(timeout).substr(0, 4) +
                              " s, got " + state(last));
        std::this_thread::sleep_for(std::chrono::duration<double>(step));
        step = std::min(step * 2, 0.05);
        auto now = info(id);
        if (!now) throw DeviceError("window " + std::to_string(id) + " is gone");
        last = *now;
    }
    return last;
}

WindowInfo AgentWindows::focus(uint64_t id, double timeout) {
    return act(id, "focus", timeout, [](const WindowInfo& w) { return w.focused && !w.minimized; },
               "focused and not minimized");
}

WindowInfo AgentWindows::minimize(uint64_t id, double timeout) {
    return act(id, "minimize", timeout, [](const WindowInfo& w) { return w.minimized; }, "minimized");
}

WindowInfo AgentWindows::maximize(uint64_t id, double timeout) {
    return act(id, "maximize", timeout, [](const WindowInfo& w) { return w.maximized && !w.minimized; }, "maximized");
}

WindowInfo AgentWindows::restore(uint64_t id, double timeout) {
    return act(id, "restore", timeout, [](const WindowInfo& w) { return !w.minimized && !w.maximized; },
               "neither minimized nor maximized");
}

void AgentWindows::close(uint64_t id, double timeout) {
    device_.connection().call({{"op", "window"}, {"action", "close"}, {"window", id}});
    const double deadline = monotonicSeconds() + timeout;
    std::optional<WindowInfo> now;
    while ((now = info(id))) {
        if (monotonicSeconds() >= deadline)
            throw DeviceError(label(*now) + ": expected it to close within " + std::to_string(timeout).substr(0, 4) +
                              " s (WM_CLOSE was posted; the program may be asking something), it is still there");
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
}

WindowInfo AgentWindows::move(uint64_t id, int x, int y, double timeout) {
    return act(id, "move", timeout, [&](const WindowInfo& w) { return w.x == x && w.y == y; },
               "its client area at " + std::to_string(x) + "," + std::to_string(y), {{"x", x}, {"y", y}});
}

WindowInfo AgentWindows::resize(uint64_t id, int w, int h, double timeout) {
    if (w <= 0 || h <= 0)
        throw DeviceError("resize window " + std::to_string(id) + ": expected a positive size, got " + std::to_string(w) +
                          "x" + std::to_string(h));
    return act(id, "resize", timeout, [&](const WindowInfo& n) { return n.w == w && n.h == h; },
               "a client area of " + std::to_string(w) + "x" + std::to_string(h), {{"w", w}, {"h", h}});
}

WindowCapture AgentWindows::capture(uint64_t id) { return device_.grab(id); }

std::optional<WindowInfo> AgentWindows::windowAt(Point p) {
    auto h = device_.connection().call({{"op", "window_at"}, {"x", p.x}, {"y", p.y}}).header;
    if (!h.contains("window") || h["window"].is_null()) return std::nullopt;
    return fromJson(h["window"]);
}

void AgentWindows::sendClick(uint64_t id, Point p, MouseButton button, int count) {
    device_.connection().call(
        {{"op", "send_input"}, {"kind", "click"}, {"window", id}, {"x", p.x}, {"y", p.y}, {"button", buttonNumber(button)},
         {"count", count}});
}

void AgentWindows::sendKeys(uint64_t id, const std::vector<Key>& combo) {
    std::vector<int> vks;
    for (const auto& k : combo) {
        nlohmann::json f;
        try {
            f = agentKeyFields(k);
        } catch (const std::invalid_argument& e) {
            throw DeviceError(std::string("cannot send the key to window ") + std::to_string(id) + ": " + e.what());
        }
        if (!f.contains("vk"))
            throw DeviceError("cannot send the key " + describeKey(k) + " to window " + std::to_string(id) +
                              " as a message: only named keys (send_text types characters)");
        vks.push_back(f["vk"].get<int>());
    }
    for (int vk : vks) device_.connection().call({{"op", "send_input"}, {"kind", "key"}, {"window", id}, {"vk", vk}, {"down", true}});
    for (auto it = vks.rbegin(); it != vks.rend(); ++it)
        device_.connection().call({{"op", "send_input"}, {"kind", "key"}, {"window", id}, {"vk", *it}, {"down", false}});
}

void AgentWindows::sendText(uint64_t id, const std::string& text) {
    decodeUtf8(text);
    device_.connection().call({{"op", "send_input"}, {"kind", "text"}, {"window", id}}, text);
}

}  // namespace eacu

#include "device/agent/AgentDevice.h"

#include "device/PeerJson.h"

#include "base/Clock.h"
#include "base/Utf8.h"
#include "device/agent/AgentAccessibility.h"
#include "device/agent/AgentKeys.h"
#include "device/agent/AgentWindows.h"
#include "device/agent/Rle24.h"

namespace eacu {

namespace {
constexpr double kCaptureTimeout = 20;
}

std::unique_ptr<AgentDevice> AgentDevice::connect(const std::string& host, int port, const std::string& token,
                                                  double timeout) {
    std::unique_ptr<AgentDevice> d(new AgentDevice);
    d->conn_ = std::make_unique<AgentConnection>(host, port, token, timeout);
    // Input on a connection of its own: a person's click in the studio waited up to 250 ms
    // behind the screen's captures (40-180 ms each) and tree reads on the one connection.
    d->input_ = std::make_unique<AgentConnection>(host, port, token, timeout);
    d->pointer_ = std::make_unique<AgentConnection>(host, port, token, timeout);
    d->host_ = host;
    d->port_ = port;
    d->token_ = token;
    const std::string who = "agent " + d->conn_->address();
    d->os_ = peerString(d->conn_->hello(), "os", who, std::string("?"));
    d->uia_ = peerBool(d->conn_->hello(), "uia", who, false);
    auto s = d->conn_->call({{"op", "screen"}}).header;
    d->size_ = Size{int(peerInt(s, "w", who, 0)), int(peerInt(s, "h", who, 0))};
    d->scale_ = peerNumber(s, "scale", who, 1.0);
    d->dpi_ = int(peerInt(s, "dpi", who, 96));
    if (d->size_.w <= 0 || d->size_.h <= 0)
        throw DeviceError("agent " + d->conn_->address() + ": screen: expected a positive size, got " + s.dump());
    d->windows_ = std::make_unique<AgentWindows>(*d);
    d->a11y_ = std::make_unique<AgentAccessibility>(*d->conn_);
    return d;
}

AgentDevice::~AgentDevice() = default;

std::string AgentDevice::describe() const {
    return "agent " + conn_->address() + " " + os_ + " " + std::to_string(size_.w) + "x" + std::to_string(size_.h) +
           " dpi " + std::to_string(dpi_);
}

WindowCapture AgentDevice::grab(uint64_t window) { return grabOn(*conn_, base_, window, kCaptureTimeout); }

WindowCapture AgentDevice::grabOn(AgentConnection& conn, CaptureBase& base, uint64_t window, double timeout) {
    nlohmann::json req{{"op", "capture"}, {"base", window == base.target ? base.seq : 0}};
    if (window) req["window"] = window;
    AgentReply r = conn.call(req, {}, timeout);
    const auto& h = r.header;
    const std::string who = "agent " + conn.address() + ": capture";
    int w = int(peerInt(h, "w", who, 0)), hh = int(peerInt(h, "h", who, 0));
    auto rect = peerInts(h, "rect", who, std::vector<int>{});
    auto origin = peerInts(h, "origin", who, std::vector<int>{0, 0});
    if (w <= 0 || hh <= 0 || w > 32768 || hh > 32768 || rect.size() != 4 || origin.size() != 2 ||
        peerString(h, "encoding", who, "") != "rle24")
        throw DeviceError("agent " + conn.address() + ": capture: expected w, h, rect and rle24, got " + h.dump());
    bool full = peerBool(h, "full", who, true);
    if (full) base.last = cv::Mat(hh, w, CV_8UC3, cv::Scalar(0, 0, 0));
    else if (base.last.cols != w || base.last.rows != hh || window != base.target)
        throw DeviceError("agent " + conn.address() + ": capture: a changed region of a frame this device does not have");
    base.seq = 0;  // until the region is applied
    base.target = window;
    try {
        decodeRle24(r.payload, base.last, Rect{rect[0], rect[1], rect[2], rect[3]});
    } catch (const std::exception& e) {
        throw DeviceError("agent " + conn.address() + ": capture: " + e.what());
    }
    base.seq = unsigned(peerInt(h, "seq", who, 0u));
    base.bytes = r.payload.size();
    WindowCapture c;
    c.frame.bgr = base.last.clone();
    c.frame.scale = scale_;
    c.frame.timestamp = wallSeconds();
    c.frame.monotonic = monotonicSeconds();
    c.origin = Point{origin[0], origin[1]};
    return c;
}

Frame AgentDevice::capture() {
    Frame f = grab(0).frame;
    size_ = Size{f.width(), f.height()};
    return f;
}

Frame AgentDevice::captureLive() {
    constexpr double kLiveTimeout = 2;
    std::lock_guard<std::mutex> lock(live_mu_);
    try {
        if (!live_conn_) live_conn_ = std::make_unique<AgentConnection>(host_, port_, token_, kLiveTimeout);
        return grabOn(*live_conn_, live_base_, 0, kLiveTimeout).frame;
    } catch (const DeviceError&) {
        live_conn_.reset();
        live_base_ = CaptureBase{};
        throw;
    }
}

void AgentDevice::move(Point p) { input_->call({{"op", "move"}, {"x", p.x}, {"y", p.y}}); }

Point AgentDevice::cursor() const {
    auto h = pointer_->call({{"op", "cursor"}}).header;
    const std::string who = "agent " + conn_->address() + ": cursor";
    return Point{int(peerInt(h, "x", who, 0)), int(peerInt(h, "y", who, 0))};
}

void AgentDevice::click(MouseButton button, int count) {
    input_->call({{"op", "click"}, {"button", buttonNumber(button)}, {"count", count}});
}

void AgentDevice::mouseButton(MouseButton b, bool down) {
    input_->call({{"op", "button"}, {"button", buttonNumber(b)}, {"down", down}});
}

void AgentDevice::press(MouseButton button) { mouseButton(button, true); }
void AgentDevice::release(MouseButton button) { mouseButton(button, false); }

void AgentDevice::scroll(int dx, int dy) { input_->call({{"op", "scroll"}, {"dx", dx}, {"dy", dy}}); }

void AgentDevice::typeText(const std::string& utf8) {
    decodeUtf8(utf8);  // throws std::invalid_argument on invalid UTF-8
    input_->call({{"op", "text"}}, utf8, 10 + double(utf8.size()) / 100);
}

void AgentDevice::key(const Key& k, bool down) {
    nlohmann::json req = agentKeyFields(k);
    req["op"] = "key";
    req["down"] = down;
    input_->call(req);
}

void AgentDevice::checkKeys(const std::vector<Key>& keys) const {
    for (const auto& k : keys) agentKeyFields(k);
}

void AgentDevice::keyCombo(const std::vector<Key>& keys) {
    checkKeys(keys);
    for (const auto& k : keys) key(k, true);
    for (auto it = keys.rbegin(); it != keys.rend(); ++it) key(*it, false);
}

void AgentDevice::keyDown(const Key& k) {
    agentKeyFields(k);
    key(k, true);
}

void AgentDevice::keyUp(const Key& k) {
    agentKeyFields(k);
    key(k, false);
}

void AgentDevice::sync() { input_->call({{"op", "sync"}}); }

Windows& AgentDevice::windows() { return *windows_; }
Accessibility& AgentDevice::accessibility() { return *a11y_; }

std::string AgentDevice::clipboardText() { return conn_->call({{"op", "clipboard_get"}}).payload; }

void AgentDevice::setClipboardText(const std::string& utf8) {
    decodeUtf8(utf8);
    conn_->call({{"op", "clipboard_set"}}, utf8);
}

int AgentDevice::launch(const std::string& command_line) {
    return int(peerInt(conn_->call({{"op", "launch"}}, command_line).header, "pid", "agent " + conn_->address(), 0));
}

int AgentDevice::wait(int pid, double timeout) {
    // In slices of at most a second: the agent holds its state requests (captures, the tree) of
    // every connection while it waits (docs/agent-protocol.md).
    const double deadline = monotonicSeconds() + timeout;
    for (;;) {
        double slice = std::min(1.0, std::max(0.0, deadline - monotonicSeconds()));
        auto h = conn_->call({{"op", "wait"}, {"pid", pid}, {"timeout", slice}}, {}, slice + 10).header;
        if (peerBool(h, "exited", "agent " + conn_->address(), false)) return int(peerInt(h, "code", "agent " + conn_->address(), 0));
        if (monotonicSeconds() >= deadline) return -1;
    }
}

}  // namespace eacu

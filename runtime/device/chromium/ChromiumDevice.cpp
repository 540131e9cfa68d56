#include "device/chromium/ChromiumDevice.h"

#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include "base/Base64.h"
#include "base/Clock.h"
#include "base/ImageDecode.h"
#include "base/IoDeadline.h"
#include "base/Utf8.h"
#include "device/chromium/CdpAccessibility.h"
#include "device/chromium/CdpConnection.h"
#include "device/DeviceWait.h"
#include "device/chromium/ChromiumBrowser.h"
#include "device/chromium/WebSocketTransport.h"
#include "device/PeerJson.h"
#include "process/Process.h"

namespace fs = std::filesystem;

namespace eacu {

namespace {

std::string fmt(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

const char* buttonName(MouseButton b) {
    switch (b) {
    case MouseButton::Left: return "left";
    case MouseButton::Middle: return "middle";
    case MouseButton::Right: return "right";
    }
    return "left";
}

int buttonBit(MouseButton b) {
    switch (b) {
    case MouseButton::Left: return 1;
    case MouseButton::Right: return 2;
    case MouseButton::Middle: return 4;
    }
    return 1;
}

}  // namespace

std::unique_ptr<ChromiumDevice> ChromiumDevice::launch(const PageMetrics& metrics, double timeout,
                                                       const std::string& chromium) {
    const double deadline = monotonicSeconds() + timeout;
    std::unique_ptr<ChromiumDevice> d(new ChromiumDevice());
    d->metrics_ = metrics;
    d->browser_ = ChromiumBrowser::start(metrics.viewport, timeout, chromium);
    d->peer_ = d->browser_->peer();
    d->endpoint_ = d->browser_->endpoint();
    d->cdp_ = std::make_unique<CdpConnection>(openWebSocket(d->browser_->webSocketUrl(), timeout), d->peer_);
    d->openPage(std::max(1.0, deadline - monotonicSeconds()));
    return d;
}

std::unique_ptr<ChromiumDevice> ChromiumDevice::attach(const std::string& http_url, const PageMetrics& metrics,
                                                       double timeout) {
    std::string endpoint = http_url;
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    std::string ws = browserWebSocketUrl(endpoint, timeout);
    auto d = over(openWebSocket(ws, timeout), "chromium at " + endpoint, metrics, std::max(timeout, 10.0));
    d->endpoint_ = endpoint;
    return d;
}

std::unique_ptr<ChromiumDevice> ChromiumDevice::over(std::unique_ptr<CdpTransport> transport, const std::string& peer,
                                                     const PageMetrics& metrics, double timeout) {
    std::unique_ptr<ChromiumDevice> d(new ChromiumDevice());
    d->metrics_ = metrics;
    d->peer_ = peer;
    d->cdp_ = std::make_unique<CdpConnection>(std::move(transport), d->peer_);
    d->openPage(timeout);
    return d;
}

void ChromiumDevice::openPage(double timeout) {
    cdp_->onEvent([this](const std::string& method, const nlohmann::json& params, const std::string& session) {
        if (method == "Target.detachedFromTarget" || method == "Target.targetDestroyed") {
            if (peerString(params, "sessionId", peer_) == session_ || peerString(params, "targetId", peer_) == target_) {
                {
                    std::lock_guard<std::mutex> lk(mu_);
                    if (page_gone_.empty()) page_gone_ = "its page was closed";
                    cv_.notify_all();
                }
                cdp_->failSession(session_, "its page was closed");
            }
            return;
        }
        if (session != session_) return;
        if (method == "Page.screencastFrame") {
            // Acknowledged at once (Chromium drops the frames drawn while two wait for their
            // ack, and sends none again: a late ack could leave the last change unsent).
            auto data = std::make_shared<const std::string>(peerString(params, "data", peer_));
            const int64_t id = peerInt(params, "sessionId", peer_, -1);
            if (id < 0) return;
            {
                std::lock_guard<std::mutex> lk(mu_);
                if (closing_) return;
                cast_b64_ = std::move(data);
                ++cast_seq_;
                cast_at_ = wallSeconds();
            }
            cdp_->post("Page.screencastFrameAck", {{"sessionId", id}}, session_);
        } else if (method == "Page.frameNavigated") {
            // The main frame committed a navigation: frames from before it are the last page's.
            const nlohmann::json& frame = peerObject(params, "frame", peer_);
            if (frame.is_object() && !frame.contains("parentId")) {
                std::lock_guard<std::mutex> lk(mu_);
                commit_seq_ = cast_seq_;
            }
        } else if (method == "Page.loadEventFired") {
            std::lock_guard<std::mutex> lk(mu_);
            ++loads_;
            cv_.notify_all();
        } else if (method == "Inspector.targetCrashed") {
            {
                std::lock_guard<std::mutex> lk(mu_);
                page_gone_ = "its page crashed";
                cv_.notify_all();
            }
            cdp_->failSession(session_, "its page crashed");
        } else if (method == "Fetch.requestPaused") {
            const std::string url = peerString(peerObject(params, "request", peer_), "url", peer_);
            const std::string id = peerString(params, "requestId", peer_);
            Policy policy;
            {
                std::lock_guard<std::mutex> lk(mu_);
                policy = policy_;
            }
            std::string why = policy ? policy(url) : "";
            if (why.empty()) {
                cdp_->post("Fetch.continueRequest", {{"requestId", id}}, session_);
                return;
            }
            cdp_->post("Fetch.failRequest", {{"requestId", id}, {"errorReason", "BlockedByClient"}}, session_);
            std::lock_guard<std::mutex> lk(mu_);
            refusals_.push_back(url + ": " + why);
        }
    });
    cdp_->call("Target.setDiscoverTargets", {{"discover", true}}, "", timeout);
    target_ = peerString(cdp_->call("Target.createTarget",
                                    {{"url", "about:blank"}, {"newWindow", true},
                                     {"width", metrics_.viewport.w}, {"height", metrics_.viewport.h}},
                                    "", timeout),
                         "targetId", peer_);
    if (target_.empty()) throw DeviceError(peer_ + ": Target.createTarget gave no targetId");
    session_ = peerString(cdp_->call("Target.attachToTarget", {{"targetId", target_}, {"flatten", true}}, "", timeout),
                          "sessionId", peer_);
    if (session_.empty()) throw DeviceError(peer_ + ": Target.attachToTarget gave no sessionId");
    call("Page.enable", nlohmann::json::object(), timeout);
    call("Emulation.setDeviceMetricsOverride",
         {{"width", metrics_.viewport.w}, {"height", metrics_.viewport.h}, {"deviceScaleFactor", metrics_.scale},
          {"mobile", false}},
         timeout);
    call("Emulation.setFocusEmulationEnabled", {{"enabled", true}}, timeout);
    call("Fetch.enable", {{"patterns", nlohmann::json::array({{{"urlPattern", "*"}, {"resourceType", "Document"},
                                                                {"requestStage", "Request"}}})}},
         timeout);
    call("Page.bringToFront", nlohmann::json::object(), timeout);
    a11y_ = std::make_unique<CdpAccessibility>(*this);
}

Accessibility& ChromiumDevice::accessibility() {
    if (!a11y_) throw DeviceError(peer_ + ": the page is not open");
    return *a11y_;
}

int ChromiumDevice::browserPid() const { return browser_ ? int(browser_->process().pid()) : 0; }

ChromiumDevice::~ChromiumDevice() {
    // The close is waited for even after a stop or a signal cancelled the run: a page whose
    // Target.closeTarget was sent but not answered before the socket closed stays open in the
    // browser (the live screen's frames still unread turn the close into a reset).
    IoDeadlineScope own = IoDeadlineScope::cleanup(5, "the page's close, bound of 5 s");
    bool cast;
    {
        std::lock_guard<std::mutex> lk(mu_);
        closing_ = true;  // frames that still come are not acknowledged
        cast = cast_on_;
    }
    try {
        // Stopped before the page closes, bounded: the page's frames end with it anyway.
        if (cast && cdp_ && cdp_->alive() && !session_.empty())
            cdp_->call("Page.stopScreencast", nlohmann::json::object(), session_, 2);
    } catch (const std::exception&) {
    }
    try {
        if (cdp_ && cdp_->alive() && !target_.empty())
            cdp_->call("Target.closeTarget", {{"targetId", target_}}, "", 5);
    } catch (const std::exception&) {
    }
    if (browser_) {
        try {
            if (cdp_ && cdp_->alive()) cdp_->post("Browser.close", nlohmann::json::object(), "");
        } catch (const std::exception&) {
        }
        browser_->process().wait(5);
    }
    // The event handler reaches the connection through cdp_: its thread is stopped while cdp_
    // still points at it (reset() alone nulls cdp_ first, and an event that came meanwhile,
    // such as the page's Target.targetDestroyed, then locked a null connection's mutex).
    if (cdp_) cdp_->close();
    a11y_.reset();
    cdp_.reset();
    browser_.reset();  // stops what is left of its process group, removes its profile
}

void ChromiumDevice::checkPage() const {
    std::lock_guard<std::mutex> lk(mu_);
    if (!page_gone_.empty()) throw DeviceError(peer_ + ": " + page_gone_);
}

nlohmann::json ChromiumDevice::call(const std::string& method, const nlohmann::json& params, double timeout) {
    checkPage();
    auto gone = [&] {
        return DeviceError(peer_ + " is gone (exit status " + std::to_string(browser_->process().exitStatus().value_or(-1)) +
                           "): " + cdp_->lostReason() + " (" + method + ")");
    };
    if (!cdp_->alive() && browser_ && !browser_->process().running()) throw gone();
    // While the page commits a navigation in another renderer (a cross-site page, or the error
    // page of a refused request), the target answers "Not attached to an active page" and has not
    // run the command: it is sent again until the page is back, within the same timeout.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        try {
            double left = std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count();
            return cdp_->call(method, params, session_, std::max(left, 0.001));
        } catch (const DeviceStalled&) {
            // A page that does not answer is usually one whose script spins (the renderer's main
            // thread never gets to the command): the script is ended, so the next step finds
            // the page answering again. Not waited for (it may not answer either).
            cdp_->post("Runtime.terminateExecution", nlohmann::json::object(), session_);
            throw;
        } catch (const DeviceError& e) {
            if (!cdp_->alive() && browser_ && !browser_->process().wait(0.5).has_value()) throw;
            if (!cdp_->alive() && browser_) throw gone();
            if (!std::strstr(e.what(), "Not attached to an active page") ||
                std::chrono::steady_clock::now() + std::chrono::milliseconds(50) >= deadline)
                throw;
        }
        checkPage();
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait_for(lk, std::chrono::milliseconds(50), [&] { return !page_gone_.empty(); });
    }
}

std::string ChromiumDevice::describe() const {
    std::string size = std::to_string(metrics_.viewport.w) + "x" + std::to_string(metrics_.viewport.h) + "@" +
                       fmt(metrics_.scale);
    return browser_ ? "chromium headless " + size + " (pid " + std::to_string(browser_->process().pid()) + ")"
                    : "cdp " + endpoint_ + " page " + size;
}

Size ChromiumDevice::screenSize() const {
    return {int(std::lround(metrics_.viewport.w * metrics_.scale)),
            int(std::lround(metrics_.viewport.h * metrics_.scale))};
}

Frame ChromiumDevice::capture() { return screenshot("png", 0, 30); }

void ChromiumDevice::startScreencast() {
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (cast_on_ || closing_ || monotonicSeconds() < cast_retry_at_) return;
    }
    const Size size = screenSize();
    try {
        call("Page.startScreencast",
             {{"format", "jpeg"}, {"quality", 80}, {"maxWidth", size.w}, {"maxHeight", size.h}, {"everyNthFrame", 1}},
             2);
        std::lock_guard<std::mutex> lk(mu_);
        cast_on_ = true;
    } catch (const DeviceError&) {
        // A page between two documents may not answer: screenshots until the next try.
        std::lock_guard<std::mutex> lk(mu_);
        cast_retry_at_ = monotonicSeconds() + 1;
    }
}

Device::EncodedLiveFrame ChromiumDevice::liveEncoded() {
    checkPage();
    startScreencast();
    EncodedLiveFrame j;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!cast_b64_ || cast_seq_ <= commit_seq_) return {};
        if (passed_.seq == cast_seq_) return passed_;
        j.base64 = cast_b64_;
        j.seq = cast_seq_;
    }
    const std::string bytes = base64Decode(*j.base64);
    auto jpeg = std::make_shared<const std::vector<unsigned char>>(bytes.begin(), bytes.end());
    const auto size = jpegSize(*jpeg);
    const Size screen = screenSize();
    if (!size || int(size->first) != screen.w || int(size->second) != screen.h) return {};
    j.jpeg = std::move(jpeg);
    std::lock_guard<std::mutex> lk(mu_);
    if (j.seq > passed_.seq) passed_ = j;
    return j;
}

Frame ChromiumDevice::captureLive() {
    checkPage();
    startScreencast();
    std::shared_ptr<const std::string> b64;
    uint64_t seq = 0;
    double at = 0;
    Frame f;
    f.scale = metrics_.scale;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (cast_b64_ && cast_seq_ > commit_seq_) {
            if (cast_seq_ == decoded_seq_ && !decoded_.empty()) {
                f.bgr = decoded_.clone();  // the caller may draw on it
                f.timestamp = cast_at_;
                f.monotonic = monotonicSeconds() - (wallSeconds() - cast_at_);
                return f;
            }
            b64 = cast_b64_;
            seq = cast_seq_;
            at = cast_at_;
        }
    }
    // No frame of this document yet: the page's compositor has drawn nothing new since it
    // committed (or the screencast has not started), so the page is asked.
    if (!b64) return screenshot("jpeg", 80, 2);
    const std::string bytes = base64Decode(*b64);
    cv::Mat bgr;
    try {
        bgr = decodeImage(std::vector<unsigned char>(bytes.begin(), bytes.end()), cv::IMREAD_COLOR);
    } catch (const std::runtime_error& e) {
        throw DeviceError(peer_ + ": Page.screencastFrame gave no image: " + e.what());
    }
    const Size size = screenSize();
    if (bgr.cols != size.w || bgr.rows != size.h) cv::resize(bgr, bgr, cv::Size(size.w, size.h), 0, 0, cv::INTER_LINEAR);
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (seq > decoded_seq_) {
            decoded_ = bgr;
            decoded_seq_ = seq;
        }
    }
    f.bgr = bgr.clone();
    f.timestamp = at;
    f.monotonic = monotonicSeconds() - (wallSeconds() - at);
    return f;
}

Frame ChromiumDevice::screenshot(const char* format, int quality, double timeout) {
    nlohmann::json params{{"format", format}, {"optimizeForSpeed", true}};
    if (quality > 0) params["quality"] = quality;
    nlohmann::json r = call("Page.captureScreenshot", params, timeout);
    std::string bytes = base64Decode(peerString(r, "data", peer_));
    Frame f;
    try {
        f.bgr = decodeImage(std::vector<unsigned char>(bytes.begin(), bytes.end()), cv::IMREAD_COLOR);
    } catch (const std::runtime_error& e) {
        throw DeviceError(peer_ + ": Page.captureScreenshot gave no image: " + e.what());
    }
    f.scale = metrics_.scale;
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    return f;
}

Point ChromiumDevice::cursor() const {
    std::lock_guard<std::mutex> lk(mu_);
    return cursor_;
}

void ChromiumDevice::mouse(const char* type, MouseButton button, int click_count, double dx, double dy) {
    const Point at = cursor();
    nlohmann::json p{{"type", type},
                     {"x", at.x / metrics_.scale},
                     {"y", at.y / metrics_.scale},
                     {"modifiers", modifiers_},
                     {"buttons", buttons_}};
    if (std::string(type) == "mouseWheel") {
        p["deltaX"] = dx;
        p["deltaY"] = dy;
    } else if (std::string(type) != "mouseMoved" || buttons_) {
        p["button"] = buttonName(button);
        p["clickCount"] = click_count;
    }
    call("Input.dispatchMouseEvent", p);
}

void ChromiumDevice::move(Point p) {
    {
        std::lock_guard<std::mutex> lk(mu_);
        cursor_ = p;
    }
    MouseButton held = (buttons_ & 1) ? MouseButton::Left : (buttons_ & 2) ? MouseButton::Right : MouseButton::Middle;
    mouse("mouseMoved", held, 0);
}

void ChromiumDevice::click(MouseButton button, int count) {
    for (int i = 1; i <= std::max(1, count); ++i) {
        buttons_ |= buttonBit(button);
        mouse("mousePressed", button, i);
        buttons_ &= ~buttonBit(button);
        mouse("mouseReleased", button, i);
    }
}

void ChromiumDevice::press(MouseButton button) {
    buttons_ |= buttonBit(button);
    mouse("mousePressed", button, 1);
}

void ChromiumDevice::release(MouseButton button) {
    buttons_ &= ~buttonBit(button);
    mouse("mouseReleased", button, 1);
}

void ChromiumDevice::scroll(int dx, int dy) { mouse("mouseWheel", MouseButton::Left, 0, dx * 100.0, dy * 100.0); }

void ChromiumDevice::key(const char* type, const DomKey& k) {
    nlohmann::json p{{"type", type}, {"key", k.key}, {"code", k.code}, {"windowsVirtualKeyCode", k.vk},
                     {"nativeVirtualKeyCode", k.vk}, {"modifiers", modifiers_}};
    // A key types its text only without Control, Alt and Meta (those make it a shortcut).
    if (std::string(type) == "keyDown" && !(modifiers_ & 7) && !k.text.empty()) {
        p["text"] = k.text;
        p["unmodifiedText"] = k.text;
    } else if (std::string(type) == "keyDown") {
        p["type"] = "rawKeyDown";
    }
    call("Input.dispatchKeyEvent", p);
}

void ChromiumDevice::keyDown(const Key& k) {
    DomKey d = domKeyFor(k, modifiers_ & 8);
    modifiers_ |= d.modifier;
    key("keyDown", d);
}

void ChromiumDevice::keyUp(const Key& k) {
    DomKey d = domKeyFor(k, modifiers_ & 8);
    key("keyUp", d);
    modifiers_ &= ~d.modifier;
}

void ChromiumDevice::checkKeys(const std::vector<Key>& keys) const {
    for (const Key& k : keys) domKeyFor(k);
}

void ChromiumDevice::keyCombo(const std::vector<Key>& keys) {
    std::vector<DomKey> doms;
    int mods = modifiers_;
    for (const Key& k : keys) {  // every key resolved before any is sent
        doms.push_back(domKeyFor(k, mods & 8));
        mods |= doms.back().modifier;
    }
    for (const DomKey& d : doms) {
        modifiers_ |= d.modifier;
        key("keyDown", d);
    }
    for (auto it = doms.rbegin(); it != doms.rend(); ++it) {
        key("keyUp", *it);
        modifiers_ &= ~it->modifier;
    }
}

void ChromiumDevice::typeText(const std::string& utf8) {
    std::u32string cps = decodeUtf8(utf8);  // throws before anything is typed
    std::u32string run;
    auto flush = [&] {
        if (run.empty()) return;
        call("Input.insertText", {{"text", encodeUtf8(run)}});
        run.clear();
    };
    for (size_t i = 0; i < cps.size(); ++i) {
        char32_t c = cps[i];
        if (c == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') continue;
        if (c == '\n' || c == '\r' || c == '\t') {
            flush();
            keyCombo({Key::character(c)});
        } else {
            run.push_back(c);
        }
    }
    flush();
}

void ChromiumDevice::sync() { call("Runtime.evaluate", {{"expression", "0"}}); }

void ChromiumDevice::navigate(const std::string& url, double timeout) {
    int before;
    {
        std::lock_guard<std::mutex> lk(mu_);
        before = loads_;
        if (policy_) {
            std::string why = policy_(url);
            if (!why.empty()) throw DeviceError("navigation to " + url + " refused: " + why);
        }
    }
    nlohmann::json r = call("Page.navigate", {{"url", url}}, timeout);
    if (std::string err = peerString(r, "errorText", peer_); !err.empty())
        throw DeviceError("navigation to " + url + " failed: " + err);
    // A same-document navigation (a #fragment) has no loaderId and fires no load event.
    if (!r.contains("loaderId")) return;
    DeviceWait wait(peer_, "navigation to " + url, timeout);
    std::unique_lock<std::mutex> lk(mu_);
    while (loads_ == before) {
        if (!page_gone_.empty()) throw DeviceError(peer_ + ": " + page_gone_);
        double slice = wait.slice();
        if (slice <= 0) throw wait.expired("the page did not finish loading");
        cv_.wait_for(lk, std::chrono::duration<double>(slice));
    }
}

std::string ChromiumDevice::currentUrl() {
    checkPage();
    nlohmann::json r = cdp_->call("Target.getTargetInfo", {{"targetId", target_}}, "", 10);
    return peerString(peerObject(r, "targetInfo", peer_), "url", peer_);
}

void ChromiumDevice::setPolicy(Policy policy) {
    std::lock_guard<std::mutex> lk(mu_);
    policy_ = std::move(policy);
}

std::vector<std::string> ChromiumDevice::takeRefusals() {
    std::lock_guard<std::mutex> lk(mu_);
    std::vector<std::string> out;
    out.swap(refusals_);
    return out;
}

}  // namespace eacu

// One page of a headless Chromium driven through the Chrome DevTools Protocol: its pixels are the
// screen, its input events the input. No X server is involved.
#pragma once
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "device/Device.h"
#include "device/chromium/CdpKeys.h"
#include "device/chromium/CdpTransport.h"
#include "device/Navigator.h"
#include "geometry/Rect.h"

namespace eacu {

class CdpConnection;
class ChromiumBrowser;

/// How the page looks: its viewport in CSS (logical) pixels and its device scale factor, so
/// frames are viewport × scale physical pixels.
struct PageMetrics {
    Size viewport{1280, 800};
    double scale = 1.0;
};

/// A Device on one page target of a Chromium. launch() starts Debian's `chromium --headless=new`
/// (ChromiumBrowser: a private profile directory, removed at the end, --remote-debugging-port=0);
/// attach() joins a Chromium already running with --remote-debugging-port. Either way the
/// device creates its own page (Target.createTarget) and closes it at the end, so several
/// devices (several runs, in several processes) share one Chromium side by side.
///
/// Coordinates are physical pixels of its frames; the protocol's CSS pixels are physical / scale.
/// capture() is Page.captureScreenshot (PNG); input is Input.dispatchMouseEvent,
/// Input.dispatchKeyEvent and Input.insertText; each input waits for Chromium's answer.
/// Every navigation of the page (its own links too) passes Fetch request interception of
/// Document requests and the policy (setPolicy) before any request is sent.
/// Methods throw DeviceError naming Chromium when it is gone ("chromium (pid 123) is gone: ...").
class ChromiumDevice final : public Device, public Navigator {
public:
    /// Starts `chromium` (a program name or path; $EACU_CHROMIUM overrides the default
    /// "chromium") headless and opens a page of `metrics`. Waits up to `timeout` seconds for
    /// its DevTools endpoint. Throws DeviceError when it cannot start or answer (with the
    /// tail of its stderr).
    static std::unique_ptr<ChromiumDevice> launch(const PageMetrics& metrics, double timeout = 30,
                                                  const std::string& chromium = "");
    /// Attaches to the Chromium whose DevTools HTTP endpoint is `http_url`
    /// ("http://127.0.0.1:9222") and opens a page of `metrics` in it. Throws DeviceError when
    /// the endpoint cannot be reached, std::invalid_argument for a malformed URL.
    static std::unique_ptr<ChromiumDevice> attach(const std::string& http_url, const PageMetrics& metrics,
                                                  double timeout = 10);
    /// Opens a page of `metrics` over a DevTools `transport` of the caller's (attach() gives its
    /// WebSocket; a test or fuzzer its own peer); `peer` names it in errors ("chromium at ...").
    /// Throws DeviceError when the peer does not answer as DevTools does within `timeout`.
    static std::unique_ptr<ChromiumDevice> over(std::unique_ptr<CdpTransport> transport, const std::string& peer,
                                                const PageMetrics& metrics, double timeout = 10);
    /// Closes the page; a launched Chromium is closed (Browser.close, then its process group
    /// killed) and its profile directory removed.
    ~ChromiumDevice() override;

    // Device
    std::string describe() const override;
    Size screenSize() const override;
    double scaleFactor() const override { return metrics_.scale; }
    Frame capture() override;
    /// Page.captureScreenshot as JPEG (quality 80): no PNG to encode in Chromium nor to decode.
    /// Waits at most 2 s (a request sent while the page navigates may never be answered; the
    /// live screen tries again).
    Frame captureLive() override;
    void move(Point p) override;
    Point cursor() const override;
    void click(MouseButton button, int count = 1) override;
    void press(MouseButton button) override;
    void release(MouseButton button) override;
    /// One wheel click is 100 CSS pixels (a mouseWheel event's delta).
    void scroll(int dx, int dy) override;
    /// Text goes in with Input.insertText (any script: "张三"); "\n" is the Enter key and "\t"
    /// the Tab key, so a form submits as with a keyboard.
    void typeText(const std::string& utf8) override;
    void keyCombo(const std::vector<Key>& keys) override;
    void checkKeys(const std::vector<Key>& keys) const override;
    void keyDown(const Key& key) override;
    void keyUp(const Key& key) override;
    /// A round trip through the page's renderer (Runtime.evaluate), so every input sent before
    /// has been handled.
    void sync() override;
    Navigator* navigator() override { return this; }
    /// True: every command goes through the thread-safe CdpConnection, the pointer is under a lock.
    bool concurrentCapture() const override { return true; }

    // Navigator
    void navigate(const std::string& url, double timeout) override;
    std::string currentUrl() override;
    void setPolicy(Policy policy) override;
    std::vector<std::string> takeRefusals() override;

    /// The DevTools endpoint ("http://127.0.0.1:PORT") of this Chromium; "" when unknown.
    const std::string& endpoint() const { return endpoint_; }

private:
    ChromiumDevice() = default;
    void openPage(double timeout);
    /// A command to the page's session, with the page-gone check.
    nlohmann::json call(const std::string& method, const nlohmann::json& params, double timeout = 30);
    void mouse(const char* type, MouseButton button, int click_count, double dx = 0, double dy = 0);
    void key(const char* type, const DomKey& k);
    void checkPage() const;
    // Page.captureScreenshot in `format` ("png", or "jpeg" at `quality`), decoded; `timeout` s.
    Frame screenshot(const char* format, int quality, double timeout);

    std::unique_ptr<ChromiumBrowser> browser_;  // launch(): the Chromium it started
    std::string endpoint_;
    std::string peer_;
    std::unique_ptr<CdpConnection> cdp_;
    std::string target_;
    std::string session_;
    PageMetrics metrics_;
    Point cursor_{0, 0};  // guarded by mu_
    int buttons_ = 0;    // the protocol's pressed-buttons mask (left 1, right 2, middle 4)
    int modifiers_ = 0;  // Alt 1, Control 2, Meta 4, Shift 8 while held
    mutable std::mutex mu_;
    std::condition_variable cv_;
    int loads_ = 0;            // Page.loadEventFired seen
    std::string page_gone_;    // why the page went away ("" while it is there)
    Policy policy_;
    std::vector<std::string> refusals_;
};

}  // namespace eacu

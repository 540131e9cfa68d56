// One page of a headless Chromium driven through the Chrome DevTools Protocol: its pixels are the
// screen, its input events the input. No X server is involved.
#pragma once
#include <condition_variable>
#include <cstdint>
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

class CdpAccessibility;
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
/// capture() is Page.captureScreenshot (PNG); captureLive() the page's screencast; input is Input.dispatchMouseEvent,
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
    /// The page's screencast: the first call starts Page.startScreencast (JPEG quality 80, at
    /// most screenSize()), which runs until the device closes. Chromium pushes a frame each time
    /// the page's compositor draws something new (nothing while the page stands still), each
    /// acknowledged at once (Page.screencastFrameAck) from the event thread; this returns the
    /// newest one, decoded (once per frame), resized to screenSize() when Chromium sent
    /// another size. A running screencast also keeps the compositor drawing, so capture() does
    /// not stand on the last page after a navigation (puppeteer#6673). Before the first frame
    /// of the current document (none yet, or none since the main frame last committed a
    /// navigation) it is Page.captureScreenshot as JPEG within 2 s, as before the screencast.
    /// Throws DeviceError (a frame that is no image, the page gone), DeviceStalled.
    Frame captureLive() override;
    /// The newest screencast frame as Chromium sent it, for a live view that passes it on
    /// undecoded (server/LiveScreen): its JPEG bytes, the same in base64, and its number
    /// (counting from 1, one more for each frame received). Null bytes when there is no frame of
    /// the current document yet, or when Chromium's frame is not screenSize() (the caller then
    /// takes captureLive()). Starts the screencast as captureLive() does.
    EncodedLiveFrame liveEncoded() override;
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
    /// The page's accessibility tree from Chromium (CdpAccessibility: Accessibility.getFullAXTree
    /// with DOMSnapshot's boxes).
    Accessibility& accessibility() override;
    /// True: every command goes through the thread-safe CdpConnection, the pointer is under a lock.
    bool concurrentCapture() const override { return true; }

    // Navigator
    void navigate(const std::string& url, double timeout) override;
    std::string currentUrl() override;
    void setPolicy(Policy policy) override;
    std::vector<std::string> takeRefusals() override;

    /// The DevTools endpoint ("http://127.0.0.1:PORT") of this Chromium; "" when unknown.
    const std::string& endpoint() const { return endpoint_; }
    /// How errors name this Chromium ("chromium (pid 4242)", "chromium at http://...").
    const std::string& peer() const { return peer_; }
    /// The page's viewport (CSS pixels) and device scale.
    const PageMetrics& metrics() const { return metrics_; }
    /// The process of a Chromium this device started; 0 for one it attached to.
    int browserPid() const;

    /// Sends a DevTools command to the page's session and returns its result: the page-gone
    /// check first; while the page commits a navigation ("Not attached to an active page") it
    /// is sent again within `timeout`; the wait is CdpConnection::call's (DeviceWait: at most
    /// `timeout` seconds, less when the step's deadline or the run's token ends it). Throws
    /// DeviceError (an error answer, the page or Chromium gone), DeviceStalled (no answer: the
    /// page's running script is ended first, a spinning script being the usual cause), Cancelled.
    nlohmann::json call(const std::string& method, const nlohmann::json& params, double timeout = 30);

private:
    ChromiumDevice() = default;
    void openPage(double timeout);
    void mouse(const char* type, MouseButton button, int click_count, double dx = 0, double dy = 0);
    void key(const char* type, const DomKey& k);
    void checkPage() const;
    // Page.captureScreenshot in `format` ("png", or "jpeg" at `quality`), decoded; `timeout` s.
    Frame screenshot(const char* format, int quality, double timeout);
    // Starts the screencast once (a bounded call; after a failure, tried again 1 s later).
    void startScreencast();

    std::unique_ptr<ChromiumBrowser> browser_;  // launch(): the Chromium it started
    std::string endpoint_;
    std::string peer_;
    std::unique_ptr<CdpConnection> cdp_;
    std::unique_ptr<CdpAccessibility> a11y_;
    std::string target_;
    std::string session_;
    PageMetrics metrics_;
    Point cursor_{0, 0};  // guarded by mu_
    int buttons_ = 0;    // the protocol's pressed-buttons mask (left 1, right 2, middle 4)
    int modifiers_ = 0;  // Alt 1, Control 2, Meta 4, Shift 8 while held
    mutable std::mutex mu_;
    std::condition_variable cv_;
    int loads_ = 0;            // Page.loadEventFired seen
    // The screencast (captureLive), guarded by mu_.
    bool cast_on_ = false;                        // Page.startScreencast answered
    bool closing_ = false;                        // the destructor began: frames are not acked
    double cast_retry_at_ = 0;                    // a failed start is tried again from then
    std::shared_ptr<const std::string> cast_b64_; // the newest frame's JPEG, base64
    uint64_t cast_seq_ = 0;                       // frames received
    uint64_t commit_seq_ = 0;                     // cast_seq_ when the main frame last committed
    double cast_at_ = 0;                          // wall time the newest frame came
    uint64_t decoded_seq_ = 0;                    // the frame in decoded_
    cv::Mat decoded_;                             // that frame's pixels (never handed out)
    EncodedLiveFrame passed_;                     // liveEncoded()'s last answer with bytes
    std::string page_gone_;    // why the page went away ("" while it is there)
    Policy policy_;
    std::vector<std::string> refusals_;
};

}  // namespace eacu

// A remote device: a screen (Windows today) driven through a device agent over TCP
// (docs/agent-protocol.md, agent/ for eacu-agent.exe). No X server is involved on this side.
#pragma once
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <opencv2/core.hpp>

#include "device/Device.h"
#include "device/agent/AgentConnection.h"

namespace eacu {

class AgentWindows;
class AgentAccessibility;

/// A Device on the agent at HOST:PORT. Coordinates are physical pixels of the agent's virtual
/// screen, (0, 0) its top-left corner. capture() receives only the region that changed since
/// this device's last frame (the agent keeps that frame per connection), losslessly encoded.
/// Input is the agent's SendInput; windows() and accessibility() are the agent's windows and
/// element tree. Every request has a deadline (10 s; capture and the tree 20 s), so an agent
/// that is killed or stops answering becomes a DeviceError ("agent HOST:PORT is gone: ...").
class AgentDevice final : public Device {
public:
    /// Connects to the agent at `host`:`port` with `token` (may be empty) within `timeout`
    /// seconds and reads its screen. Throws DeviceError when it cannot (refused, wrong token,
    /// another protocol version).
    static std::unique_ptr<AgentDevice> connect(const std::string& host, int port, const std::string& token,
                                                double timeout = 10);
    ~AgentDevice() override;

    std::string describe() const override;
    Size screenSize() const override { return size_; }
    double scaleFactor() const override { return scale_; }
    Frame capture() override;
    /// True: live frames (server/LiveScreen) may be taken on a second thread beside the run's
    /// steps, on a connection of their own (captureLive).
    bool concurrentCapture() const override { return true; }
    /// A whole-screen frame for the live view only, through a second connection to the agent
    /// (opened on first use with the same token; the agent serves each connection on a thread
    /// of its own and keeps each one's last frame), so it neither waits behind the run's
    /// requests nor spoils the changed-region base of capture(). Connecting and each frame have
    /// 2 s (a live view must not hold up the run's end); a failed connection is dropped and the
    /// next call connects again. Throws DeviceError as capture().
    Frame captureLive() override;
    void move(Point p) override;
    Point cursor() const override;
    void click(MouseButton button, int count = 1) override;
    void press(MouseButton button) override;
    void release(MouseButton button) override;
    /// One wheel click is WHEEL_DELTA (120) on Windows.
    void scroll(int dx, int dy) override;
    /// KEYEVENTF_UNICODE for every character ("\n" is Return, "\t" is Tab): any script, no
    /// input method.
    void typeText(const std::string& utf8) override;
    void keyCombo(const std::vector<Key>& keys) override;
    void checkKeys(const std::vector<Key>& keys) const override;
    void keyDown(const Key& key) override;
    void keyUp(const Key& key) override;
    /// Best effort: the agent waits until the foreground window's thread answers a message.
    void sync() override;
    Windows& windows() override;
    Accessibility& accessibility() override;

    /// The clipboard's Unicode text (UTF-8); "" when it holds no text.
    std::string clipboardText();
    /// Puts `utf8` on the clipboard as Unicode text. Throws std::invalid_argument on invalid UTF-8.
    void setClipboardText(const std::string& utf8);
    /// Starts `command_line` on the agent's machine (CreateProcessW); returns its pid.
    int launch(const std::string& command_line);
    /// Waits up to `timeout` seconds for a program launch() started; its exit code, or -1
    /// when it still runs. Throws DeviceError for a pid it did not start or waited for already.
    int wait(int pid, double timeout);

    /// The screen's or window `window`'s pixels now, from the agent's capture op; `origin` is
    /// the frame's top-left on the screen. Throws DeviceError as the agent says (gone,
    /// minimized, a black PrintWindow of a covered window).
    WindowCapture grab(uint64_t window);
    /// Where the agent reads its element tree, as its hello says (`uia`): "UIA" (UI Automation)
    /// or "MSAA" (each control's MSAA object: Windows without UI Automation, Wine 8).
    std::string treeSource() const { return uia_ ? "UIA" : "MSAA"; }
    /// Bytes received for the last capture and whether it was a whole frame (for benchmarks).
    size_t lastCaptureBytes() const { return base_.bytes; }
    /// The connection, for the windows and the tree.
    AgentConnection& connection() { return *conn_; }

private:
    AgentDevice() = default;
    void key(const Key& k, bool down);
    void mouseButton(MouseButton b, bool down);

    // What a connection's changed-region captures build on: the last frame received (BGR), its
    // sequence number at the agent (0: none), its target (0: the screen; else the window) and
    // the bytes of the last answer.
    struct CaptureBase {
        cv::Mat last;
        uint32_t seq = 0;
        uint64_t target = 0;
        size_t bytes = 0;
    };
    // One capture op on `conn` on top of `base` (updated), answered within `timeout` seconds;
    // `window` 0 for the screen.
    WindowCapture grabOn(AgentConnection& conn, CaptureBase& base, uint64_t window, double timeout);

    std::unique_ptr<AgentConnection> conn_;
    /// The pointer, keys, text and sync: never queued behind a capture or a tree read on conn_
    /// (the agent serves each connection on a thread of its own, and takes input under a lock of
    /// its own: docs/agent-protocol.md).
    std::unique_ptr<AgentConnection> input_;
    /// cursor(): the live views read the pointer with every frame (the studio's publisher about
    /// every 40 ms), which on input_ queued a person's click behind them.
    std::unique_ptr<AgentConnection> pointer_;
    std::string host_, token_;  // for the live view's connection (the token is never logged)
    int port_ = 0;
    std::mutex live_mu_;  // guards live_conn_, live_base_
    std::unique_ptr<AgentConnection> live_conn_;
    CaptureBase live_base_;
    std::string os_;
    Size size_;
    double scale_ = 1.0;
    int dpi_ = 96;
    bool uia_ = false;  // the hello's "uia"
    CaptureBase base_;  // capture() and grab() on conn_ (input on input_)
    std::unique_ptr<AgentWindows> windows_;
    std::unique_ptr<AgentAccessibility> a11y_;
};

}  // namespace eacu

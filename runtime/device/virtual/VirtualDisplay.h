// A private X server (Xvfb) owned by eacu, for headless runs and tests.
#pragma once
#include <memory>
#include <string>

#include "geometry/Rect.h"
#include "device/virtual/SessionBus.h"
#include "process/Process.h"

namespace eacu {

/// An Xvfb server started and owned by this process; stopped by the destructor.
/// The server has XTEST and MIT-SHM, no TCP listener, no access control and never resets.
class VirtualDisplay {
public:
    /// Starts Xvfb with one screen of `width` x `height` pixels at `depth` bits, on the first
    /// free display number from :99 upward, and waits until a client can connect.
    /// Takes at most `timeout` seconds. Throws std::runtime_error if Xvfb is not installed,
    /// exits (the message carries its exit status and stderr) or is not ready in time.
    static std::unique_ptr<VirtualDisplay> start(int width = 1280, int height = 800,
                                                 int depth = 24, double timeout = 10);

    /// Starts the window manager `wm` (a program in PATH, e.g. "openbox") on this display and
    /// waits, at most `timeout` seconds, until it has taken the root window (set a valid
    /// _NET_SUPPORTING_WM_CHECK). "" or "none" starts nothing. Throws std::runtime_error when
    /// the program is not installed, exits (with its status and stderr) or is not ready in
    /// time, or when a window manager was already started.
    void startWindowManager(const std::string& wm, double timeout = 10);

    /// Starts a private D-Bus session bus and the AT-SPI2 accessibility bus for this display
    /// (SessionBus::start), so that programs launched with its environment export their
    /// accessibility trees. Throws std::runtime_error like SessionBus::start, or when one was
    /// already started.
    void startSessionBus(double timeout = 10);
    /// The session bus started by startSessionBus, or null.
    const SessionBus* sessionBus() const { return bus_.get(); }

    /// Stops the session bus (if any), the window manager (if any), then Xvfb (SIGTERM, then
    /// SIGKILL after 2 s).
    ~VirtualDisplay();
    VirtualDisplay(const VirtualDisplay&) = delete;
    VirtualDisplay& operator=(const VirtualDisplay&) = delete;

    /// The display name, e.g. ":99" (use as DISPLAY or X11Device's display_name).
    const std::string& name() const { return name_; }
    /// The display number, e.g. 99.
    int number() const { return number_; }
    /// Screen size in pixels as requested.
    Size size() const { return size_; }
    int depth() const { return depth_; }
    /// True while the Xvfb process is alive.
    bool running() { return xvfb_ && xvfb_->running(); }
    /// The Xvfb process (pid, stderr text).
    Process& process() { return *xvfb_; }
    /// The window manager's name as started ("" when none).
    const std::string& windowManager() const { return wm_name_; }

private:
    VirtualDisplay() = default;
    std::unique_ptr<Process> xvfb_;
    std::unique_ptr<Process> wm_;
    std::unique_ptr<SessionBus> bus_;
    std::string wm_name_;
    std::string name_;
    int number_ = -1;
    Size size_;
    int depth_ = 24;
};

}  // namespace eacu

// Top-level windows on an X server through EWMH/ICCCM (device/Windows.h), on a connection of
// their own.
#pragma once
#include <memory>
#include <string>

#include "device/Device.h"
#include "device/Windows.h"

namespace eacu {

/// Windows on the X display `display_name`. With a window manager (one that set
/// _NET_SUPPORTING_WM_CHECK) the list is its _NET_CLIENT_LIST and requests go through it
/// (_NET_ACTIVE_WINDOW, _NET_WM_STATE, _NET_MOVERESIZE_WINDOW); without one, the list is the
/// root's mapped children that carry WM_CLASS, focus is XSetInputFocus + XRaiseWindow, and
/// minimize and maximize throw DeviceError (they need a window manager). The pid is
/// _NET_WM_PID, else the X-Resource extension's client pid (local clients), else 0. Captures
/// use the Composite extension.
/// Not thread-safe.
class X11Windows : public Windows {
public:
    /// Opens a connection to `display_name` (":99"); `scale` is the device scale factor that
    /// captured frames report. Throws DeviceError when it cannot.
    explicit X11Windows(const std::string& display_name, double scale = 1.0);
    ~X11Windows() override;
    X11Windows(const X11Windows&) = delete;
    X11Windows& operator=(const X11Windows&) = delete;

    std::vector<WindowInfo> list() override;
    std::optional<WindowInfo> info(uint64_t id) override;
    std::optional<WindowInfo> frontmost() override;
    WindowInfo focus(uint64_t id, double timeout = 5) override;
    WindowInfo minimize(uint64_t id, double timeout = 5) override;
    WindowInfo maximize(uint64_t id, double timeout = 5) override;
    WindowInfo restore(uint64_t id, double timeout = 5) override;
    void close(uint64_t id, double timeout = 5) override;
    WindowInfo move(uint64_t id, int x, int y, double timeout = 5) override;
    WindowInfo resize(uint64_t id, int w, int h, double timeout = 5) override;
    /// XComposite: the window is redirected (automatic mode: the screen still shows it) at its
    /// first capture and stays so while this object lives, and its pixmap is read. The first
    /// capture of a window waits (up to 1 s) until its program has redrawn it: three reads
    /// 30 ms apart that agree. Throws DeviceError also when the server has no Composite
    /// extension.
    WindowCapture capture(uint64_t id) override;
    /// The topmost viewable child of the root that contains `p` (XQueryTree order), described
    /// as the client inside it (the first descendant with WM_STATE) or as itself.
    std::optional<WindowInfo> windowAt(Point p) override;
    /// XSendEvent of ButtonPress/ButtonRelease (propagating) to the innermost child of `id`
    /// under `p` (XTranslateCoordinates), with window-relative and root coordinates.
    void sendClick(uint64_t id, Point p, MouseButton button, int count = 1) override;
    /// XSendEvent of KeyPress/KeyRelease to `id`'s focus child (the innermost child under the
    /// pointer if it is inside the window, else `id`), with the modifier state set.
    void sendKeys(uint64_t id, const std::vector<Key>& combo) override;
    void sendText(uint64_t id, const std::string& text) override;

    /// True when an EWMH window manager runs on the display (_NET_SUPPORTING_WM_CHECK).
    bool hasWindowManager();

    struct Impl;

private:
    std::unique_ptr<Impl> impl_;
};

}  // namespace eacu

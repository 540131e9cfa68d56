// Top-level windows of a device's screen: listing and control, without any platform type
// (X11 implements it in device/x11/X11Windows; Android and Chromium devices may follow).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/Frame.h"
#include "device/Keys.h"
#include "device/MouseButton.h"
#include "geometry/Rect.h"

namespace eacu {

/// One top-level window as its screen reports it.
/// - `id`: the platform's window id (on X11 the client window, not the manager's frame).
/// - `pid`: the owning process, 0 when unknown.
/// - `title`, `cls`, `instance`: title and class pair (X11 WM_CLASS: instance, class).
/// - `x`, `y`, `w`, `h`: the client area (no frame) on the screen, physical pixels.
/// - `focused`: it is the frontmost window; `minimized`: iconified or hidden;
///   `maximized`: maximized both ways; `desktop`: its virtual desktop, -1 on all or unknown.
struct WindowInfo {
    uint64_t id = 0;
    int pid = 0;
    std::string title;
    std::string cls;
    std::string instance;
    int x = 0, y = 0, w = 0, h = 0;
    bool focused = false;
    bool minimized = false;
    bool maximized = false;
    int desktop = -1;
};

/// A capture of one window's client area: `frame` holds its own pixels (physical pixels, as
/// Device::capture), `origin` the screen position of the frame's top-left pixel, so that a
/// point p in the frame is p + origin on the screen.
struct WindowCapture {
    Frame frame;
    Point origin;
};

/// Window listing and control. Every operation waits (polling the server, up to `timeout`
/// seconds) until the window reports the new state and returns it; when it does not, it
/// throws DeviceError saying what was expected and what came. A window that no longer
/// exists throws DeviceError("window 0x... is gone").
class Windows {
public:
    virtual ~Windows() = default;

    /// The top-level windows in stacking order, bottom first (the frontmost is last).
    virtual std::vector<WindowInfo> list() = 0;
    /// The window `id` now, or nullopt when it is gone.
    virtual std::optional<WindowInfo> info(uint64_t id) = 0;
    /// The window that has the focus, or nullopt when none has.
    virtual std::optional<WindowInfo> frontmost() = 0;
    /// Brings `id` to the front with the keyboard focus (un-minimizing it).
    virtual WindowInfo focus(uint64_t id, double timeout = 5) = 0;
    /// Minimizes (iconifies) `id`. Needs a window manager.
    virtual WindowInfo minimize(uint64_t id, double timeout = 5) = 0;
    /// Maximizes `id` both ways. Needs a window manager.
    virtual WindowInfo maximize(uint64_t id, double timeout = 5) = 0;
    /// Un-minimizes and un-maximizes `id`.
    virtual WindowInfo restore(uint64_t id, double timeout = 5) = 0;
    /// Asks `id` to close (the program's own close, as its title bar's button does) and waits
    /// until it is gone. Throws DeviceError when the window does not support being asked.
    virtual void close(uint64_t id, double timeout = 5) = 0;
    /// Moves the client area's top-left corner of `id` to (x, y), screen pixels.
    virtual WindowInfo move(uint64_t id, int x, int y, double timeout = 5) = 0;
    /// Resizes the client area of `id` to w x h pixels.
    virtual WindowInfo resize(uint64_t id, int w, int h, double timeout = 5) = 0;
    /// Captures the client area of `id` from the window's own contents, also where other
    /// windows cover it. Throws DeviceError when it is gone or minimized (nothing is drawn).
    virtual WindowCapture capture(uint64_t id) = 0;

    /// The window whose pixels the screen shows at point `p` (screen pixels): the topmost
    /// mapped top-level window there, a window manager's frame (title bar, border) counting as
    /// its client's, and windows the manager does not list (menus, tooltips: X11
    /// override-redirect) as themselves (then `title` and `cls` may be empty). nullopt when
    /// only the desktop is there.
    virtual std::optional<WindowInfo> windowAt(Point p) = 0;

    /// Input delivered to window `id` itself as synthetic events, without moving the pointer,
    /// raising the window or giving it the focus (X11: XSendEvent). Whether the program acts
    /// on such events is its toolkit's choice (many ignore them); nothing reports that, so a
    /// caller checks the effect. `p` is a screen point (physical pixels) inside the window;
    /// the events go to its innermost child there. Throw DeviceError when the window is gone.
    /// sendClick: `count` press/release pairs of `button`.
    virtual void sendClick(uint64_t id, Point p, MouseButton button, int count = 1) = 0;
    /// Presses and releases a key combo (modifiers held around the last key) in window `id`.
    /// Throws DeviceError for a key the keyboard map has no key code for.
    virtual void sendKeys(uint64_t id, const std::vector<Key>& combo) = 0;
    /// Types UTF-8 text in window `id`, one key event pair per character (Shift where the
    /// character needs it). Throws DeviceError for a character no key of the keyboard map types.
    virtual void sendText(uint64_t id, const std::string& text) = 0;
};

}  // namespace eacu

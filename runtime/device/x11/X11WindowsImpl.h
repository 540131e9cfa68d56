// X11Windows's state, shared by its files: connection (X11Windows.cpp), reading windows
// (X11WindowList.cpp), window requests (X11WindowActions.cpp), capture (X11WindowCapture.cpp)
// and sent events (X11WindowEvents.cpp). Internal to x11/.
#pragma once
// X11Windows.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11Windows.h"
#include "device/x11/X11Watchdog.h"

#include <X11/Xlib.h>

#include <functional>
#include <map>
#include <memory>
#include <type_traits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace eacu {

struct X11Windows::Impl {
    Display* dpy = nullptr;
    std::string name;
    Window root = 0;
    int screen = 0;
    bool dead = false;
    bool xres = false;
    bool composite = false;
    double scale = 1.0;  // reported in captured frames
    std::set<Window> redirected;  // windows redirected by capture()
    std::map<std::string, Atom> atoms;
    // Ends a call on this connection the display does not answer (X11Watchdog.h).
    std::unique_ptr<X11Watchdog> watchdog;

    // ---- connection (X11Windows.cpp) ----
    // Unredirects the windows capture() redirected and closes the display.
    ~Impl();
    // Throws the stall the watchdog ended (DeviceStalled), or DeviceError when the display went away.
    void checkAlive() const;
    // Runs `f` (one public call; `operation` names it in errors: "window list") with the
    // watchdog armed (x11Wait: the step's deadline, or 30 s): on a display that stops
    // answering it ends there with the DeviceStalled, not with what `f` made of the broken
    // connection. Calls nest.
    template <class F>
    auto bounded(const char* operation, F&& f) -> decltype(f()) {
        checkAlive();
        X11Watchdog::Scope scope(*watchdog, x11Wait("X display " + name, operation));
        try {
            if constexpr (std::is_void_v<decltype(f())>) {
                f();
                checkAlive();
            } else {
                auto r = f();
                checkAlive();
                return r;
            }
        } catch (const DeviceStalled&) {
            throw;
        } catch (...) {
            if (auto stalled = watchdog->stalled()) throw *stalled;
            throw;
        }
    }
    Atom atom(const char* n);

    // ---- reading windows (X11WindowList.cpp) ----
    // A format-32 property as longs (empty when absent or on an X error).
    std::vector<unsigned long> prop32(Window w, const char* prop, Atom type = AnyPropertyType);
    // A text property (UTF8_STRING, STRING or COMPOUND_TEXT) as UTF-8; "" when absent.
    std::string text(Window w, const char* prop);
    // The window manager's check window, 0 when none runs.
    Window wmCheck();
    bool hasClass(Window w);
    bool viewable(Window w);
    std::vector<Window> children(Window w);
    // Client windows, bottom first: _NET_CLIENT_LIST_STACKING (else _NET_CLIENT_LIST) with a window manager, else the root's mapped children
    // carrying WM_CLASS (or their first child that does: a manager without EWMH reparents).
    std::vector<Window> clients();
    int pidOf(Window w);
    // The focused client, 0 when none.
    Window activeId();
    std::optional<WindowInfo> describe(Window w, Window active);
    bool listed(Window w);
    bool viewableOrIconic(Window w);
    WindowInfo current(uint64_t id);
    static std::string label(const WindowInfo& i);
    static std::string state(const WindowInfo& i);

    // ---- window requests (X11WindowActions.cpp) ----
    // A client message about `w` to the root window (EWMH requests to the window manager).
    void toRoot(Window w, const char* type, long d0, long d1 = 0, long d2 = 0, long d3 = 0,
                long d4 = 0);
    // The state reached may come in several steps (a manager sets _NET_WM_STATE, then moves
    // the frame, or animates it): re-reads every 10 ms until the reads of 40 ms agree (at most
    // 1 s) while `ok` holds.
    WindowInfo settle(uint64_t id, WindowInfo last, const std::function<bool(const WindowInfo&)>& ok);
    // Polls until `ok` holds for the window (returns it), else throws DeviceError naming
    // `expected` and the last state seen.
    WindowInfo waitFor(uint64_t id, double timeout, const std::function<bool(const WindowInfo&)>& ok,
                       const std::string& expected);
    void needWm(const WindowInfo& i, const char* what);
    // Requests the client area's position (x, y) and size (w, h); kKeep (X11WindowActions.cpp)
    // leaves one as it is.
    void moveResize(const WindowInfo& i, int x, int y, int w, int h);
};

}  // namespace eacu

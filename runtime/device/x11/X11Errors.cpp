#include "device/x11/X11Errors.h"

#include <cstdio>
#include <mutex>
#include <set>

namespace eacu::x11 {

namespace {

// ---- X error handling -----------------------------------------------------------------------
// Xlib's default error handler exits the process; ours records the first error of a "trap"
// (a request sequence followed by XSync) so the caller can react, and reports stray errors.
struct ErrorTrap {
    bool active = false;
    int code = 0;
    int request = 0;
    int minor = 0;
};
thread_local ErrorTrap t_trap;

int onXError(Display* dpy, XErrorEvent* e) {
    if (t_trap.active) {
        if (t_trap.code == 0) {
            t_trap.code = e->error_code;
            t_trap.request = e->request_code;
            t_trap.minor = e->minor_code;
        }
        return 0;
    }
    char text[256] = "";
    XGetErrorText(dpy, e->error_code, text, sizeof text);
    std::fprintf(stderr, "eacu: X error on %s: %s (request %d.%d)\n", DisplayString(dpy), text,
                 int(e->request_code), int(e->minor_code));
    return 0;
}

// The IO error handler is process-wide. Xlib's default one exits; for our displays we return
// so that Xlib calls the per-display exit handler (X11Device's), which marks the device dead
// (libX11 >= 1.7: the connection is then closed and later calls fail harmlessly) and we throw
// DeviceError. Displays that are not ours keep the previous behaviour.
std::mutex g_io_mu;
std::set<Display*> g_our_displays;
XIOErrorHandler g_prev_io_handler = nullptr;
std::once_flag g_handlers_once;

int onIOError(Display* dpy) {
    bool ours;
    {
        std::lock_guard lk(g_io_mu);
        ours = g_our_displays.count(dpy) > 0;
    }
    if (!ours && g_prev_io_handler) return g_prev_io_handler(dpy);
    return 0;
}

}  // namespace

void installHandlers() {
    std::call_once(g_handlers_once, [] {
        XSetErrorHandler(onXError);
        g_prev_io_handler = XSetIOErrorHandler(onIOError);
    });
}

void trapBegin() { t_trap = ErrorTrap{true}; }

int trapEnd(Display* dpy) {
    XSync(dpy, False);
    int code = t_trap.code;
    t_trap = ErrorTrap{};
    return code;
}

void adoptDisplay(Display* dpy) {
    std::lock_guard lk(g_io_mu);
    g_our_displays.insert(dpy);
}

void releaseDisplay(Display* dpy) {
    std::lock_guard lk(g_io_mu);
    g_our_displays.erase(dpy);
}

}  // namespace eacu::x11

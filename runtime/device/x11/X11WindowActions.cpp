// X11Windows: requests about a window (focus, minimize, maximize, restore, close, move,
// resize) and the wait for the state they reach.
// X11WindowsImpl.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11WindowsImpl.h"

#include <X11/Xatom.h>
#include <X11/Xutil.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <thread>

#include "base/Clock.h"
#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

constexpr int kKeep = INT_MIN;  // moveResize: leave this coordinate as it is

}  // namespace

void X11Windows::Impl::toRoot(Window w, const char* type, long d0, long d1, long d2, long d3, long d4) {
    XEvent e{};
    e.xclient.type = ClientMessage;
    e.xclient.window = w;
    e.xclient.message_type = atom(type);
    e.xclient.format = 32;
    long d[5] = {d0, d1, d2, d3, d4};
    for (int k = 0; k < 5; ++k) e.xclient.data.l[k] = d[k];
    XSendEvent(dpy, root, False, SubstructureRedirectMask | SubstructureNotifyMask, &e);
    XFlush(dpy);
    checkAlive();
}

WindowInfo X11Windows::Impl::settle(uint64_t id, WindowInfo last, const std::function<bool(const WindowInfo&)>& ok) {
    const double until = monotonicSeconds() + 1.0;
    int same_reads = 0;
    while (monotonicSeconds() < until) {
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
        auto again = describe(Window(id), activeId());
        if (!again || !ok(*again)) return last;
        bool same = again->x == last.x && again->y == last.y && again->w == last.w && again->h == last.h &&
                    again->focused == last.focused && again->minimized == last.minimized &&
                    again->maximized == last.maximized;
        last = *again;
        same_reads = same ? same_reads + 1 : 0;
        if (same_reads >= 4) break;
    }
    return last;
}

WindowInfo X11Windows::Impl::waitFor(uint64_t id, double timeout, const std::function<bool(const WindowInfo&)>& ok,
                                     const std::string& expected) {
    const double deadline = monotonicSeconds() + timeout;
    double step = 0.002;
    WindowInfo last = current(id);
    while (true) {
        if (ok(last)) return settle(id, last, ok);
        if (monotonicSeconds() >= deadline) break;
        std::this_thread::sleep_for(std::chrono::duration<double>(step));
        step = std::min(step * 2, 0.02);
        last = current(id);
    }
    throw DeviceError(label(last) + ": expected " + expected + " within " +
                      std::to_string(timeout).substr(0, 4) + " s, got " + state(last) +
                      (wmCheck() ? "" : " (no window manager runs on " + name + ")"));
}

void X11Windows::Impl::needWm(const WindowInfo& i, const char* what) {
    if (!wmCheck())
        throw DeviceError("cannot " + std::string(what) + " " + label(i) + ": that needs a window "
                          "manager and none runs on " + name + " (eacu run --display virtual --wm openbox)");
}

void X11Windows::Impl::moveResize(const WindowInfo& i, int x, int y, int w, int h) {
    if (wmCheck()) {
        // NorthWestGravity places the frame's corner: offset by the frame's extents
        // (left, right, top, bottom) when the manager publishes them, else StaticGravity
        // (x, y are the client's own; not every manager honours it, see move()).
        auto ext = prop32(Window(i.id), "_NET_FRAME_EXTENTS", XA_CARDINAL);
        long gravity = ext.size() == 4 ? 1 : 10;
        if (ext.size() == 4) {
            if (x != kKeep) x -= int(ext[0]);
            if (y != kKeep) y -= int(ext[2]);
        }
        long flags = gravity | (2L << 12);
        if (x != kKeep) flags |= 1L << 8;
        if (y != kKeep) flags |= 1L << 9;
        if (w != kKeep) flags |= 1L << 10;
        if (h != kKeep) flags |= 1L << 11;
        auto v = [](int a) { return a == kKeep ? 0L : long(a); };
        toRoot(Window(i.id), "_NET_MOVERESIZE_WINDOW", flags, v(x), v(y), v(w), v(h));
        return;
    }
    XMoveResizeWindow(dpy, Window(i.id), x != kKeep ? x : i.x, y != kKeep ? y : i.y,
                      unsigned(w != kKeep ? w : i.w), unsigned(h != kKeep ? h : i.h));
    XFlush(dpy);
    checkAlive();
}

WindowInfo X11Windows::focus(uint64_t id, double timeout) {
    return impl_->bounded("window focus", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (i.focused && !i.minimized) return i;
        if (d.wmCheck()) {
            d.toRoot(Window(id), "_NET_ACTIVE_WINDOW", 2 /* source: pager */, CurrentTime, 0);
        } else {
            XMapRaised(d.dpy, Window(id));
            x11::trapBegin();
            XSetInputFocus(d.dpy, Window(id), RevertToParent, CurrentTime);
            if (int err = x11::trapEnd(d.dpy))
                throw DeviceError("cannot focus " + Impl::label(i) + ": XSetInputFocus failed (X error " +
                                  std::to_string(err) + ")");
        }
        return d.waitFor(id, timeout, [](const WindowInfo& w) { return w.focused && !w.minimized; },
                         "focused");
    });
}

WindowInfo X11Windows::minimize(uint64_t id, double timeout) {
    return impl_->bounded("window minimize", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (i.minimized) return i;
        d.needWm(i, "minimize");
        XIconifyWindow(d.dpy, Window(id), d.screen);
        XFlush(d.dpy);
        return d.waitFor(id, timeout, [](const WindowInfo& w) { return w.minimized; }, "minimized");
    });
}

WindowInfo X11Windows::maximize(uint64_t id, double timeout) {
    return impl_->bounded("window maximize", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (i.maximized) return i;
        d.needWm(i, "maximize");
        d.toRoot(Window(id), "_NET_WM_STATE", 1 /* add */, long(d.atom("_NET_WM_STATE_MAXIMIZED_VERT")),
                 long(d.atom("_NET_WM_STATE_MAXIMIZED_HORZ")), 2);
        return d.waitFor(id, timeout, [](const WindowInfo& w) { return w.maximized; }, "maximized");
    });
}

WindowInfo X11Windows::restore(uint64_t id, double timeout) {
    return impl_->bounded("window restore", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (!i.minimized && !i.maximized) return i;
        if (i.minimized) {
            // ICCCM: mapping an iconic window asks for the normal state.
            XMapWindow(d.dpy, Window(id));
            XFlush(d.dpy);
        }
        if (i.maximized)
            d.toRoot(Window(id), "_NET_WM_STATE", 0 /* remove */, long(d.atom("_NET_WM_STATE_MAXIMIZED_VERT")),
                     long(d.atom("_NET_WM_STATE_MAXIMIZED_HORZ")), 2);
        return d.waitFor(id, timeout, [](const WindowInfo& w) { return !w.minimized && !w.maximized; },
                         "neither minimized nor maximized");
    });
}

void X11Windows::close(uint64_t id, double timeout) {
    return impl_->bounded("window close", [&]() -> void {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        Atom* protocols = nullptr;
        int n = 0;
        bool deletable = false;
        std::string names;
        x11::trapBegin();
        Status ok = XGetWMProtocols(d.dpy, Window(id), &protocols, &n);
        x11::trapEnd(d.dpy);
        if (ok && protocols) {
            for (int k = 0; k < n; ++k) {
                if (protocols[k] == d.atom("WM_DELETE_WINDOW")) deletable = true;
                char* s = XGetAtomName(d.dpy, protocols[k]);
                if (s) {
                    names += (names.empty() ? "" : ", ") + std::string(s);
                    XFree(s);
                }
            }
            XFree(protocols);
        }
        if (!deletable)
            throw DeviceError("cannot close " + Impl::label(i) + ": it does not take WM_DELETE_WINDOW (its "
                              "WM_PROTOCOLS: " + (names.empty() ? "none" : names) +
                              "); eacu does not kill its program");
        XEvent e{};
        e.xclient.type = ClientMessage;
        e.xclient.window = Window(id);
        e.xclient.message_type = d.atom("WM_PROTOCOLS");
        e.xclient.format = 32;
        e.xclient.data.l[0] = long(d.atom("WM_DELETE_WINDOW"));
        e.xclient.data.l[1] = CurrentTime;
        XSendEvent(d.dpy, Window(id), False, NoEventMask, &e);
        XFlush(d.dpy);
        d.checkAlive();
        const double deadline = monotonicSeconds() + timeout;
        double step = 0.002;
        while (d.listed(Window(id))) {
            if (monotonicSeconds() >= deadline)
                throw DeviceError(Impl::label(i) + ": expected it to close within " +
                                  std::to_string(timeout).substr(0, 4) +
                                  " s after WM_DELETE_WINDOW, got it still open (the program may be asking "
                                  "for confirmation)");
            std::this_thread::sleep_for(std::chrono::duration<double>(step));
            step = std::min(step * 2, 0.02);
        }
    });
}

WindowInfo X11Windows::move(uint64_t id, int x, int y, double timeout) {
    return impl_->bounded("window move", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (i.x == x && i.y == y) return i;
        const double deadline = monotonicSeconds() + timeout;
        const std::string expected = "at " + std::to_string(x) + "," + std::to_string(y);
        d.moveResize(i, x, y, kKeep, kKeep);
        WindowInfo now = d.waitFor(
            id, timeout, [&](const WindowInfo& w) { return w.x != i.x || w.y != i.y; }, expected);
        if (now.x == x && now.y == y) return now;
        // Moved, but not there yet, or placed elsewhere: the request taken for the frame's corner
        // (a manager or a window gravity that ignores the client's own position). Give it a
        // moment, then ask again offset by the difference.
        auto there = [&](const WindowInfo& w) { return w.x == x && w.y == y; };
        try {
            return d.waitFor(id, std::min(0.1, std::max(0.0, deadline - monotonicSeconds())), there, expected);
        } catch (const DeviceError&) {
        }
        now = d.current(id);
        d.moveResize(now, x - (now.x - x), y - (now.y - y), kKeep, kKeep);
        return d.waitFor(id, std::max(0.05, deadline - monotonicSeconds()), there, expected);
    });
}

WindowInfo X11Windows::resize(uint64_t id, int w, int h, double timeout) {
    return impl_->bounded("window resize", [&]() -> WindowInfo {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (w <= 0 || h <= 0)
            throw DeviceError("resize " + Impl::label(i) + ": expected a positive size, got " +
                              std::to_string(w) + "x" + std::to_string(h));
        if (i.w == w && i.h == h) return i;
        d.moveResize(i, kKeep, kKeep, w, h);
        return d.waitFor(id, timeout, [&](const WindowInfo& n) { return n.w == w && n.h == h; },
                         "a client area of " + std::to_string(w) + "x" + std::to_string(h));
    });
}

}  // namespace eacu

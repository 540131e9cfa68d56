// X11Windows: EWMH/ICCCM window listing and control (see X11Windows.h).
// X11Windows.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11Windows.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/XKBlib.h>
#include <X11/extensions/XRes.h>
#include <X11/extensions/Xcomposite.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <thread>

#include "base/Frame.h"
#include "base/Utf8.h"
#include "device/x11/X11Errors.h"
#include "device/x11/X11Keys.h"

namespace eacu {

namespace {

constexpr int kKeep = INT_MIN;  // moveResize: leave this coordinate as it is

void onIOExit(Display*, void* data) { *static_cast<bool*>(data) = true; }

std::string hexId(uint64_t id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
    return buf;
}

}  // namespace

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

    ~Impl() {
        if (dpy) {
            for (Window w : redirected) {
                x11::trapBegin();
                XCompositeUnredirectWindow(dpy, w, CompositeRedirectAutomatic);
                x11::trapEnd(dpy);
            }
            XCloseDisplay(dpy);
            x11::releaseDisplay(dpy);
        }
    }

    void checkAlive() const {
        if (dead)
            throw DeviceError("X display " + name +
                              " went away (the X server exited or the connection broke)");
    }

    Atom atom(const char* n) {
        auto it = atoms.find(n);
        if (it != atoms.end()) return it->second;
        Atom a = XInternAtom(dpy, n, False);
        atoms.emplace(n, a);
        return a;
    }

    // A format-32 property as longs (empty when absent or on an X error).
    std::vector<unsigned long> prop32(Window w, const char* prop, Atom type = AnyPropertyType) {
        Atom actual = 0;
        int format = 0;
        unsigned long n = 0, after = 0;
        unsigned char* data = nullptr;
        std::vector<unsigned long> out;
        x11::trapBegin();
        int rc = XGetWindowProperty(dpy, w, atom(prop), 0, 4096, False, type, &actual, &format, &n,
                                    &after, &data);
        int err = x11::trapEnd(dpy);
        if (rc == Success && err == 0 && data && format == 32) {
            auto* v = reinterpret_cast<unsigned long*>(data);
            out.assign(v, v + n);
        }
        if (data) XFree(data);
        return out;
    }

    // A text property (UTF8_STRING, STRING or COMPOUND_TEXT) as UTF-8; "" when absent.
    std::string text(Window w, const char* prop) {
        XTextProperty tp{};
        x11::trapBegin();
        Status ok = XGetTextProperty(dpy, w, &tp, atom(prop));
        int err = x11::trapEnd(dpy);
        std::string out;
        if (ok && !err && tp.value && tp.nitems) {
            if (tp.encoding == atom("UTF8_STRING")) {
                out.assign(reinterpret_cast<char*>(tp.value), tp.nitems);
            } else if (tp.encoding == XA_STRING) {
                for (unsigned long i = 0; i < tp.nitems; ++i) {  // Latin-1 to UTF-8
                    unsigned char c = tp.value[i];
                    if (c < 0x80) out += char(c);
                    else {
                        out += char(0xC0 | (c >> 6));
                        out += char(0x80 | (c & 0x3F));
                    }
                }
            } else {
                char** list = nullptr;
                int count = 0;
                if (Xutf8TextPropertyToTextList(dpy, &tp, &list, &count) >= Success && list) {
                    if (count > 0 && list[0]) out = list[0];
                    XFreeStringList(list);
                }
            }
            auto nul = out.find('\0');
            if (nul != std::string::npos) out.resize(nul);
        }
        if (tp.value) XFree(tp.value);
        return out;
    }

    // The window manager's check window, 0 when none runs.
    Window wmCheck() {
        auto v = prop32(root, "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
        if (v.empty() || !v[0]) return 0;
        auto self = prop32(Window(v[0]), "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
        return !self.empty() && self[0] == v[0] ? Window(v[0]) : 0;
    }

    bool hasClass(Window w) {
        XClassHint hint{};
        x11::trapBegin();
        Status ok = XGetClassHint(dpy, w, &hint);
        int err = x11::trapEnd(dpy);
        bool has = ok && !err;
        if (hint.res_name) XFree(hint.res_name);
        if (hint.res_class) XFree(hint.res_class);
        return has;
    }

    bool viewable(Window w) {
        XWindowAttributes a;
        x11::trapBegin();
        Status ok = XGetWindowAttributes(dpy, w, &a);
        int err = x11::trapEnd(dpy);
        return ok && !err && a.map_state == IsViewable && a.c_class == InputOutput;
    }

    std::vector<Window> children(Window w) {
        Window r = 0, parent = 0, *kids = nullptr;
        unsigned n = 0;
        std::vector<Window> out;
        x11::trapBegin();
        Status ok = XQueryTree(dpy, w, &r, &parent, &kids, &n);
        int err = x11::trapEnd(dpy);
        if (ok && !err && kids) out.assign(kids, kids + n);
        if (kids) XFree(kids);
        return out;
    }

    // Client windows, bottom first: _NET_CLIENT_LIST_STACKING (else _NET_CLIENT_LIST) with a window manager, else the root's mapped children
    // carrying WM_CLASS (or their first child that does: a manager without EWMH reparents).
    std::vector<Window> clients() {
        checkAlive();
        if (wmCheck()) {
            auto v = prop32(root, "_NET_CLIENT_LIST_STACKING", XA_WINDOW);
            if (v.empty()) v = prop32(root, "_NET_CLIENT_LIST", XA_WINDOW);
            if (!v.empty()) return {v.begin(), v.end()};
        }
        std::vector<Window> out;
        for (Window c : children(root)) {
            if (!viewable(c)) continue;
            if (hasClass(c)) {
                out.push_back(c);
                continue;
            }
            for (Window g : children(c))
                if (hasClass(g) && viewable(g)) {
                    out.push_back(g);
                    break;
                }
        }
        return out;
    }

    int pidOf(Window w) {
        auto v = prop32(w, "_NET_WM_PID", XA_CARDINAL);
        if (!v.empty() && v[0]) return int(v[0]);
        if (!xres) return 0;
        XResClientIdSpec spec{w, XRES_CLIENT_ID_PID_MASK};
        long n = 0;
        XResClientIdValue* values = nullptr;
        int pid = 0;
        x11::trapBegin();
        Status st = XResQueryClientIds(dpy, 1, &spec, &n, &values);
        int err = x11::trapEnd(dpy);
        if (st == Success && !err) {
            for (long i = 0; i < n; ++i)
                if (XResGetClientIdType(&values[i]) == XRES_CLIENT_ID_PID) {
                    pid_t p = XResGetClientPid(&values[i]);
                    if (p > 0) pid = int(p);
                }
            XResClientIdsDestroy(n, values);
        }
        return pid;
    }

    // The focused client, 0 when none.
    Window activeId() {
        if (wmCheck()) {
            auto v = prop32(root, "_NET_ACTIVE_WINDOW", XA_WINDOW);
            if (!v.empty() && v[0]) return Window(v[0]);
        }
        Window focus = 0;
        int revert = 0;
        XGetInputFocus(dpy, &focus, &revert);
        if (focus == None || focus == PointerRoot || focus == root) return 0;
        auto list = clients();
        // The focus is a client, one of its descendants, or a manager's frame around one.
        for (Window w = focus; w && w != root;) {
            if (std::find(list.begin(), list.end(), w) != list.end()) return w;
            for (Window c : list) {
                Window r = 0, parent = 0, *kids = nullptr;
                unsigned n = 0;
                x11::trapBegin();
                Status ok = XQueryTree(dpy, c, &r, &parent, &kids, &n);
                x11::trapEnd(dpy);
                if (kids) XFree(kids);
                if (ok && parent == w) return c;
            }
            Window r = 0, parent = 0, *kids = nullptr;
            unsigned n = 0;
            x11::trapBegin();
            Status ok = XQueryTree(dpy, w, &r, &parent, &kids, &n);
            int err = x11::trapEnd(dpy);
            if (kids) XFree(kids);
            if (!ok || err) break;
            w = parent;
        }
        return 0;
    }

    std::optional<WindowInfo> describe(Window w, Window active) {
        checkAlive();
        XWindowAttributes a;
        x11::trapBegin();
        Status ok = XGetWindowAttributes(dpy, w, &a);
        int err = x11::trapEnd(dpy);
        if (!ok || err) return std::nullopt;
        WindowInfo i;
        i.id = w;
        i.w = a.width;
        i.h = a.height;
        Window child = 0;
        x11::trapBegin();
        ok = XTranslateCoordinates(dpy, w, root, 0, 0, &i.x, &i.y, &child);
        err = x11::trapEnd(dpy);
        if (!ok || err) return std::nullopt;
        i.title = text(w, "_NET_WM_NAME");
        if (i.title.empty()) i.title = text(w, "WM_NAME");
        XClassHint hint{};
        x11::trapBegin();
        Status has_class = XGetClassHint(dpy, w, &hint);
        x11::trapEnd(dpy);
        if (has_class) {
            if (hint.res_name) i.instance = hint.res_name;
            if (hint.res_class) i.cls = hint.res_class;
        }
        if (hint.res_name) XFree(hint.res_name);
        if (hint.res_class) XFree(hint.res_class);
        i.pid = pidOf(w);
        auto state = prop32(w, "_NET_WM_STATE", XA_ATOM);
        auto has = [&](const char* s) {
            return std::find(state.begin(), state.end(), atom(s)) != state.end();
        };
        auto wm_state = prop32(w, "WM_STATE");
        i.minimized = has("_NET_WM_STATE_HIDDEN") || (!wm_state.empty() && wm_state[0] == IconicState);
        i.maximized = has("_NET_WM_STATE_MAXIMIZED_VERT") && has("_NET_WM_STATE_MAXIMIZED_HORZ");
        auto desk = prop32(w, "_NET_WM_DESKTOP", XA_CARDINAL);
        i.desktop = desk.empty() || desk[0] == 0xFFFFFFFFul ? -1 : int(desk[0]);
        i.focused = w == active;
        return i;
    }

    // A client message about `w` to the root window (EWMH requests to the window manager).
    void toRoot(Window w, const char* type, long d0, long d1 = 0, long d2 = 0, long d3 = 0,
                long d4 = 0) {
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

    bool listed(Window w) {
        auto list = clients();
        return std::find(list.begin(), list.end(), w) != list.end() && viewableOrIconic(w);
    }

    bool viewableOrIconic(Window w) {
        if (wmCheck()) {
            XWindowAttributes a;
            x11::trapBegin();
            Status ok = XGetWindowAttributes(dpy, w, &a);
            return x11::trapEnd(dpy) == 0 && ok;
        }
        return viewable(w);
    }

    WindowInfo current(uint64_t id) {
        auto i = describe(Window(id), activeId());
        if (!i) throw DeviceError("window " + hexId(id) + " is gone");
        return *i;
    }

    static std::string label(const WindowInfo& i) {
        return "window " + hexId(i.id) + " \"" + i.title + "\" (" + i.cls + ")";
    }

    static std::string state(const WindowInfo& i) {
        return "at " + std::to_string(i.x) + "," + std::to_string(i.y) + " " + std::to_string(i.w) +
               "x" + std::to_string(i.h) + (i.focused ? ", focused" : ", not focused") +
               (i.minimized ? ", minimized" : "") + (i.maximized ? ", maximized" : "");
    }

    // The state reached may come in several steps (a manager sets _NET_WM_STATE, then moves
    // the frame, or animates it): re-reads every 10 ms until the reads of 40 ms agree (at most
    // 1 s) while `ok` holds.
    WindowInfo settle(uint64_t id, WindowInfo last, const std::function<bool(const WindowInfo&)>& ok) {
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

    // Polls until `ok` holds for the window (returns it), else throws DeviceError naming
    // `expected` and the last state seen.
    WindowInfo waitFor(uint64_t id, double timeout, const std::function<bool(const WindowInfo&)>& ok,
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

    void needWm(const WindowInfo& i, const char* what) {
        if (!wmCheck())
            throw DeviceError("cannot " + std::string(what) + " " + label(i) + ": that needs a window "
                              "manager and none runs on " + name + " (eacu run --display virtual --wm openbox)");
    }

    // Requests the client area's position (x, y) and size (w, h); kKeep leaves one as it is.
    void moveResize(const WindowInfo& i, int x, int y, int w, int h) {
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
};

X11Windows::X11Windows(const std::string& display_name, double scale) : impl_(std::make_unique<Impl>()) {
    impl_->scale = scale;
    x11::installHandlers();
    Impl& d = *impl_;
    d.dpy = XOpenDisplay(display_name.empty() ? nullptr : display_name.c_str());
    if (!d.dpy)
        throw DeviceError("cannot open X display \"" + display_name + "\" for its windows");
    x11::adoptDisplay(d.dpy);
    XSetIOErrorExitHandler(d.dpy, onIOExit, &d.dead);
    d.name = DisplayString(d.dpy);
    d.screen = DefaultScreen(d.dpy);
    d.root = RootWindow(d.dpy, d.screen);
    int ev = 0, err = 0, major = 0, minor = 0;
    int cmajor = 0, cminor = 2;
    d.composite = XCompositeQueryExtension(d.dpy, &ev, &err) && XCompositeQueryVersion(d.dpy, &cmajor, &cminor) &&
                  (cmajor > 0 || cminor >= 2);
    d.xres = XResQueryExtension(d.dpy, &ev, &err) && XResQueryVersion(d.dpy, &major, &minor) &&
             (major > 1 || (major == 1 && minor >= 2));
}

X11Windows::~X11Windows() = default;

bool X11Windows::hasWindowManager() { return impl_->wmCheck() != 0; }

std::vector<WindowInfo> X11Windows::list() {
    Impl& d = *impl_;
    Window active = d.activeId();
    std::vector<WindowInfo> out;
    for (Window w : d.clients())
        if (auto i = d.describe(w, active)) out.push_back(std::move(*i));
    return out;
}

std::optional<WindowInfo> X11Windows::info(uint64_t id) {
    return impl_->describe(Window(id), impl_->activeId());
}

std::optional<WindowInfo> X11Windows::frontmost() {
    Impl& d = *impl_;
    Window a = d.activeId();
    if (!a) return std::nullopt;
    return d.describe(a, a);
}

WindowInfo X11Windows::focus(uint64_t id, double timeout) {
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
}

WindowInfo X11Windows::minimize(uint64_t id, double timeout) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    if (i.minimized) return i;
    d.needWm(i, "minimize");
    XIconifyWindow(d.dpy, Window(id), d.screen);
    XFlush(d.dpy);
    return d.waitFor(id, timeout, [](const WindowInfo& w) { return w.minimized; }, "minimized");
}

WindowInfo X11Windows::maximize(uint64_t id, double timeout) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    if (i.maximized) return i;
    d.needWm(i, "maximize");
    d.toRoot(Window(id), "_NET_WM_STATE", 1 /* add */, long(d.atom("_NET_WM_STATE_MAXIMIZED_VERT")),
             long(d.atom("_NET_WM_STATE_MAXIMIZED_HORZ")), 2);
    return d.waitFor(id, timeout, [](const WindowInfo& w) { return w.maximized; }, "maximized");
}

WindowInfo X11Windows::restore(uint64_t id, double timeout) {
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
}

void X11Windows::close(uint64_t id, double timeout) {
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
}

WindowInfo X11Windows::move(uint64_t id, int x, int y, double timeout) {
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
}

WindowInfo X11Windows::resize(uint64_t id, int w, int h, double timeout) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    if (w <= 0 || h <= 0)
        throw DeviceError("resize " + Impl::label(i) + ": expected a positive size, got " +
                          std::to_string(w) + "x" + std::to_string(h));
    if (i.w == w && i.h == h) return i;
    d.moveResize(i, kKeep, kKeep, w, h);
    return d.waitFor(id, timeout, [&](const WindowInfo& n) { return n.w == w && n.h == h; },
                     "a client area of " + std::to_string(w) + "x" + std::to_string(h));
}

namespace {

// An XImage (ZPixmap) as 8-bit BGR.
cv::Mat toBgr(XImage* img) {
    cv::Mat out(img->height, img->width, CV_8UC3);
    if (img->bits_per_pixel == 32 && img->red_mask == 0xff0000 && img->green_mask == 0xff00 &&
        img->blue_mask == 0xff && img->byte_order == LSBFirst) {
        cv::Mat bgra(img->height, img->width, CV_8UC4, img->data, size_t(img->bytes_per_line));
        cv::cvtColor(bgra, out, cv::COLOR_BGRA2BGR);
        return out;
    }
    auto channel = [](unsigned long px, unsigned long mask) {
        if (!mask) return 0;
        int shift = 0;
        while (!(mask & 1)) {
            mask >>= 1;
            ++shift;
        }
        return int(((px >> shift) & mask) * 255 / mask);
    };
    for (int y = 0; y < img->height; ++y)
        for (int x = 0; x < img->width; ++x) {
            unsigned long px = XGetPixel(img, x, y);
            out.at<cv::Vec3b>(y, x) = {uchar(channel(px, img->blue_mask)), uchar(channel(px, img->green_mask)),
                                       uchar(channel(px, img->red_mask))};
        }
    return out;
}

}  // namespace

WindowCapture X11Windows::capture(uint64_t id) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    if (!d.composite)
        throw DeviceError("cannot capture " + Impl::label(i) + " on its own: X display " + d.name +
                          " has no Composite extension (0.2 or later)");
    if (i.minimized)
        throw DeviceError("cannot capture " + Impl::label(i) + ": it is minimized, so nothing is drawn (restore it first)");
    const Window w = Window(id);
    bool fresh = false;
    if (!d.redirected.count(w)) {
        x11::trapBegin();
        XCompositeRedirectWindow(d.dpy, w, CompositeRedirectAutomatic);
        if (int err = x11::trapEnd(d.dpy))
            throw DeviceError("cannot capture " + Impl::label(i) + ": XCompositeRedirectWindow failed (X error " +
                              std::to_string(err) + ")");
        d.redirected.insert(w);
        fresh = true;
    }
    auto grab = [&]() -> cv::Mat {
        WindowInfo now = d.current(id);
        i = now;
        x11::trapBegin();
        Pixmap pm = XCompositeNameWindowPixmap(d.dpy, w);
        XImage* img = XGetImage(d.dpy, pm, 0, 0, unsigned(now.w), unsigned(now.h), AllPlanes, ZPixmap);
        int err = x11::trapEnd(d.dpy);
        if (pm) XFreePixmap(d.dpy, pm);
        if (!img || err) {
            if (img) XDestroyImage(img);
            d.checkAlive();
            throw DeviceError("cannot capture " + Impl::label(now) + ": its pixmap cannot be read (X error " +
                              std::to_string(err) + "; is it mapped?)");
        }
        // An image of a pixmap carries no visual: its colour masks are the window's.
        XWindowAttributes a;
        x11::trapBegin();
        Status have = XGetWindowAttributes(d.dpy, w, &a);
        if (x11::trapEnd(d.dpy) == 0 && have && a.visual) {
            img->red_mask = a.visual->red_mask;
            img->green_mask = a.visual->green_mask;
            img->blue_mask = a.visual->blue_mask;
        }
        cv::Mat bgr = toBgr(img);
        XDestroyImage(img);
        return bgr;
    };
    cv::Mat pixels = grab();
    if (fresh) {
        // The program redraws a freshly redirected window: wait until three reads agree.
        const double deadline = monotonicSeconds() + 1.0;
        int same = 0;
        while (same < 2 && monotonicSeconds() < deadline) {
            std::this_thread::sleep_for(std::chrono::milliseconds(30));
            cv::Mat again = grab();
            bool equal = again.size() == pixels.size() && cv::norm(again, pixels, cv::NORM_INF) == 0;
            same = equal ? same + 1 : 0;
            pixels = again;
        }
    }
    WindowCapture c;
    c.frame.bgr = pixels;
    c.frame.scale = d.scale;
    c.frame.timestamp = wallSeconds();
    c.frame.monotonic = monotonicSeconds();
    c.origin = {i.x, i.y};
    return c;
}

std::optional<WindowInfo> X11Windows::windowAt(Point p) {
    Impl& d = *impl_;
    d.checkAlive();
    std::vector<Window> top = d.children(d.root);  // bottom first
    for (auto it = top.rbegin(); it != top.rend(); ++it) {
        XWindowAttributes a;
        x11::trapBegin();
        Status ok = XGetWindowAttributes(d.dpy, *it, &a);
        int err = x11::trapEnd(d.dpy);
        if (!ok || err || a.map_state != IsViewable || a.c_class != InputOutput) continue;
        const int bw = a.border_width;
        if (p.x < a.x || p.y < a.y || p.x >= a.x + a.width + 2 * bw || p.y >= a.y + a.height + 2 * bw) continue;
        // The client inside a manager's frame: the first descendant (breadth first) with WM_STATE.
        std::vector<Window> level{*it};
        for (int depth = 0; depth < 4 && !level.empty(); ++depth) {
            std::vector<Window> next;
            for (Window w : level) {
                if (!d.prop32(w, "WM_STATE").empty()) {
                    auto i = d.describe(w, d.activeId());
                    if (i) return i;
                }
                for (Window c : d.children(w)) next.push_back(c);
            }
            level = std::move(next);
        }
        auto i = d.describe(*it, d.activeId());  // a menu, a tooltip, a manager's own window
        if (i) return i;
    }
    return std::nullopt;
}

namespace {

// X11 button numbers are the run log's (MouseButton.h).
unsigned x11Button(MouseButton b) { return unsigned(buttonNumber(b)); }

unsigned modifierMask(unsigned long keysym) {
    switch (keysym) {
    case XK_Shift_L: case XK_Shift_R: return ShiftMask;
    case XK_Control_L: case XK_Control_R: return ControlMask;
    case XK_Alt_L: case XK_Alt_R: case XK_Meta_L: case XK_Meta_R: return Mod1Mask;
    case XK_Super_L: case XK_Super_R: return Mod4Mask;
    default: return 0;
    }
}

}  // namespace

// The innermost mapped child of `id` that contains the screen point p, with p in its
// coordinates.
static Window innermostAt(Display* dpy, Window root, Window id, Point p, int& x, int& y) {
    Window w = id;
    for (int depth = 0; depth < 32; ++depth) {
        Window child = 0;
        x11::trapBegin();
        Bool ok = XTranslateCoordinates(dpy, root, w, p.x, p.y, &x, &y, &child);
        int err = x11::trapEnd(dpy);
        if (!ok || err || child == None) break;
        w = child;
    }
    x11::trapBegin();
    Window child = 0;
    XTranslateCoordinates(dpy, root, w, p.x, p.y, &x, &y, &child);
    x11::trapEnd(dpy);
    return w;
}

void X11Windows::sendClick(uint64_t id, Point p, MouseButton button, int count) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    int x = 0, y = 0;
    Window target = innermostAt(d.dpy, d.root, Window(id), p, x, y);
    auto ev = [&](int type, unsigned state) {
        XEvent e{};
        if (type == MotionNotify) {
            e.xmotion.type = MotionNotify;
            e.xmotion.display = d.dpy;
            e.xmotion.window = target;
            e.xmotion.root = d.root;
            e.xmotion.time = CurrentTime;
            e.xmotion.x = x;
            e.xmotion.y = y;
            e.xmotion.x_root = p.x;
            e.xmotion.y_root = p.y;
            e.xmotion.same_screen = True;
        } else if (type == EnterNotify || type == LeaveNotify) {
            e.xcrossing.type = type;
            e.xcrossing.display = d.dpy;
            e.xcrossing.window = target;
            e.xcrossing.root = d.root;
            e.xcrossing.time = CurrentTime;
            e.xcrossing.x = x;
            e.xcrossing.y = y;
            e.xcrossing.x_root = p.x;
            e.xcrossing.y_root = p.y;
            e.xcrossing.mode = NotifyNormal;
            e.xcrossing.detail = NotifyAncestor;
            e.xcrossing.same_screen = True;
        } else {
            e.xbutton.type = type;
            e.xbutton.display = d.dpy;
            e.xbutton.window = target;
            e.xbutton.root = d.root;
            e.xbutton.subwindow = None;
            e.xbutton.time = CurrentTime;
            e.xbutton.x = x;
            e.xbutton.y = y;
            e.xbutton.x_root = p.x;
            e.xbutton.y_root = p.y;
            e.xbutton.state = state;
            e.xbutton.button = x11Button(button);
            e.xbutton.same_screen = True;
        }
        long mask = type == ButtonPress ? ButtonPressMask : type == ButtonRelease ? ButtonReleaseMask
                  : type == EnterNotify ? EnterWindowMask : type == LeaveNotify ? LeaveWindowMask
                  : PointerMotionMask;
        x11::trapBegin();
        Status ok = XSendEvent(d.dpy, target, True, mask, &e);
        int err = x11::trapEnd(d.dpy);
        if (!ok || err)
            throw DeviceError("cannot send a click to " + Impl::label(i) + ": XSendEvent failed (X error " +
                              std::to_string(err) + ")");
    };
    const unsigned held = Button1Mask << (x11Button(button) - 1);
    ev(EnterNotify, 0);
    ev(MotionNotify, 0);
    for (int k = 0; k < std::max(1, count); ++k) {
        ev(ButtonPress, 0);
        ev(ButtonRelease, held);
    }
    try {
        ev(LeaveNotify, 0);  // the pointer never came: no hover highlight stays behind
    } catch (const DeviceError&) {
        // The click closed the window (a dialog's button): nothing to leave.
    }
    XFlush(d.dpy);
    d.checkAlive();
}

namespace {

struct KeyEventTarget {
    Window window = 0;
    int x = 0, y = 0, x_root = 0, y_root = 0;
};

}  // namespace

// Sends KeyPress and KeyRelease of `keycode` with modifier `state` to `t`.
static Status sendKey(Display* dpy, Window root, const KeyEventTarget& t, unsigned keycode, unsigned state,
                      int type) {
    XEvent e{};
    e.xkey.type = type;
    e.xkey.display = dpy;
    e.xkey.window = t.window;
    e.xkey.root = root;
    e.xkey.subwindow = None;
    e.xkey.time = CurrentTime;
    e.xkey.x = t.x;
    e.xkey.y = t.y;
    e.xkey.x_root = t.x_root;
    e.xkey.y_root = t.y_root;
    e.xkey.state = state;
    e.xkey.keycode = keycode;
    e.xkey.same_screen = True;
    return XSendEvent(dpy, t.window, True, type == KeyPress ? KeyPressMask : KeyReleaseMask, &e);
}

// Where key events for `id` go: the innermost child under the window's centre (toolkits
// without their own focus handling dispatch keys to the widget they arrive at), with the
// coordinates a real event would carry.
static KeyEventTarget keyTarget(Display* dpy, Window root, const WindowInfo& i) {
    KeyEventTarget t;
    Point c{i.x + i.w / 2, i.y + i.h / 2};
    t.window = innermostAt(dpy, root, Window(i.id), c, t.x, t.y);
    t.x_root = c.x;
    t.y_root = c.y;
    return t;
}

void X11Windows::sendKeys(uint64_t id, const std::vector<Key>& combo) {
    Impl& d = *impl_;
    WindowInfo i = d.current(id);
    KeyEventTarget t = keyTarget(d.dpy, d.root, i);
    std::vector<std::pair<unsigned, unsigned>> codes;  // keycode, modifier mask it adds
    for (const Key& k : combo) {
        unsigned long sym = keysymFor(k);
        KeyCode kc = XKeysymToKeycode(d.dpy, KeySym(sym));
        if (!kc) {
            const char* name = XKeysymToString(KeySym(sym));
            throw DeviceError(std::string("cannot send the key ") + (name ? name : std::to_string(sym)) + " to " +
                              Impl::label(i) + ": no key of the keyboard map has it (use focus + key instead)");
        }
        unsigned mask = modifierMask(sym);
        if (!mask && XkbKeycodeToKeysym(d.dpy, kc, 0, 0) != KeySym(sym) && XkbKeycodeToKeysym(d.dpy, kc, 0, 1) == KeySym(sym))
            mask = ShiftMask;  // a character on the shifted level
        codes.push_back({kc, mask});
    }
    unsigned state = 0;
    x11::trapBegin();
    for (size_t k = 0; k < codes.size(); ++k) {
        bool last = k + 1 == codes.size();
        unsigned extra = last && !modifierMask(keysymFor(combo[k])) ? codes[k].second : 0;
        sendKey(d.dpy, d.root, t, codes[k].first, state | extra, KeyPress);
        if (!last) state |= codes[k].second;
        else sendKey(d.dpy, d.root, t, codes[k].first, state | extra, KeyRelease);
    }
    for (size_t k = codes.size(); k-- > 1;) {
        state &= ~codes[k - 1].second;
        sendKey(d.dpy, d.root, t, codes[k - 1].first, state, KeyRelease);
    }
    // An error after the window took the keys (it closed on Return, say) is no failure: only a
    // window gone before them is, and current() above has seen it there.
    x11::trapEnd(d.dpy);
    XFlush(d.dpy);
    d.checkAlive();
}

void X11Windows::sendText(uint64_t id, const std::string& text) {
    std::u32string cps = decodeUtf8(text);
    for (char32_t cp : cps) sendKeys(id, {Key::character(cp)});
}

}  // namespace eacu

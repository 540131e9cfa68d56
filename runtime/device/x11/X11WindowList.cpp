// X11Windows: reading windows (EWMH/ICCCM properties, the client list, the focused window,
// the window at a point).
// X11WindowsImpl.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11WindowsImpl.h"

#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/XRes.h>

#include <algorithm>
#include <cstdio>

#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

std::string hexId(uint64_t id) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(id));
    return buf;
}

}  // namespace

std::vector<unsigned long> X11Windows::Impl::prop32(Window w, const char* prop, Atom type) {
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

std::string X11Windows::Impl::text(Window w, const char* prop) {
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

Window X11Windows::Impl::wmCheck() {
    auto v = prop32(root, "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
    if (v.empty() || !v[0]) return 0;
    auto self = prop32(Window(v[0]), "_NET_SUPPORTING_WM_CHECK", XA_WINDOW);
    return !self.empty() && self[0] == v[0] ? Window(v[0]) : 0;
}

bool X11Windows::Impl::hasClass(Window w) {
    XClassHint hint{};
    x11::trapBegin();
    Status ok = XGetClassHint(dpy, w, &hint);
    int err = x11::trapEnd(dpy);
    bool has = ok && !err;
    if (hint.res_name) XFree(hint.res_name);
    if (hint.res_class) XFree(hint.res_class);
    return has;
}

bool X11Windows::Impl::viewable(Window w) {
    XWindowAttributes a;
    x11::trapBegin();
    Status ok = XGetWindowAttributes(dpy, w, &a);
    int err = x11::trapEnd(dpy);
    return ok && !err && a.map_state == IsViewable && a.c_class == InputOutput;
}

std::vector<Window> X11Windows::Impl::children(Window w) {
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

std::vector<Window> X11Windows::Impl::clients() {
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

int X11Windows::Impl::pidOf(Window w) {
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

Window X11Windows::Impl::activeId() {
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

std::optional<WindowInfo> X11Windows::Impl::describe(Window w, Window active) {
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

bool X11Windows::Impl::listed(Window w) {
    auto list = clients();
    return std::find(list.begin(), list.end(), w) != list.end() && viewableOrIconic(w);
}

bool X11Windows::Impl::viewableOrIconic(Window w) {
    if (wmCheck()) {
        XWindowAttributes a;
        x11::trapBegin();
        Status ok = XGetWindowAttributes(dpy, w, &a);
        return x11::trapEnd(dpy) == 0 && ok;
    }
    return viewable(w);
}

WindowInfo X11Windows::Impl::current(uint64_t id) {
    auto i = describe(Window(id), activeId());
    if (!i) throw DeviceError("window " + hexId(id) + " is gone");
    return *i;
}

std::string X11Windows::Impl::label(const WindowInfo& i) {
    return "window " + hexId(i.id) + " \"" + i.title + "\" (" + i.cls + ")";
}

std::string X11Windows::Impl::state(const WindowInfo& i) {
    return "at " + std::to_string(i.x) + "," + std::to_string(i.y) + " " + std::to_string(i.w) +
           "x" + std::to_string(i.h) + (i.focused ? ", focused" : ", not focused") +
           (i.minimized ? ", minimized" : "") + (i.maximized ? ", maximized" : "");
}

bool X11Windows::hasWindowManager() {
    return impl_->bounded("window manager check", [&] { return impl_->wmCheck() != 0; });
}

std::vector<WindowInfo> X11Windows::list() {
    return impl_->bounded("window list", [&]() -> std::vector<WindowInfo> {
        Impl& d = *impl_;
        Window active = d.activeId();
        std::vector<WindowInfo> out;
        for (Window w : d.clients())
            if (auto i = d.describe(w, active)) out.push_back(std::move(*i));
        return out;
    });
}

std::optional<WindowInfo> X11Windows::info(uint64_t id) {
    return impl_->bounded("window list", [&]() -> std::optional<WindowInfo> {
        return impl_->describe(Window(id), impl_->activeId());
    });
}

std::optional<WindowInfo> X11Windows::frontmost() {
    return impl_->bounded("window list", [&]() -> std::optional<WindowInfo> {
        Impl& d = *impl_;
        Window a = d.activeId();
        if (!a) return std::nullopt;
        return d.describe(a, a);
    });
}

std::optional<WindowInfo> X11Windows::windowAt(Point p) {
    return impl_->bounded("window list", [&]() -> std::optional<WindowInfo> {
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
    });
}

}  // namespace eacu

// X11Windows: clicks and keys sent to one window as events (XSendEvent), the pointer and the
// keyboard left alone.
// X11WindowsImpl.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11WindowsImpl.h"

#include <X11/XKBlib.h>
#include <X11/keysym.h>

#include <algorithm>

#include "base/Utf8.h"
#include "device/x11/X11Errors.h"
#include "device/x11/X11Keys.h"

namespace eacu {

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
    return impl_->bounded("window click", [&]() -> void {
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
    });
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
    return impl_->bounded("window keys", [&]() -> void {
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
    });
}

void X11Windows::sendText(uint64_t id, const std::string& text) {
    return impl_->bounded("window text", [&]() -> void {
        std::u32string cps = decodeUtf8(text);
        for (char32_t cp : cps) sendKeys(id, {Key::character(cp)});
    });
}

}  // namespace eacu

// X11Device's proof that typed keys reached the program: before a keycode we remapped changes
// meaning again (reused for another character, or restored), the client that received its keys
// must have translated them. A client learns of a mapping change from an event, and Xlib (XKB)
// marks its cached keymap stale as soon as it *reads* that event from the socket, then fetches
// the map afresh at its next key lookup: if the change back arrives while the key press still
// waits in the client's queue (Tk moves every X event into its own queue before it runs the
// bindings that look keys up), the key reads as NoSymbol. The X protocol has no way to ask
// another client what it has processed; what can be seen is its drawing: toolkits repaint once
// they have handled their pending input. So a remapped keycode is changed only once the window
// holding the focus has been drawn after the server processed the keycode's last key event
// (a DAMAGE event whose serial, our last request the server had processed when it was sent, is
// at least that key event's request) and then stayed undrawn for kQuiet, or once kMaxHold has
// passed since that key was sent (a client that shows nothing).
// xdotool restores its scratch keycode after a fixed pause instead (xdo.c, usleep after
// XChangeKeyboardMapping), which loses keys whenever the client is slower than the pause.
#include "device/x11/X11DeviceImpl.h"

#include <X11/extensions/Xdamage.h>

#include <algorithm>
#include <chrono>
#include <thread>

#include "base/Clock.h"
#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

// How long the focused window must stay undrawn after a drawing since the key was delivered.
// A drawing proves less than it seems: a client with a backlog draws what it handled before
// (after our key reached its socket) and only then looks our key up, and between the two it
// may load fonts for a new glyph (Tk and GTK take 100 ms and more for a CJK fallback font)
// without drawing. Not enough for Tk yet: with keycodes reused (50 mixed strings), Tk still
// read 7 of 50 strings wrong with 30 ms and 3 with 150 ms (docs/not-there-yet.md).
constexpr double kQuiet = 0.15;
// The longest a changed mapping waits for the client to show the keys (a field that shows
// nothing, a password entry drawn once). Generous: a first CJK glyph makes Tk or GTK load
// fallback fonts for hundreds of milliseconds before it draws.
constexpr double kMaxHold = 2.0;
// Without DAMAGE (a server that lacks it, a window gone): a fixed pause after the last key.
constexpr double kBlindHold = 0.25;

}  // namespace

void X11Device::Impl::watchFocus() {
    if (damage_event == -1) {
        int err = 0;
        if (!XDamageQueryExtension(dpy, &damage_event, &err)) damage_event = -2;
    }
    if (damage_event < 0) return;
    Window focus = 0;
    int revert = 0;
    XGetInputFocus(dpy, &focus, &revert);
    checkAlive();
    // The top-level: the ancestor that is a child of the root (the window manager's frame).
    Window top = root;
    if (focus != None && focus != PointerRoot && focus != root) {
        x11::trapBegin();
        Window w = focus;
        for (int depth = 0; depth < 64; ++depth) {
            Window r = 0, parent = 0, *kids = nullptr;
            unsigned n = 0;
            if (!XQueryTree(dpy, w, &r, &parent, &kids, &n)) break;
            if (kids) XFree(kids);
            if (parent == root || parent == 0) {
                top = w;
                break;
            }
            w = parent;
        }
        x11::trapEnd(dpy);
        checkAlive();
    }
    if (top == damage_win && damage) return;
    x11::trapBegin();
    if (damage) XDamageDestroy(dpy, damage);
    damage = XDamageCreate(dpy, top, XDamageReportRawRectangles);  // an event per drawing
    int err = x11::trapEnd(dpy);  // the window may have gone meanwhile
    checkAlive();
    damage_win = err ? 0 : top;
    if (err) damage = 0;
}

void X11Device::Impl::pollDraws() {
    if (damage_event < 0 || !damage) return;
    while (XPending(dpy)) {
        XEvent ev;
        XNextEvent(dpy, &ev);
        if (ev.type == damage_event + XDamageNotify) {
            drawn_serial = std::max(drawn_serial, ev.xany.serial);
            drawn_at = monotonicSeconds();
        }
    }
    checkAlive();
}

void X11Device::Impl::waitShown(int kc) {
    auto it = last_use.find(kc);
    auto ser = key_serial.find(kc);
    if (it == last_use.end() || ser == key_serial.end()) return;
    const double sent = it->second;
    const unsigned long serial = ser->second;
    for (;;) {
        pollDraws();
        double t = monotonicSeconds();
        if (drawn_serial >= serial && t - drawn_at >= kQuiet) return;
        if (t - sent >= ((damage_event < 0 || !damage) ? kBlindHold : kMaxHold)) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace eacu

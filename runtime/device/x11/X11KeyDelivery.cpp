// X11Device's proof that typed keys reached the program: before a keycode we remapped changes
// meaning again (reused for another character, or restored), the client that received its keys
// must have translated them. A client learns of a mapping change from an event, and Xlib (XKB)
// marks its cached keymap stale as soon as it *reads* that event from the socket, then fetches
// the changed keys afresh at its next key lookup: a key press still waiting in the client's queue
// (Tk moves every X event into its own queue before it runs the bindings that look keys up) is
// translated with whatever the server's map is when the client gets to it. So a keycode may
// change only once every press of it has been translated.
//
// The proof: _NET_WM_PING (EWMH). We send the client window that received the keys a ping
// after them; the X server queues it to that client behind the keys (XTEST delivers a fake key
// while it processes the request, before our next request), and a client handles its events in
// order, so its answer (sent back to the root window) comes after it has handled, and
// translated, every key before it. The same ping after a change of mapping proves the client
// has handled the change's MappingNotify (and fetched the map) before our first key on it: Xlib
// loses a change whose notify it reads while it fetches the map for an earlier one (XKBBind.c
// clears the noted changes after the fetch), so keys sent right after a change could still
// read the old keysym. One ping proves every key before it, so a run pings about twice per
// spare keycode's worth of new characters (all of a chunk's new mappings are made at once,
// before its first key), not per key.
// Only clients that answer pings are pinged: those listing _NET_WM_PING in WM_PROTOCOLS (EWMH)
// and Tk, which always answers it (tkUnixWm.c) but leaves it out of the list; others may take
// any WM_PROTOCOLS message for WM_DELETE_WINDOW (xterm closes). Tk applications are the
// clients with an interpreter in the root window's InterpRegistry (Tk's `send` registry).
// A client that answers no ping (xterm) is judged by its drawing instead, which is not a
// proof: the keycode changes once the window holding the focus has been drawn after the
// keycode's last key event (a DAMAGE event whose serial, our last request the server had
// processed when it was sent, is at least that key event's request) and then stayed undrawn
// for kQuiet, or once kMaxHold has passed since that key was sent (a client that shows nothing).
// xdotool restores its scratch keycode after a fixed pause instead (xdo.c, usleep after
// XChangeKeyboardMapping), which loses keys whenever the client is slower than the pause.
#include "device/x11/X11DeviceImpl.h"

#include <X11/Xatom.h>
#include <X11/extensions/Xdamage.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "base/Clock.h"
#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

// For a client that does not answer pings: how long the focused window must stay undrawn after
// a drawing since the key was delivered. A drawing proves less than it seems: a client with a
// backlog draws what it handled before (after our key reached its socket) and only then looks
// our key up, and between the two it may load fonts for a new glyph (Tk and GTK take 100 ms
// and more for a CJK fallback font) without drawing. Tk judged this way read 7 of 50 mixed
// strings wrong with 30 ms and 3 with 150 ms; it answers pings, so it is no longer judged so.
constexpr double kQuiet = 0.15;
// The longest a changed mapping waits for the client to show the keys (a field that shows
// nothing, a password entry drawn once). Generous: a first CJK glyph makes Tk or GTK load
// fallback fonts for hundreds of milliseconds before it draws.
constexpr double kMaxHold = 2.0;
// Without DAMAGE (a server that lacks it, a window gone): a fixed pause after the last key.
constexpr double kBlindHold = 0.25;
// The longest we wait for a client that has answered pings before to answer one: a client busy
// longer (loading fonts for seconds) gets the keycode changed anyway, judged as one that shows
// nothing.
constexpr double kPingHold = 5.0;

// `w`'s property `prop` if it is of type `type` (AnyPropertyType: any): `type` None when `w`
// has no such property; `data` up to `max_longs` 32-bit units of it.
struct Property {
    Atom type = None;
    int format = 0;
    unsigned long items = 0;
    std::string data;
};
Property readProperty(Display* dpy, Window w, Atom prop, Atom type, long max_longs) {
    Property p;
    unsigned long after = 0;
    unsigned char* data = nullptr;
    if (XGetWindowProperty(dpy, w, prop, 0, max_longs, False, type, &p.type, &p.format, &p.items, &after, &data) !=
        Success)
        return {};
    if (data) {
        // Xlib hands 32-bit items as longs.
        const size_t unit = p.format == 32 ? sizeof(long) : size_t(p.format / 8);
        p.data.assign(reinterpret_cast<char*>(data), p.items * unit);
        XFree(data);
    }
    return p;
}

}  // namespace

void X11Device::Impl::watchFocus() {
    std::optional<X11Watchdog::Scope> bound;
    watch(bound, "focus");
    if (damage_event == -1) {
        int err = 0;
        if (!XDamageQueryExtension(dpy, &damage_event, &err)) damage_event = -2;
    }
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
    focus_client = top == root ? 0 : clientWindow(top);
    if (focus_client) {
        PingPeer& p = peers[focus_client];
        if (p.answers == -1) p.answers = answersPings(focus_client) ? 1 : 0;
    }
    if (damage_event < 0) return;
    if (top == damage_win && damage) return;
    x11::trapBegin();
    if (damage) XDamageDestroy(dpy, damage);
    damage = XDamageCreate(dpy, top, XDamageReportRawRectangles);  // an event per drawing
    int err = x11::trapEnd(dpy);  // the window may have gone meanwhile
    checkAlive();
    damage_win = err ? 0 : top;
    if (err) damage = 0;
}

Window X11Device::Impl::clientWindow(Window top) {
    if (!wm_state) wm_state = XInternAtom(dpy, "WM_STATE", False);
    x11::trapBegin();
    Window found = 0;
    auto hasState = [&](Window w) { return readProperty(dpy, w, wm_state, AnyPropertyType, 0).type != None; };
    if (hasState(top)) found = top;
    // Under a window manager the client's window is a child (or grandchild) of its frame.
    std::vector<Window> level{top};
    for (int depth = 0; depth < 2 && !found; ++depth) {
        std::vector<Window> next;
        for (Window w : level) {
            Window r = 0, parent = 0, *kids = nullptr;
            unsigned n = 0;
            if (!XQueryTree(dpy, w, &r, &parent, &kids, &n)) continue;
            for (unsigned i = 0; i < n && !found; ++i) {
                if (hasState(kids[i])) found = kids[i];
                next.push_back(kids[i]);
            }
            if (kids) XFree(kids);
        }
        level.swap(next);
    }
    x11::trapEnd(dpy);
    checkAlive();
    return found ? found : top;
}

bool X11Device::Impl::answersPings(Window w) {
    if (!wm_protocols) {
        wm_protocols = XInternAtom(dpy, "WM_PROTOCOLS", False);
        net_wm_ping = XInternAtom(dpy, "_NET_WM_PING", False);
    }
    x11::trapBegin();
    bool yes = false;
    const Property protocols = readProperty(dpy, w, wm_protocols, XA_ATOM, 64);
    for (size_t i = 0; protocols.format == 32 && i < protocols.items; ++i)
        yes |= reinterpret_cast<const long*>(protocols.data.data())[i] == long(net_wm_ping);
    if (!yes) {
        // Tk: "<window id in hex> <interpreter name>" lines; a window of the same client.
        // The client part of an id: above the resource mask (Xlibint.h's resource_mask is
        // _XPrivDisplay's private4).
        const XID mask = reinterpret_cast<_XPrivDisplay>(dpy)->private4;
        const XID client = XID(w) & ~mask;
        std::istringstream reg(readProperty(dpy, root, XInternAtom(dpy, "InterpRegistry", False), XA_STRING, 1 << 16).data);
        std::string line;
        while (!yes && std::getline(reg, line)) {
            const unsigned long id = std::strtoul(line.c_str(), nullptr, 16);
            XWindowAttributes wa;  // a killed Tk leaves its line; the server reuses its client id
            yes = id && (XID(id) & ~mask) == client && XGetWindowAttributes(dpy, Window(id), &wa);
        }
    }
    x11::trapEnd(dpy);
    checkAlive();
    return yes;
}

bool X11Device::Impl::sendPing(Window w) {
    std::optional<X11Watchdog::Scope> bound;
    watch(bound, "ping");
    if (!root_watched) {
        // The answer is sent to the root window for SubstructureNotify (and Redirect) listeners.
        XWindowAttributes wa{};
        XGetWindowAttributes(dpy, root, &wa);
        XSelectInput(dpy, root, wa.your_event_mask | SubstructureNotifyMask);
        root_watched = true;
    }
    XEvent ev{};
    ev.xclient.type = ClientMessage;
    ev.xclient.window = w;
    ev.xclient.message_type = wm_protocols;
    ev.xclient.format = 32;
    ev.xclient.data.l[0] = long(net_wm_ping);
    ev.xclient.data.l[1] = ++pings;  // the "timestamp" the client echoes: our token
    ev.xclient.data.l[2] = long(w);
    x11::trapBegin();
    XSendEvent(dpy, w, False, NoEventMask, &ev);
    int err = x11::trapEnd(dpy);
    checkAlive();
    if (err) return false;  // the window is gone
    PingPeer& p = peers[w];
    p.sent = pings;
    return true;
}

void X11Device::Impl::pollDraws() {
    if ((damage_event < 0 || !damage) && !root_watched) return;
    std::optional<X11Watchdog::Scope> bound;
    watch(bound, "events");  // XPending flushes what is queued: a full socket waits
    while (XPending(dpy)) {
        XEvent ev;
        XNextEvent(dpy, &ev);
        if (damage_event >= 0 && ev.type == damage_event + XDamageNotify) {
            drawn_serial = std::max(drawn_serial, ev.xany.serial);
            drawn_at = monotonicSeconds();
        } else if (ev.type == ClientMessage && ev.xclient.message_type == wm_protocols &&
                   ev.xclient.format == 32 && Atom(ev.xclient.data.l[0]) == net_wm_ping) {
            auto it = peers.find(Window(ev.xclient.data.l[2]));
            if (it == peers.end()) continue;  // someone else's ping
            it->second.answered = std::max(it->second.answered, long(ev.xclient.data.l[1]));
            it->second.answers = 1;
        }
    }
    checkAlive();
}

bool X11Device::Impl::pinged(Window w, long after) {
    PingPeer& p = peers[w];
    pollDraws();
    if (p.answered > after) return true;
    if (p.answers != 1) return false;
    if (p.sent <= after && !sendPing(w)) return true;  // the window is gone: nobody reads its keys
    const double until = monotonicSeconds() + kPingHold;
    for (;;) {
        pollDraws();
        if (p.answered > after) return true;
        if (monotonicSeconds() >= until) return false;  // busy: judged as one that shows nothing
        std::this_thread::sleep_for(std::chrono::milliseconds(1));
    }
}

void X11Device::Impl::awaitMapped() {
    if (focus_client) pinged(focus_client, pings);
}

void X11Device::Impl::waitShown(int kc) {
    auto it = last_use.find(kc);
    auto ser = key_serial.find(kc);
    if (it == last_use.end() || ser == key_serial.end()) return;
    const double sent = it->second;
    const unsigned long serial = ser->second;
    const Window w = key_window.count(kc) ? key_window[kc] : 0;
    if (w && pinged(w, key_ping.count(kc) ? key_ping[kc] : 0)) return;
    for (;;) {
        pollDraws();
        double t = monotonicSeconds();
        if (drawn_serial >= serial && t - drawn_at >= kQuiet) return;
        if (t - sent >= ((damage_event < 0 || !damage) ? kBlindHold : kMaxHold)) return;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
}

}  // namespace eacu

// X11Device's state, shared by its files: connection (X11Device.cpp), capture
// (X11Capture.cpp), keymap (X11Keymap.cpp) and input (X11Input.cpp). Internal to x11/.
#pragma once
// X11Device.h (OpenCV) before Xlib, whose macros (Complex, None, ...) break OpenCV's headers.
#include "device/x11/X11Device.h"
#include "device/x11/X11Watchdog.h"
#include "device/x11/X11Windows.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace eacu {

struct X11Device::Impl {
    Display* dpy = nullptr;
    std::string name;
    double scale = 1.0;
    int screen = 0;
    Window root = 0;
    Size size;
    Visual* visual = nullptr;
    int depth = 0;
    bool dead = false;
    // Ends a capture, sync, input flush or cursor query the display does not answer
    // (X11Watchdog.h); made with the connection.
    std::unique_ptr<X11Watchdog> watchdog;
    std::unique_ptr<X11Windows> windows;  // opened by X11Device::windows()

    // MIT-SHM capture buffer, allocated once for the root window size.
    bool shm = false;
    XShmSegmentInfo shminfo{};
    XImage* shm_image = nullptr;

    // Keyboard: a copy of the core keymap, refreshed at each keyboard call.
    int min_kc = 8, max_kc = 255, per = 1;
    std::vector<KeySym> keymap;
    std::map<KeySym, int> remapped;  // keysym -> spare keycode we mapped it to
    std::map<int, double> last_use;  // remapped keycode -> monotonic time its last key was sent
    std::map<int, unsigned long> key_serial;  // remapped keycode -> request serial of its last key
    std::map<int, Window> key_window;  // remapped keycode -> the client window its last key went to
    std::map<int, long> key_ping;      // remapped keycode -> pings sent when its last key was sent

    // Delivery proof (X11KeyDelivery.cpp): a DAMAGE watch on the top-level window holding the
    // focus, telling when the receiving client last drew.
    int damage_event = -1;  // the DAMAGE extension's event base; -1 when the server lacks it
    unsigned long damage = 0;
    Window damage_win = 0;
    unsigned long drawn_serial = 0;  // our request serial when the watched window was last drawn
    double drawn_at = 0;             // monotonic time we read that drawing
    // The ping proof (X11KeyDelivery.cpp): _NET_WM_PING sent to the client window holding the
    // focus, its answer read back on the root window.
    struct PingPeer {
        long sent = 0;          // the token of our last ping to it (0: none)
        long answered = 0;      // the highest token it answered
        int answers = -1;       // 1: answers pings, 0: does not, -1: not asked yet
    };
    std::map<Window, PingPeer> peers;
    Window focus_client = 0;  // the client's top-level window holding the focus (watchFocus)
    long pings = 0;           // tokens handed out (each ping's data.l[1])
    bool root_watched = false;
    Atom wm_protocols = 0, net_wm_ping = 0, wm_state = 0;

    // Restores the keyboard mapping, frees the SHM segment and closes the display.
    ~Impl();

    // ---- connection (X11Device.cpp) ----
    // Throws the stall the watchdog ended (DeviceStalled), or DeviceError when the display went away.
    void checkAlive() const;
    // The bound of one round trip of `operation` (x11Wait: its own limit, the thread's IoBound,
    // the run's token): hold the Scope while the call runs, then checkAlive().
    DeviceWait roundTrip(const char* operation) const;
    // Arms the watchdog into `bound` for the round trips of `operation` (nothing when the
    // connection has none): the keyboard's own calls (keymap, focus, pings, events), whose Xlib
    // requests wait for a reply with no timeout.
    void watch(std::optional<X11Watchdog::Scope>& bound, const char* operation) const;
    // XFlush under the watchdog ("input"), then checkAlive().
    void flush();
    void querySize();

    // ---- capture (X11Capture.cpp) ----
    void freeShm();
    // Sets up the shared-memory capture image; leaves shm = false if anything fails.
    void initShm();

    // ---- keyboard (X11Keymap.cpp) ----
    KeySym sym(int kc, int level) const { return keymap[size_t((kc - min_kc) * per + level)]; }
    void refreshKeymap();
    // The keycode carrying `ks` on level 0 (shift = false) or level 1 (shift = true); 0 if none.
    int findKey(KeySym ks, bool& shift) const;
    bool isSpare(int kc) const;
    void setMapping(int kc, KeySym ks);
    // ---- delivery proof (X11KeyDelivery.cpp) ----
    // Watches the top-level window that holds the input focus now (the root when none).
    void watchFocus();
    // Reads the pending events (no round trip): DAMAGE (drawn_serial, drawn_at) and answered
    // pings (peers).
    void pollDraws();
    // The window of `top` (a child of the root) that the client owns: `top` itself or, under a
    // window manager, the descendant carrying WM_STATE.
    Window clientWindow(Window top);
    // `w`'s client answers _NET_WM_PING: it lists it in WM_PROTOCOLS, or it is Tk (see
    // X11KeyDelivery.cpp).
    bool answersPings(Window w);
    // Sends _NET_WM_PING to `w`; false when the window is gone.
    bool sendPing(Window w);
    // Waits until the client that received the keys on keycode `kc` has shown them, so that
    // changing kc's mapping cannot change what they mean to it.
    void waitShown(int kc);
    // Waits until a ping to client window `w` sent after token `after` has been answered
    // (sending one if none was); false when `w` does not answer pings or did not answer within
    // kPingHold, true when it did or is gone.
    bool pinged(Window w, long after);
    // Waits until the client holding the focus has handled our mapping changes so far (a ping
    // answered after them), when it answers pings.
    void awaitMapped();
    // Makes the leading keysyms of `wanted` typeable, as many as the spare keycodes allow
    // (at least one; throws DeviceError when there is no spare keycode at all): those the
    // keymap lacks are mapped onto spare keycodes, or onto the least recently used ones we
    // mapped before that none of them needs (each only once its keys have been translated,
    // waitShown), all before the first of their keys, and then awaitMapped(). Returns how many
    // leading keysyms are typeable now.
    size_t mapKeysyms(const std::vector<KeySym>& wanted);
    // The keycode for `ks`, remapping a spare one if the keymap lacks it.
    int keycodeFor(KeySym ks, bool& shift);
    void key(int kc, bool down);
    int shiftKeycode();
    void restoreMapping();
};

}  // namespace eacu

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

    // Delivery proof (X11KeyDelivery.cpp): a DAMAGE watch on the top-level window holding the
    // focus, telling when the receiving client last drew.
    int damage_event = -1;  // the DAMAGE extension's event base; -1 when the server lacks it
    unsigned long damage = 0;
    Window damage_win = 0;
    unsigned long drawn_serial = 0;  // our request serial when the watched window was last drawn
    double drawn_at = 0;             // monotonic time we read that drawing

    // Restores the keyboard mapping, frees the SHM segment and closes the display.
    ~Impl();

    // ---- connection (X11Device.cpp) ----
    // Throws the stall the watchdog ended (DeviceStalled), or DeviceError when the display went away.
    void checkAlive() const;
    // The bound of one round trip of `operation` (x11Wait: its own limit, the thread's IoBound,
    // the run's token): hold the Scope while the call runs, then checkAlive().
    DeviceWait roundTrip(const char* operation) const;
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
    // Reads the pending DAMAGE events (no round trip), updating drawn_serial and drawn_at.
    void pollDraws();
    // Waits until the client that received the keys on keycode `kc` has shown them, so that
    // changing kc's mapping cannot change what they mean to it.
    void waitShown(int kc);
    // Maps `ks` onto a spare keycode (or the least recently used one we remapped before).
    int remap(KeySym ks);
    // The keycode for `ks`, remapping a spare one if the keymap lacks it.
    int keycodeFor(KeySym ks, bool& shift);
    void key(int kc, bool down);
    int shiftKeycode();
    void restoreMapping();
};

}  // namespace eacu

// X11Device's state, shared by its files: connection (X11Device.cpp), capture
// (X11Capture.cpp), keymap (X11Keymap.cpp) and input (X11Input.cpp). Internal to x11/.
#pragma once
// X11Device.h (OpenCV) before Xlib, whose macros (Complex, None, ...) break OpenCV's headers.
#include "device/x11/X11Device.h"
#include "device/x11/X11Windows.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>

#include <map>
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
    std::unique_ptr<X11Windows> windows;  // opened by X11Device::windows()

    // MIT-SHM capture buffer, allocated once for the root window size.
    bool shm = false;
    XShmSegmentInfo shminfo{};
    XImage* shm_image = nullptr;

    // Keyboard: a copy of the core keymap, refreshed at each keyboard call.
    int min_kc = 8, max_kc = 255, per = 1;
    std::vector<KeySym> keymap;
    std::map<KeySym, int> remapped;  // keysym -> spare keycode we mapped it to
    std::map<int, double> last_use;  // remapped keycode -> monotonic time of its last press

    // Restores the keyboard mapping, frees the SHM segment and closes the display.
    ~Impl();

    // ---- connection (X11Device.cpp) ----
    void checkAlive() const;
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
    void waitSettled(int kc);
    // Maps `ks` onto a spare keycode (or the least recently used one we remapped before).
    int remap(KeySym ks);
    // The keycode for `ks`, remapping a spare one if the keymap lacks it.
    int keycodeFor(KeySym ks, bool& shift);
    void key(int kc, bool down);
    int shiftKeycode();
    void restoreMapping();
};

}  // namespace eacu

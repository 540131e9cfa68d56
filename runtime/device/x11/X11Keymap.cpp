// X11Device's keymap: finding the keycode of a keysym, and mapping keysyms the keymap lacks
// onto spare keycodes (kept while the device lives, restored at the end; a keycode changes
// meaning only once its keys have been shown, see X11KeyDelivery.cpp).
#include "device/x11/X11DeviceImpl.h"

#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include <algorithm>
#include <cstdio>

#include "base/Clock.h"
#include "device/x11/X11Errors.h"

namespace eacu {

using x11::trapBegin;
using x11::trapEnd;

namespace {

std::string hex(unsigned long v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%lx", v);
    return buf;
}

}  // namespace

void X11Device::Impl::refreshKeymap() {
    XDisplayKeycodes(dpy, &min_kc, &max_kc);
    int n = max_kc - min_kc + 1;
    KeySym* m = XGetKeyboardMapping(dpy, KeyCode(min_kc), n, &per);
    checkAlive();
    if (!m) throw DeviceError("X display " + name + ": cannot read the keyboard mapping");
    keymap.assign(m, m + size_t(n) * size_t(per));
    XFree(m);
    // Forget remaps that someone else has since changed.
    for (auto it = remapped.begin(); it != remapped.end();) {
        if (sym(it->second, 0) != it->first) {
            last_use.erase(it->second);
            key_serial.erase(it->second);
            it = remapped.erase(it);
        } else {
            ++it;
        }
    }
}

int X11Device::Impl::findKey(KeySym ks, bool& shift) const {
    for (int level = 0; level < std::min(per, 2); ++level)
        for (int kc = min_kc; kc <= max_kc; ++kc)
            if (sym(kc, level) == ks) {
                shift = level == 1;
                return kc;
            }
    return 0;
}

bool X11Device::Impl::isSpare(int kc) const {
    for (int l = 0; l < per; ++l)
        if (sym(kc, l) != NoSymbol) return false;
    return true;
}

void X11Device::Impl::setMapping(int kc, KeySym ks) {
    std::vector<KeySym> syms(size_t(per), NoSymbol);
    if (ks != NoSymbol) {
        syms[0] = ks;
        if (per > 1) syms[1] = ks;
    }
    XChangeKeyboardMapping(dpy, kc, per, syms.data(), 1);
    std::copy(syms.begin(), syms.end(), keymap.begin() + (kc - min_kc) * per);
}

int X11Device::Impl::remap(KeySym ks) {
    int kc = 0;
    for (int k = min_kc; k <= max_kc && !kc; ++k)
        if (isSpare(k)) kc = k;
    if (!kc) {
        // The least recently used one.
        double oldest = 1e300;
        for (auto& [s, k] : remapped) {
            double t = last_use.count(k) ? last_use[k] : 0.0;
            if (t < oldest) oldest = t, kc = k;
        }
        if (!kc)
            throw DeviceError("X display " + name +
                              ": no spare keycode to type keysym 0x" + hex(ks));
        for (auto it = remapped.begin(); it != remapped.end(); ++it)
            if (it->second == kc) {
                remapped.erase(it);
                break;
            }
        waitShown(kc);  // its last character must have been read before it changes
    }
    trapBegin();
    setMapping(kc, ks);
    int err = trapEnd(dpy);  // the server has applied the new mapping
    checkAlive();
    if (err)
        throw DeviceError("X display " + name + ": cannot remap keycode " +
                          std::to_string(kc) + " (X error " + std::to_string(err) + ")");
    remapped[ks] = kc;
    return kc;
}

int X11Device::Impl::keycodeFor(KeySym ks, bool& shift) {
    shift = false;
    if (int kc = findKey(ks, shift)) return kc;
    return remap(ks);
}

void X11Device::Impl::key(int kc, bool down) {
    const unsigned long serial = NextRequest(dpy);  // the fake event's request
    XTestFakeKeyEvent(dpy, unsigned(kc), down ? True : False, CurrentTime);
    for (auto& [s, k] : remapped)
        if (k == kc) {
            last_use[kc] = monotonicSeconds();
            key_serial[kc] = serial;
        }
}

int X11Device::Impl::shiftKeycode() {
    bool shift;
    int kc = findKey(XK_Shift_L, shift);
    if (!kc) kc = findKey(XK_Shift_R, shift);
    if (!kc) throw DeviceError("X display " + name + ": the keymap has no Shift key");
    return kc;
}

void X11Device::Impl::restoreMapping() {
    if (remapped.empty() || dead) return;
    for (auto& [s, kc] : remapped) waitShown(kc);
    for (auto& [s, kc] : remapped) setMapping(kc, NoSymbol);
    remapped.clear();
    last_use.clear();
    key_serial.clear();
    XSync(dpy, False);
}

}  // namespace eacu

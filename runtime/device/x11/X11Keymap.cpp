// X11Device's keymap: finding the keycode of a keysym, and mapping keysyms the keymap lacks
// onto spare keycodes (kept while the device lives, restored at the end).
#include "device/x11/X11DeviceImpl.h"

#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <thread>

#include "device/x11/X11Errors.h"

namespace eacu {

using x11::trapBegin;
using x11::trapEnd;

namespace {

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

// How long a keycode we remapped must stay unchanged after its last key press before we
// change it again. A client learns of a mapping change by an event and (GTK, Qt with XKB)
// fetches the *current* map lazily when it next translates a key; if we changed the keycode
// again before the app processed the earlier key press, the app would see the new keysym.
// There is no protocol-level way to know when another client has processed an event, so a
// small age bound is unavoidable here. It only applies when a keycode is reused (more distinct
// unmapped characters than spare keycodes) and when restoring the mapping.
constexpr double kRemapSettleSeconds = 0.1;

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

void X11Device::Impl::waitSettled(int kc) {
    auto it = last_use.find(kc);
    if (it == last_use.end()) return;
    double left = it->second + kRemapSettleSeconds - now();
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
}

int X11Device::Impl::remap(KeySym ks) {
    int kc = 0;
    for (int k = min_kc; k <= max_kc && !kc; ++k)
        if (isSpare(k)) kc = k;
    if (!kc) {
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
        waitSettled(kc);
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
    XTestFakeKeyEvent(dpy, unsigned(kc), down ? True : False, CurrentTime);
    if (remapped.size()) {
        for (auto& [s, k] : remapped)
            if (k == kc) last_use[kc] = now();
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
    double last = 0;
    for (auto& [k, t] : last_use) last = std::max(last, t);
    double left = last + kRemapSettleSeconds - now();
    if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    for (auto& [s, kc] : remapped) setMapping(kc, NoSymbol);
    remapped.clear();
    last_use.clear();
    XSync(dpy, False);
}

}  // namespace eacu

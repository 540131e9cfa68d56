// X11Device's keymap: finding the keycode of a keysym, and mapping keysyms the keymap lacks
// onto spare keycodes (kept while the device lives, restored at the end; a keycode changes
// meaning only once the program has translated its keys, see X11KeyDelivery.cpp).
#include "device/x11/X11DeviceImpl.h"

#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include <algorithm>
#include <cstdio>
#include <set>

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
    std::optional<X11Watchdog::Scope> bound;
    watch(bound, "keymap");
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
            key_window.erase(it->second);
            key_ping.erase(it->second);
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

size_t X11Device::Impl::mapKeysyms(const std::vector<KeySym>& wanted) {
    int spares = 0;
    for (int k = min_kc; k <= max_kc; ++k) spares += isSpare(k);
    // The leading keysyms whose missing ones fit: each missing keysym takes a spare keycode or
    // one of ours that no keysym of the chunk uses.
    std::vector<KeySym> missing;
    std::set<KeySym> kept;  // ours that the chunk uses: not to be reused for it
    auto room = [&] { return spares + int(remapped.size() - kept.size()) - int(missing.size()); };
    size_t n = 0;
    for (; n < wanted.size(); ++n) {
        const KeySym ks = wanted[n];
        bool shift;
        if (remapped.count(ks)) {
            if (!kept.count(ks)) {
                if (room() < 1) break;  // keeping it takes a keycode a missing one counted on
                kept.insert(ks);
            }
        } else if (!findKey(ks, shift) && std::find(missing.begin(), missing.end(), ks) == missing.end()) {
            if (room() < 1) break;
            missing.push_back(ks);
        }
    }
    if (n == 0)
        throw DeviceError("X display " + name + ": no spare keycode to type keysym 0x" + hex(wanted[0]));
    if (missing.empty()) return n;
    // Their keycodes: spares first, then ours least recently used first.
    std::vector<int> codes;
    for (int k = min_kc; k <= max_kc && codes.size() < missing.size(); ++k)
        if (isSpare(k)) codes.push_back(k);
    std::vector<std::pair<double, KeySym>> reusable;
    for (auto& [s, k] : remapped)
        if (!kept.count(s)) reusable.push_back({last_use.count(k) ? last_use[k] : 0.0, s});
    std::sort(reusable.begin(), reusable.end());
    for (size_t i = 0; codes.size() < missing.size(); ++i) {
        const int kc = remapped[reusable[i].second];
        waitShown(kc);  // its keys must have been translated before it changes
        remapped.erase(reusable[i].second);
        codes.push_back(kc);
    }
    trapBegin();
    for (size_t i = 0; i < missing.size(); ++i) setMapping(codes[i], missing[i]);
    int err = trapEnd(dpy);  // the server has applied the new mappings
    checkAlive();
    if (err)
        throw DeviceError("X display " + name + ": cannot remap keycodes for keysym 0x" + hex(missing[0]) +
                          " and others (X error " + std::to_string(err) + ")");
    for (size_t i = 0; i < missing.size(); ++i) remapped[missing[i]] = codes[i];
    awaitMapped();  // the client has read the new mappings before their first key
    return n;
}

int X11Device::Impl::keycodeFor(KeySym ks, bool& shift) {
    shift = false;
    if (int kc = findKey(ks, shift)) return kc;
    mapKeysyms({ks});
    return findKey(ks, shift);
}

void X11Device::Impl::key(int kc, bool down) {
    const unsigned long serial = NextRequest(dpy);  // the fake event's request
    XTestFakeKeyEvent(dpy, unsigned(kc), down ? True : False, CurrentTime);
    for (auto& [s, k] : remapped)
        if (k == kc) {
            last_use[kc] = monotonicSeconds();
            key_serial[kc] = serial;
            key_window[kc] = focus_client;
            key_ping[kc] = pings;
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
    key_window.clear();
    key_ping.clear();
    std::optional<X11Watchdog::Scope> bound;
    watch(bound, "keymap");
    XSync(dpy, False);
    bound.reset();
    checkAlive();
}

}  // namespace eacu

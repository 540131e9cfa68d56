// X11Device input through XTEST: pointer, buttons, wheel, text and key combos.
#include "device/x11/X11DeviceImpl.h"

#include <X11/extensions/XTest.h>
#include <X11/keysym.h>

#include <cstdlib>

#include "base/Utf8.h"
#include "device/x11/X11Keys.h"

namespace eacu {

namespace {

// The X11 (core protocol) number of a mouse button.
unsigned x11Button(MouseButton button) {
    switch (button) {
    case MouseButton::Left: return 1;
    case MouseButton::Middle: return 2;
    case MouseButton::Right: return 3;
    }
    return 1;
}

}  // namespace

void X11Device::move(Point p) {
    Impl& d = *impl_;
    d.checkAlive();
    XTestFakeMotionEvent(d.dpy, d.screen, p.x, p.y, CurrentTime);
    d.flush();
}

Point X11Device::cursor() const {
    Impl& d = *impl_;
    d.checkAlive();
    Window rootRet, child;
    int rx = 0, ry = 0, wx, wy;
    unsigned mask;
    {
        X11Watchdog::Scope bound(*d.watchdog, d.roundTrip("cursor"));
        XQueryPointer(d.dpy, d.root, &rootRet, &child, &rx, &ry, &wx, &wy, &mask);
    }
    d.checkAlive();
    return {rx, ry};
}

void X11Device::click(MouseButton button, int count) {
    Impl& d = *impl_;
    d.checkAlive();
    for (int i = 0; i < count; ++i) {
        XTestFakeButtonEvent(d.dpy, x11Button(button), True, CurrentTime);
        XTestFakeButtonEvent(d.dpy, x11Button(button), False, CurrentTime);
    }
    d.flush();
}

void X11Device::press(MouseButton button) {
    Impl& d = *impl_;
    d.checkAlive();
    XTestFakeButtonEvent(d.dpy, x11Button(button), True, CurrentTime);
    d.flush();
}

void X11Device::release(MouseButton button) {
    Impl& d = *impl_;
    d.checkAlive();
    XTestFakeButtonEvent(d.dpy, x11Button(button), False, CurrentTime);
    d.flush();
}

void X11Device::scroll(int dx, int dy) {
    Impl& d = *impl_;
    d.checkAlive();
    auto wheel = [&](unsigned button, int n) {
        for (int i = 0; i < n; ++i) {
            XTestFakeButtonEvent(d.dpy, button, True, CurrentTime);
            XTestFakeButtonEvent(d.dpy, button, False, CurrentTime);
        }
    };
    wheel(dy > 0 ? 5 : 4, std::abs(dy));
    wheel(dx > 0 ? 7 : 6, std::abs(dx));
    d.flush();
}

void X11Device::typeText(const std::string& utf8) {
    Impl& d = *impl_;
    std::u32string cps = decodeUtf8(utf8);  // throws before anything is typed
    d.checkAlive();
    if (cps.empty()) return;
    d.refreshKeymap();
    d.watchFocus();
    std::vector<KeySym> keysyms;
    for (size_t i = 0; i < cps.size(); ++i)
        if (!(cps[i] == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n')) keysyms.push_back(keysymForCodepoint(cps[i]));
    int shiftKc = 0;
    size_t mapped = 0;  // keysyms[0, mapped) are typeable now
    for (size_t i = 0; i < keysyms.size(); ++i) {
        const KeySym ks = keysyms[i];
        // Whole chunks: every new mapping of a chunk is made before its first key.
        if (i == mapped) mapped = i + d.mapKeysyms({keysyms.begin() + long(i), keysyms.end()});
        bool shift = false;
        int kc = d.keycodeFor(ks, shift);
        if (shift && !shiftKc) shiftKc = d.shiftKeycode();
        if (shift) d.key(shiftKc, true);
        d.key(kc, true);
        d.key(kc, false);
        if (shift) d.key(shiftKc, false);
        d.flush();
    }
    d.pollDraws();
}

void X11Device::checkKeys(const std::vector<Key>& keys) const {
    for (const Key& k : keys) keysymFor(k);
}

void X11Device::keyCombo(const std::vector<Key>& keys) {
    Impl& d = *impl_;
    d.checkAlive();
    if (keys.empty()) return;
    std::vector<uint32_t> keysyms;
    for (const Key& k : keys) keysyms.push_back(keysymFor(k));  // throws before any key is sent
    d.refreshKeymap();
    d.watchFocus();
    bool comboHasShift = false;
    for (uint32_t ks : keysyms) comboHasShift |= ks == XK_Shift_L || ks == XK_Shift_R;
    // Resolve every key first (remapping may be needed), then press and release.
    std::vector<int> order;
    bool shiftDown = comboHasShift;
    for (uint32_t ks : keysyms) {
        bool shift = false;
        int kc = d.keycodeFor(ks, shift);
        if (shift && !shiftDown) {
            order.push_back(d.shiftKeycode());
            shiftDown = true;
        }
        order.push_back(kc);
    }
    for (int kc : order) d.key(kc, true);
    for (auto it = order.rbegin(); it != order.rend(); ++it) d.key(*it, false);
    d.flush();
}

void X11Device::keyDown(const Key& key) {
    Impl& d = *impl_;
    d.checkAlive();
    KeySym keysym = keysymFor(key);
    d.refreshKeymap();
    d.watchFocus();
    bool shift;
    d.key(d.keycodeFor(keysym, shift), true);
    d.flush();
}

void X11Device::keyUp(const Key& key) {
    Impl& d = *impl_;
    d.checkAlive();
    KeySym keysym = keysymFor(key);
    d.refreshKeymap();
    bool shift;
    int kc = d.findKey(keysym, shift);
    if (!kc) return;
    d.key(kc, false);
    d.flush();
}

void X11Device::restoreKeyboardMapping() {
    impl_->checkAlive();
    impl_->restoreMapping();
    impl_->checkAlive();
}

}  // namespace eacu

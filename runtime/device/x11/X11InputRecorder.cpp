// XRecord: an asynchronous context on a data connection, read by a thread (see the header).
#include "device/x11/X11InputRecorder.h"

#include <X11/Xlib.h>
#include <X11/Xproto.h>
#include <X11/Xatom.h>
#include <X11/Xutil.h>
#include <X11/extensions/record.h>
#include <X11/keysym.h>
#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <atomic>
#include <cstring>
#include <map>
#include <mutex>
#include <thread>

#include "base/Clock.h"
#include "base/Utf8.h"
#include "device/Device.h"

namespace eacu {

namespace {

// The character a keysym types (Latin-1 keysyms are their code points, 0x01000000 + cp the
// others, X11 protocol Appendix A), or 0 for a function, keypad or modifier key.
uint32_t codepointOf(uint32_t ks) {
    if ((ks >= 0x20 && ks <= 0x7e) || (ks >= 0xa0 && ks <= 0xff)) return ks;
    if (ks >= 0x01000100 && ks <= 0x0110ffff) return ks - 0x01000000;
    return 0;
}

}  // namespace

struct X11InputRecorder::Impl {
    ::Display* ctrl = nullptr;  // makes and disables the context, reads the keymap
    ::Display* data = nullptr;  // the context's data arrive here
    XRecordContext context = 0;
    std::thread reader;
    std::atomic<bool> stopping{false};
    std::mutex mutex;
    std::vector<RecordedInput> events;
    // keycode -> its keysyms (level 0, 1, ...), as the server has them now.
    std::map<int, std::vector<uint32_t>> keymap;
    // The modifier keys held (by keycode), to know each event's modifiers.
    std::map<int, uint32_t> held;
    double offset = 1e300;  // local ms - server ms, the smallest seen
    uint32_t last_server = 0;
    double wrap = 0;  // server time wraps after 2^32 ms (49.7 days)

    void readKeymap() {
        int lo = 0, hi = 0;
        XDisplayKeycodes(ctrl, &lo, &hi);
        int per = 0;
        KeySym* syms = XGetKeyboardMapping(ctrl, KeyCode(lo), hi - lo + 1, &per);
        if (!syms) return;
        for (int k = lo; k <= hi; ++k) {
            std::vector<uint32_t>& v = keymap[k];
            v.clear();
            for (int i = 0; i < per; ++i) v.push_back(uint32_t(syms[(k - lo) * per + i]));
        }
        XFree(syms);
    }

    // ChangeKeyboardMapping as a client sent it: firstKeyCode, keySymsPerKeyCode, keyCodes.
    void applyMappingRequest(const unsigned char* req, size_t len) {
        if (len < sizeof(xChangeKeyboardMappingReq)) return;
        const auto* r = reinterpret_cast<const xChangeKeyboardMappingReq*>(req);
        int first = r->firstKeyCode, n = r->keyCodes, per = r->keySymsPerKeyCode;
        const auto* syms = reinterpret_cast<const uint32_t*>(req + sizeof(xChangeKeyboardMappingReq));
        if (sizeof(xChangeKeyboardMappingReq) + size_t(n) * size_t(per) * 4 > len) return;
        for (int i = 0; i < n; ++i) {
            std::vector<uint32_t>& v = keymap[first + i];
            v.assign(syms + i * per, syms + (i + 1) * per);
        }
    }

    uint32_t keysymOf(int keycode, bool shift) {
        auto it = keymap.find(keycode);
        if (it == keymap.end() || it->second.empty()) return 0;
        const std::vector<uint32_t>& v = it->second;
        uint32_t base = v[0];
        if (!shift) return base;
        if (v.size() > 1 && v[1] != NoSymbol) return v[1];
        KeySym lower = 0, upper = 0;
        XConvertCase(base, &lower, &upper);
        return uint32_t(upper);
    }

    static bool isModifier(uint32_t ks, const char* which) {
        std::string w = which;
        if (w == "shift") return ks == XK_Shift_L || ks == XK_Shift_R;
        if (w == "ctrl") return ks == XK_Control_L || ks == XK_Control_R;
        if (w == "alt") return ks == XK_Alt_L || ks == XK_Alt_R || ks == XK_Meta_L || ks == XK_Meta_R;
        return ks == XK_Super_L || ks == XK_Super_R;
    }
    bool holding(const char* which) const {
        for (const auto& [code, ks] : held)
            if (isModifier(ks, which)) return true;
        return false;
    }

    // The server's time (ms) against ours, measured with a round trip that carries a server
    // timestamp: a zero-length append to a property of an unmapped window of our own gives a
    // PropertyNotify stamped with the server's time (ICCCM 2.1, "Acquiring Selection
    // Ownership", the way a client learns the server time). Taken when recording starts, so
    // that its first event is not stamped with its arrival (late under load: the screen
    // before the pointer set off would then be one drawn after it). The smallest of a few
    // (local arrival - server stamp) is kept, as localTime keeps the smallest.
    void calibrate() {
        ::Window w = XCreateSimpleWindow(ctrl, DefaultRootWindow(ctrl), 0, 0, 1, 1, 0, 0, 0);
        XSelectInput(ctrl, w, PropertyChangeMask);
        Atom atom = XInternAtom(ctrl, "EACU_RECORD_CLOCK", False);
        for (int i = 0; i < 3; ++i) {
            XChangeProperty(ctrl, w, atom, XA_STRING, 8, PropModeAppend, nullptr, 0);
            XSync(ctrl, False);  // the event is queued before the sync's reply
            double now = monotonicSeconds();
            XEvent ev;
            while (XCheckTypedWindowEvent(ctrl, w, PropertyNotify, &ev))
                localTime(uint32_t(ev.xproperty.time), now);
        }
        XDestroyWindow(ctrl, w);
        XSync(ctrl, True);
    }

    double localTime(uint32_t server_ms, double now) {
        if (server_ms < last_server && last_server - server_ms > 0x80000000u) wrap += 4294967296.0;
        last_server = server_ms;
        double server = wrap + server_ms;
        offset = std::min(offset, now * 1000.0 - server);
        return (server + offset) / 1000.0;
    }

    void onEvent(const unsigned char* bytes, size_t len, double now) {
        if (len < sizeof(xEvent)) return;
        const auto* ev = reinterpret_cast<const xEvent*>(bytes);
        int type = ev->u.u.type & 0x7f;
        RecordedInput in;
        in.at = {ev->u.keyButtonPointer.rootX, ev->u.keyButtonPointer.rootY};
        in.time = localTime(ev->u.keyButtonPointer.time, now);
        int detail = ev->u.u.detail;
        switch (type) {
        case ButtonPress: in.kind = RecordedInput::Kind::ButtonDown; in.button = detail; break;
        case ButtonRelease: in.kind = RecordedInput::Kind::ButtonUp; in.button = detail; break;
        case MotionNotify: in.kind = RecordedInput::Kind::Motion; break;
        case KeyPress:
        case KeyRelease: {
            in.kind = type == KeyPress ? RecordedInput::Kind::KeyDown : RecordedInput::Kind::KeyUp;
            break;
        }
        default: return;
        }
        in.shift = holding("shift");
        in.ctrl = holding("ctrl");
        in.alt = holding("alt");
        in.super = holding("super");
        if (type == KeyPress || type == KeyRelease) {
            in.keysym = keysymOf(detail, in.shift);
            // libX11 mallocs (and never frees) the name of a Unicode keysym (0x01000000 + code
            // point) that has no name of its own: such names are written here as libX11 writes them
            // ("U4F60"), without calling it.
            if (in.keysym >= 0x01000000 && in.keysym <= 0x0110ffff) {
                char buf[16];
                std::snprintf(buf, sizeof buf, "U%04lX", static_cast<unsigned long>(in.keysym - 0x01000000));
                in.key_name = buf;
            } else if (const char* name = XKeysymToString(in.keysym)) {
                in.key_name = name;
            }
            if (uint32_t cp = codepointOf(in.keysym)) in.text = encodeUtf8(std::u32string(1, char32_t(cp)));
            uint32_t plain = keysymOf(detail, false);
            if (isModifier(plain, "shift") || isModifier(plain, "ctrl") || isModifier(plain, "alt") ||
                isModifier(plain, "super")) {
                if (type == KeyPress) held[detail] = plain;
                else held.erase(detail);
            }
        }
        std::lock_guard<std::mutex> lock(mutex);
        events.push_back(std::move(in));
    }

    static void callback(XPointer self, XRecordInterceptData* d) {
        auto* impl = reinterpret_cast<Impl*>(self);
        double now = monotonicSeconds();
        if (d->category == XRecordFromServer && d->data) {
            impl->onEvent(d->data, size_t(d->data_len) * 4, now);
        } else if (d->category == XRecordFromClient && d->data && d->data_len > 0 &&
                   d->data[0] == X_ChangeKeyboardMapping) {
            impl->applyMappingRequest(d->data, size_t(d->data_len) * 4);
        }
        XRecordFreeData(d);
    }

    void run() {
        int fd = ConnectionNumber(data);
        while (!stopping.load()) {
            pollfd p{fd, POLLIN, 0};
            ::poll(&p, 1, 50);
            XRecordProcessReplies(data);
        }
        XRecordProcessReplies(data);
    }
};

X11InputRecorder::X11InputRecorder(const std::string& display_name) : impl_(std::make_unique<Impl>()) {
    const char* name = display_name.empty() ? nullptr : display_name.c_str();
    impl_->ctrl = XOpenDisplay(name);
    impl_->data = impl_->ctrl ? XOpenDisplay(name) : nullptr;
    std::string shown = display_name.empty() ? "$DISPLAY" : display_name;
    if (!impl_->ctrl || !impl_->data) {
        if (impl_->ctrl) XCloseDisplay(impl_->ctrl);
        throw DeviceError("record: cannot open X display " + shown);
    }
    int major = 0, minor = 0;
    if (!XRecordQueryVersion(impl_->ctrl, &major, &minor)) {
        XCloseDisplay(impl_->data);
        XCloseDisplay(impl_->ctrl);
        throw DeviceError("record: X display " + shown + " has no RECORD extension (expected XRecord, as Xorg and Xvfb have)");
    }
    impl_->readKeymap();
    impl_->calibrate();
    XRecordRange* range = XRecordAllocRange();
    range->device_events.first = KeyPress;
    range->device_events.last = MotionNotify;
    range->core_requests.first = X_ChangeKeyboardMapping;
    range->core_requests.last = X_ChangeKeyboardMapping;
    XRecordClientSpec clients = XRecordAllClients;
    impl_->context = XRecordCreateContext(impl_->ctrl, 0, &clients, 1, &range, 1);
    XFree(range);
    XSync(impl_->ctrl, False);
    if (!impl_->context ||
        !XRecordEnableContextAsync(impl_->data, impl_->context, &Impl::callback, reinterpret_cast<XPointer>(impl_.get()))) {
        if (impl_->context) XRecordFreeContext(impl_->ctrl, impl_->context);
        XCloseDisplay(impl_->data);
        XCloseDisplay(impl_->ctrl);
        throw DeviceError("record: cannot enable an XRecord context on " + shown);
    }
    impl_->reader = std::thread([this] { impl_->run(); });
}

void X11InputRecorder::stop() {
    if (!impl_->reader.joinable()) return;
    XRecordDisableContext(impl_->ctrl, impl_->context);
    XSync(impl_->ctrl, False);
    impl_->stopping = true;
    impl_->reader.join();
}

X11InputRecorder::~X11InputRecorder() {
    stop();
    XRecordFreeContext(impl_->ctrl, impl_->context);
    XCloseDisplay(impl_->data);
    XCloseDisplay(impl_->ctrl);
}

std::vector<RecordedInput> X11InputRecorder::take() {
    std::lock_guard<std::mutex> lock(impl_->mutex);
    std::vector<RecordedInput> out;
    out.swap(impl_->events);
    return out;
}

}  // namespace eacu

#include "device/x11/X11Device.h"

#include "base/Utf8.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/extensions/XShm.h>
#include <X11/extensions/XTest.h>
#include <X11/keysym.h>
#include <sys/ipc.h>
#include <sys/shm.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <opencv2/imgproc.hpp>
#include <set>
#include <stdexcept>
#include <thread>

#include "device/KeyCombo.h"

namespace eacu {

namespace {

// ---- X error handling -----------------------------------------------------------------------
// Xlib's default error handler exits the process; ours records the first error of a "trap"
// (a request sequence followed by XSync) so the caller can react, and reports stray errors.
struct ErrorTrap {
    bool active = false;
    int code = 0;
    int request = 0;
    int minor = 0;
};
thread_local ErrorTrap t_trap;

int onXError(Display* dpy, XErrorEvent* e) {
    if (t_trap.active) {
        if (t_trap.code == 0) {
            t_trap.code = e->error_code;
            t_trap.request = e->request_code;
            t_trap.minor = e->minor_code;
        }
        return 0;
    }
    char text[256] = "";
    XGetErrorText(dpy, e->error_code, text, sizeof text);
    std::fprintf(stderr, "eacu: X error on %s: %s (request %d.%d)\n", DisplayString(dpy), text,
                 int(e->request_code), int(e->minor_code));
    return 0;
}

void trapBegin() { t_trap = ErrorTrap{true}; }

/// Ends a trap: XSync, then returns the trapped error code (0 = none).
int trapEnd(Display* dpy) {
    XSync(dpy, False);
    int code = t_trap.code;
    t_trap = ErrorTrap{};
    return code;
}

// The IO error handler is process-wide. Xlib's default one exits; for our displays we return
// so that Xlib calls the per-display exit handler below, which marks the device dead (libX11
// >= 1.7: the connection is then closed and later calls fail harmlessly) and we throw
// DeviceError. Displays that are not ours keep the previous behaviour.
std::mutex g_io_mu;
std::set<Display*> g_our_displays;
XIOErrorHandler g_prev_io_handler = nullptr;
std::once_flag g_handlers_once;

int onIOError(Display* dpy) {
    bool ours;
    {
        std::lock_guard lk(g_io_mu);
        ours = g_our_displays.count(dpy) > 0;
    }
    if (!ours && g_prev_io_handler) return g_prev_io_handler(dpy);
    return 0;
}

void installHandlers() {
    std::call_once(g_handlers_once, [] {
        XSetErrorHandler(onXError);
        g_prev_io_handler = XSetIOErrorHandler(onIOError);
    });
}

double now() {
    using namespace std::chrono;
    return duration<double>(steady_clock::now().time_since_epoch()).count();
}

bool hostIsLittleEndian() {
    const uint16_t probe = 1;
    return *reinterpret_cast<const uint8_t*>(&probe) == 1;
}

// Position of the lowest set bit and number of bits of a channel mask.
void maskShape(unsigned long mask, int& shift, int& bits) {
    shift = 0;
    bits = 0;
    if (!mask) return;
    while (!(mask & 1)) mask >>= 1, ++shift;
    while (mask & 1) mask >>= 1, ++bits;
}

/// Converts a ZPixmap TrueColor XImage to an 8-bit BGR Mat (copies).
cv::Mat toBgr(XImage* img) {
    const int w = img->width, h = img->height;
    const bool lsb = img->byte_order == LSBFirst;
    if (img->red_mask == 0xff0000 && img->green_mask == 0xff00 && img->blue_mask == 0xff &&
        lsb == hostIsLittleEndian()) {
        if (img->bits_per_pixel == 32) {
            // Memory order B, G, R, X: a BGRA header over the image, no per-pixel code.
            cv::Mat bgra(h, w, CV_8UC4, img->data, size_t(img->bytes_per_line));
            cv::Mat out;
            cv::cvtColor(bgra, out, cv::COLOR_BGRA2BGR);
            return out;
        }
        if (img->bits_per_pixel == 24 && lsb) {
            return cv::Mat(h, w, CV_8UC3, img->data, size_t(img->bytes_per_line)).clone();
        }
    }
    // Generic path (16-bit, other masks or byte orders): slow but correct.
    int rs, rb, gs, gb, bs, bb;
    maskShape(img->red_mask, rs, rb);
    maskShape(img->green_mask, gs, gb);
    maskShape(img->blue_mask, bs, bb);
    if (!rb || !gb || !bb)
        throw DeviceError("X11 capture: unsupported pixel format (" +
                          std::to_string(img->bits_per_pixel) + " bits per pixel, no colour masks)");
    auto scale = [](unsigned long v, int bits) -> uint8_t {
        if (bits >= 8) return uint8_t(v >> (bits - 8));
        return uint8_t((v * 255) / ((1ul << bits) - 1));
    };
    cv::Mat out(h, w, CV_8UC3);
    for (int y = 0; y < h; ++y) {
        auto* row = out.ptr<uint8_t>(y);
        for (int x = 0; x < w; ++x) {
            unsigned long p = XGetPixel(img, x, y);
            row[3 * x + 0] = scale((p & img->blue_mask) >> bs, bb);
            row[3 * x + 1] = scale((p & img->green_mask) >> gs, gb);
            row[3 * x + 2] = scale((p & img->red_mask) >> rs, rb);
        }
    }
    return out;
}

// How long a keycode we remapped must stay unchanged after its last key press before we
// change it again. A client learns of a mapping change by an event and (GTK, Qt with XKB)
// fetches the *current* map lazily when it next translates a key; if we changed the keycode
// again before the app processed the earlier key press, the app would see the new keysym.
// There is no protocol-level way to know when another client has processed an event, so a
// small age bound is unavoidable here. It only applies when a keycode is reused (more distinct
// unmapped characters than spare keycodes) and when restoring the mapping.
constexpr double kRemapSettleSeconds = 0.1;

}  // namespace

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

    // MIT-SHM capture buffer, allocated once for the root window size.
    bool shm = false;
    XShmSegmentInfo shminfo{};
    XImage* shm_image = nullptr;

    // Keyboard: a copy of the core keymap, refreshed at each keyboard call.
    int min_kc = 8, max_kc = 255, per = 1;
    std::vector<KeySym> keymap;
    std::map<KeySym, int> remapped;  // keysym -> spare keycode we mapped it to
    std::map<int, double> last_use;  // remapped keycode -> monotonic time of its last press

    ~Impl() {
        try {
            restoreMapping();
        } catch (...) {
        }
        freeShm();
        if (dpy) {
            XCloseDisplay(dpy);
            std::lock_guard lk(g_io_mu);
            g_our_displays.erase(dpy);
        }
    }

    void checkAlive() const {
        if (dead)
            throw DeviceError("X display " + name +
                              " went away (the X server exited or the connection broke)");
    }
    void flush() {
        XFlush(dpy);
        checkAlive();
    }

    void querySize() {
        XWindowAttributes attrs;
        if (!XGetWindowAttributes(dpy, root, &attrs)) {
            checkAlive();
            throw DeviceError("X display " + name + ": cannot read the root window attributes");
        }
        size = {attrs.width, attrs.height};
        visual = attrs.visual;
        depth = attrs.depth;
    }

    void freeShm() {
        if (!shm_image) return;
        if (!dead) XShmDetach(dpy, &shminfo);
        XDestroyImage(shm_image);  // XShm images: frees the struct only, not the segment
        shmdt(shminfo.shmaddr);
        shm_image = nullptr;
        shm = false;
    }

    // Sets up the shared-memory capture image; leaves shm = false if anything fails.
    void initShm() {
        freeShm();
        if (std::getenv("EACU_X11_NO_SHM")) return;  // force the XGetImage path (debugging)
        if (!XShmQueryExtension(dpy)) return;
        shminfo = {};
        shminfo.shmid = -1;
        XImage* img = XShmCreateImage(dpy, visual, unsigned(depth), ZPixmap, nullptr, &shminfo,
                                      unsigned(size.w), unsigned(size.h));
        if (!img) return;
        shminfo.shmid = shmget(IPC_PRIVATE, size_t(img->bytes_per_line) * size_t(img->height),
                               IPC_CREAT | 0600);
        if (shminfo.shmid < 0) {
            XDestroyImage(img);
            return;
        }
        shminfo.shmaddr = img->data = static_cast<char*>(shmat(shminfo.shmid, nullptr, 0));
        if (shminfo.shmaddr == reinterpret_cast<char*>(-1)) {
            shmctl(shminfo.shmid, IPC_RMID, nullptr);
            img->data = nullptr;
            XDestroyImage(img);
            return;
        }
        shminfo.readOnly = False;
        trapBegin();
        Bool ok = XShmAttach(dpy, &shminfo);
        int err = trapEnd(dpy);
        // Marked for removal now: it disappears when both we and the server detach.
        shmctl(shminfo.shmid, IPC_RMID, nullptr);
        if (!ok || err) {  // e.g. a remote display: the server cannot see our segment
            XDestroyImage(img);
            shmdt(shminfo.shmaddr);
            return;
        }
        shm_image = img;
        shm = true;
    }

    // ---- keyboard ----
    KeySym sym(int kc, int level) const { return keymap[size_t((kc - min_kc) * per + level)]; }

    void refreshKeymap() {
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

    // The keycode carrying `ks` on level 0 (shift = false) or level 1 (shift = true); 0 if none.
    int findKey(KeySym ks, bool& shift) const {
        for (int level = 0; level < std::min(per, 2); ++level)
            for (int kc = min_kc; kc <= max_kc; ++kc)
                if (sym(kc, level) == ks) {
                    shift = level == 1;
                    return kc;
                }
        return 0;
    }

    bool isSpare(int kc) const {
        for (int l = 0; l < per; ++l)
            if (sym(kc, l) != NoSymbol) return false;
        return true;
    }

    void setMapping(int kc, KeySym ks) {
        std::vector<KeySym> syms(size_t(per), NoSymbol);
        if (ks != NoSymbol) {
            syms[0] = ks;
            if (per > 1) syms[1] = ks;
        }
        XChangeKeyboardMapping(dpy, kc, per, syms.data(), 1);
        std::copy(syms.begin(), syms.end(), keymap.begin() + (kc - min_kc) * per);
    }

    void waitSettled(int kc) {
        auto it = last_use.find(kc);
        if (it == last_use.end()) return;
        double left = it->second + kRemapSettleSeconds - now();
        if (left > 0) std::this_thread::sleep_for(std::chrono::duration<double>(left));
    }

    // Maps `ks` onto a spare keycode (or the least recently used one we remapped before).
    int remap(KeySym ks) {
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

    // The keycode for `ks`, remapping a spare one if the keymap lacks it.
    int keycodeFor(KeySym ks, bool& shift) {
        shift = false;
        if (int kc = findKey(ks, shift)) return kc;
        return remap(ks);
    }

    void key(int kc, bool down) {
        XTestFakeKeyEvent(dpy, unsigned(kc), down ? True : False, CurrentTime);
        if (remapped.size()) {
            for (auto& [s, k] : remapped)
                if (k == kc) last_use[kc] = now();
        }
    }

    int shiftKeycode() {
        bool shift;
        int kc = findKey(XK_Shift_L, shift);
        if (!kc) kc = findKey(XK_Shift_R, shift);
        if (!kc) throw DeviceError("X display " + name + ": the keymap has no Shift key");
        return kc;
    }

    void restoreMapping() {
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

    static std::string hex(unsigned long v) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%lx", v);
        return buf;
    }
};

namespace {
void onIOExit(Display*, void* data) { static_cast<X11Device::Impl*>(data)->dead = true; }
}  // namespace

X11Device::X11Device(const std::string& display_name, double scale)
    : impl_(std::make_unique<Impl>()) {
    installHandlers();
    Impl& d = *impl_;
    d.scale = scale;
    if (display_name.empty() && !std::getenv("DISPLAY"))
        throw DeviceError("cannot open X display: DISPLAY is not set (start an X server or use "
                          "a virtual display)");
    d.dpy = XOpenDisplay(display_name.empty() ? nullptr : display_name.c_str());
    if (!d.dpy) {
        std::string shown = display_name.empty() ? std::getenv("DISPLAY") : display_name;
        throw DeviceError("cannot open X display \"" + shown +
                          "\" (is an X server running there, and does it accept this client? "
                          "check DISPLAY and XAUTHORITY)");
    }
    {
        std::lock_guard lk(g_io_mu);
        g_our_displays.insert(d.dpy);
    }
    XSetIOErrorExitHandler(d.dpy, onIOExit, &d);
    d.name = DisplayString(d.dpy);
    d.screen = DefaultScreen(d.dpy);
    d.root = RootWindow(d.dpy, d.screen);

    int ev, err, major, minor;
    if (!XTestQueryExtension(d.dpy, &ev, &err, &major, &minor))
        throw DeviceError("X display " + d.name + " has no XTEST extension (needed for input)");
    d.querySize();
    d.initShm();
}

// ~Impl restores the keyboard mapping, frees the SHM segment and closes the display.
X11Device::~X11Device() = default;

std::string X11Device::describe() const {
    return "x11 " + impl_->name + " " + std::to_string(impl_->size.w) + "x" +
           std::to_string(impl_->size.h);
}

Size X11Device::screenSize() const { return impl_->size; }
double X11Device::scaleFactor() const { return impl_->scale; }
const std::string& X11Device::displayName() const { return impl_->name; }
bool X11Device::usesShm() const { return impl_->shm; }

Frame X11Device::capture() {
    Impl& d = *impl_;
    d.checkAlive();
    if (d.visual->c_class != TrueColor && d.visual->c_class != DirectColor)
        throw DeviceError("X display " + d.name +
                          ": capture needs a TrueColor visual (root depth " +
                          std::to_string(d.depth) + ")");
    Frame f;
    f.scale = d.scale;
    if (d.shm) {
        trapBegin();
        Bool ok = XShmGetImage(d.dpy, d.root, d.shm_image, 0, 0, AllPlanes);
        int err = trapEnd(d.dpy);
        d.checkAlive();
        if (!ok || err) {
            // Most likely the screen was resized (RandR): re-read the size, rebuild the buffer.
            d.querySize();
            d.initShm();
            if (d.shm) {
                trapBegin();
                ok = XShmGetImage(d.dpy, d.root, d.shm_image, 0, 0, AllPlanes);
                err = trapEnd(d.dpy);
            }
        }
        if (d.shm && ok && !err) f.bgr = toBgr(d.shm_image);
    }
    if (f.bgr.empty()) {
        trapBegin();
        XImage* img = XGetImage(d.dpy, d.root, 0, 0, unsigned(d.size.w), unsigned(d.size.h),
                                AllPlanes, ZPixmap);
        int err = trapEnd(d.dpy);
        d.checkAlive();
        if (!img) {
            d.querySize();  // maybe resized; the next capture uses the new size
            throw DeviceError("X display " + d.name + ": XGetImage failed (X error " +
                              std::to_string(err) + ")");
        }
        try {
            f.bgr = toBgr(img);
        } catch (...) {
            XDestroyImage(img);
            throw;
        }
        XDestroyImage(img);
    }
    f.timestamp = wallSeconds();
    f.monotonic = monotonicSeconds();
    return f;
}

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
    XQueryPointer(d.dpy, d.root, &rootRet, &child, &rx, &ry, &wx, &wy, &mask);
    d.checkAlive();
    return {rx, ry};
}

void X11Device::click(MouseButton button, int count) {
    Impl& d = *impl_;
    d.checkAlive();
    for (int i = 0; i < count; ++i) {
        XTestFakeButtonEvent(d.dpy, unsigned(button), True, CurrentTime);
        XTestFakeButtonEvent(d.dpy, unsigned(button), False, CurrentTime);
    }
    d.flush();
}

void X11Device::press(MouseButton button) {
    Impl& d = *impl_;
    d.checkAlive();
    XTestFakeButtonEvent(d.dpy, unsigned(button), True, CurrentTime);
    d.flush();
}

void X11Device::release(MouseButton button) {
    Impl& d = *impl_;
    d.checkAlive();
    XTestFakeButtonEvent(d.dpy, unsigned(button), False, CurrentTime);
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
    int shiftKc = 0;
    for (size_t i = 0; i < cps.size(); ++i) {
        if (cps[i] == '\r' && i + 1 < cps.size() && cps[i + 1] == '\n') continue;
        KeySym ks = keysymForCodepoint(cps[i]);
        bool shift = false;
        int kc = d.keycodeFor(ks, shift);
        if (shift && !shiftKc) shiftKc = d.shiftKeycode();
        if (shift) d.key(shiftKc, true);
        d.key(kc, true);
        d.key(kc, false);
        if (shift) d.key(shiftKc, false);
        d.flush();
    }
}

void X11Device::keyCombo(const std::vector<uint32_t>& keysyms) {
    Impl& d = *impl_;
    d.checkAlive();
    if (keysyms.empty()) return;
    d.refreshKeymap();
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

void X11Device::keyDown(uint32_t keysym) {
    Impl& d = *impl_;
    d.checkAlive();
    d.refreshKeymap();
    bool shift;
    d.key(d.keycodeFor(keysym, shift), true);
    d.flush();
}

void X11Device::keyUp(uint32_t keysym) {
    Impl& d = *impl_;
    d.checkAlive();
    d.refreshKeymap();
    bool shift;
    int kc = d.findKey(keysym, shift);
    if (!kc) return;
    d.key(kc, false);
    d.flush();
}

void X11Device::sync() {
    Impl& d = *impl_;
    d.checkAlive();
    XSync(d.dpy, False);
    d.checkAlive();
}

void X11Device::restoreKeyboardMapping() {
    impl_->checkAlive();
    impl_->restoreMapping();
    impl_->checkAlive();
}

}  // namespace eacu

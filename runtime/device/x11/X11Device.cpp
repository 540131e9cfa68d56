// X11Device: the connection to the X server (open, close, lost display), screen information
// and sync. Capture is in X11Capture.cpp, the keymap in X11Keymap.cpp, input in X11Input.cpp.
#include "device/x11/X11Device.h"

#include <X11/extensions/XTest.h>

#include <cstdlib>

#include "base/IoDeadline.h"
#include "device/atspi/AtspiAccessibility.h"
#include "device/x11/X11DeviceImpl.h"
#include "device/x11/X11Errors.h"

namespace eacu {

X11Device::Impl::~Impl() {
    try {
        // Watched (a display that stopped answering does not hold the close), with a bound of
        // its own: the run's may be used up (--max-time), and the mapping is still restored.
        IoDeadlineScope own = IoDeadlineScope::cleanup(5, "the close's bound of 5 s");
        restoreMapping();
    } catch (...) {
    }
    watchdog.reset();  // its thread, before the connection goes
    freeShm();
    if (dpy) {
        XCloseDisplay(dpy);
        x11::releaseDisplay(dpy);
    }
}

void X11Device::Impl::checkAlive() const {
    if (watchdog) watchdog->throwIfFired();
    if (dead)
        throw DeviceError("X display " + name +
                          " went away (the X server exited or the connection broke)");
}

DeviceWait X11Device::Impl::roundTrip(const char* operation) const { return x11Wait("X display " + name, operation); }

void X11Device::Impl::watch(std::optional<X11Watchdog::Scope>& bound, const char* operation) const {
    if (watchdog) bound.emplace(*watchdog, roundTrip(operation));
}

void X11Device::Impl::flush() {
    checkAlive();
    {
        // Blocks only when the socket's buffer is full (a display that stopped reading input).
        X11Watchdog::Scope bound(*watchdog, roundTrip("input"));
        XFlush(dpy);
    }
    checkAlive();
}

void X11Device::Impl::querySize() {
    XWindowAttributes attrs;
    if (!XGetWindowAttributes(dpy, root, &attrs)) {
        checkAlive();
        throw DeviceError("X display " + name + ": cannot read the root window attributes");
    }
    size = {attrs.width, attrs.height};
    visual = attrs.visual;
    depth = attrs.depth;
}

namespace {
void onIOExit(Display*, void* data) { static_cast<X11Device::Impl*>(data)->dead = true; }
}  // namespace

X11Device::X11Device(const std::string& display_name, double scale)
    : impl_(std::make_unique<Impl>()) {
    x11::installHandlers();
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
    x11::adoptDisplay(d.dpy);
    XSetIOErrorExitHandler(d.dpy, onIOExit, &d);
    d.watchdog = std::make_unique<X11Watchdog>(ConnectionNumber(d.dpy));
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

Windows& X11Device::windows() {
    impl_->checkAlive();
    if (!impl_->windows) impl_->windows = std::make_unique<X11Windows>(impl_->name, impl_->scale);
    return *impl_->windows;
}

Accessibility& X11Device::accessibility() {
    impl_->checkAlive();
    if (!a11y_) a11y_ = std::make_unique<AtspiAccessibility>("", impl_->name);
    return *a11y_;
}

void X11Device::setAccessibility(std::unique_ptr<Accessibility> a11y) { a11y_ = std::move(a11y); }

void X11Device::sync() {
    Impl& d = *impl_;
    d.checkAlive();
    {
        X11Watchdog::Scope bound(*d.watchdog, d.roundTrip("sync"));
        XSync(d.dpy, False);
    }
    d.checkAlive();
}

}  // namespace eacu

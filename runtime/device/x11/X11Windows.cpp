// X11Windows: the connection to the display (its extensions, atoms, and closing it).
// X11WindowsImpl.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11WindowsImpl.h"

#include <X11/extensions/XRes.h>
#include <X11/extensions/Xcomposite.h>

#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

void onIOExit(Display*, void* data) { *static_cast<bool*>(data) = true; }

}  // namespace

X11Windows::Impl::~Impl() {
    watchdog.reset();  // its thread, before the connection goes
    if (dpy) {
        for (Window w : redirected) {
            x11::trapBegin();
            XCompositeUnredirectWindow(dpy, w, CompositeRedirectAutomatic);
            x11::trapEnd(dpy);
        }
        XCloseDisplay(dpy);
        x11::releaseDisplay(dpy);
    }
}

void X11Windows::Impl::checkAlive() const {
    if (watchdog) watchdog->throwIfFired();
    if (dead)
        throw DeviceError("X display " + name +
                          " went away (the X server exited or the connection broke)");
}

Atom X11Windows::Impl::atom(const char* n) {
    auto it = atoms.find(n);
    if (it != atoms.end()) return it->second;
    Atom a = XInternAtom(dpy, n, False);
    atoms.emplace(n, a);
    return a;
}

X11Windows::X11Windows(const std::string& display_name, double scale) : impl_(std::make_unique<Impl>()) {
    impl_->scale = scale;
    x11::installHandlers();
    Impl& d = *impl_;
    d.dpy = XOpenDisplay(display_name.empty() ? nullptr : display_name.c_str());
    if (!d.dpy)
        throw DeviceError("cannot open X display \"" + display_name + "\" for its windows");
    x11::adoptDisplay(d.dpy);
    XSetIOErrorExitHandler(d.dpy, onIOExit, &d.dead);
    d.watchdog = std::make_unique<X11Watchdog>(ConnectionNumber(d.dpy));
    d.name = DisplayString(d.dpy);
    d.screen = DefaultScreen(d.dpy);
    d.root = RootWindow(d.dpy, d.screen);
    d.bounded("window list", [&] {
        int ev = 0, err = 0, major = 0, minor = 0;
        int cmajor = 0, cminor = 2;
        d.composite = XCompositeQueryExtension(d.dpy, &ev, &err) && XCompositeQueryVersion(d.dpy, &cmajor, &cminor) &&
                      (cmajor > 0 || cminor >= 2);
        d.xres = XResQueryExtension(d.dpy, &ev, &err) && XResQueryVersion(d.dpy, &major, &minor) &&
                 (major > 1 || (major == 1 && minor >= 2));
    });
}

X11Windows::~X11Windows() = default;

}  // namespace eacu

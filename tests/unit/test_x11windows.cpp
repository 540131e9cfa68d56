// X11Windows without a window manager, on a bare Xvfb, with a window this test makes itself:
// listing, move and resize through the server, focus, and the errors of the operations that
// need a manager or a WM_DELETE_WINDOW protocol.
#include <catch2/catch.hpp>

#include <opencv2/core.hpp>
#include <string>

#include "device/virtual/VirtualDisplay.h"
#include "device/x11/X11Windows.h"

// Xlib after eacu's headers (OpenCV), whose names its macros break.
#include <X11/Xlib.h>
#include <X11/Xutil.h>
#include <X11/keysym.h>
#include <unistd.h>

using namespace eacu;

TEST_CASE("X11Windows: a plain window without a window manager", "[windows][x11]") {
    auto vd = VirtualDisplay::start(400, 300);
    Display* dpy = XOpenDisplay(vd->name().c_str());
    REQUIRE(dpy);
    Window w = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), 10, 20, 120, 80, 0, 0, 0xffffff);
    XClassHint hint{const_cast<char*>("eacutest"), const_cast<char*>("EacuTest")};
    XSetClassHint(dpy, w, &hint);
    XStoreName(dpy, w, "plain test window");
    XMapWindow(dpy, w);
    XSync(dpy, False);

    X11Windows ws(vd->name());
    CHECK_FALSE(ws.hasWindowManager());
    auto list = ws.list();
    REQUIRE(list.size() == 1);
    const WindowInfo& i = list[0];
    CHECK(i.id == w);
    CHECK(i.title == "plain test window");
    CHECK(i.cls == "EacuTest");
    CHECK(i.instance == "eacutest");
    CHECK((i.x == 10 && i.y == 20 && i.w == 120 && i.h == 80));
    CHECK(i.pid == int(getpid()));  // X-Resource: this process is the client
    CHECK(i.desktop == -1);

    WindowInfo moved = ws.move(w, 50, 60);
    CHECK((moved.x == 50 && moved.y == 60));
    WindowInfo resized = ws.resize(w, 200, 100);
    CHECK((resized.w == 200 && resized.h == 100 && resized.x == 50));
    WindowInfo focused = ws.focus(w);
    CHECK(focused.focused);
    REQUIRE(ws.frontmost());
    CHECK(ws.frontmost()->id == w);

    CHECK_THROWS_WITH(ws.minimize(w), Catch::Contains("cannot minimize window") &&
                                          Catch::Contains("needs a window manager and none runs"));
    CHECK_THROWS_WITH(ws.maximize(w), Catch::Contains("cannot maximize"));
    CHECK_THROWS_WITH(ws.close(w), Catch::Contains("does not take WM_DELETE_WINDOW (its WM_PROTOCOLS: none)") &&
                                       Catch::Contains("does not kill"));
    CHECK_THROWS_WITH(ws.resize(w, 0, 10), Catch::Contains("expected a positive size, got 0x10"));

    WindowCapture c = ws.capture(w);
    CHECK((c.origin.x == 50 && c.origin.y == 60));
    CHECK((c.frame.width() == 200 && c.frame.height() == 100));
    CHECK(c.frame.bgr.at<cv::Vec3b>(50, 100) == cv::Vec3b(255, 255, 255));  // its white background

    XDestroyWindow(dpy, w);
    XSync(dpy, False);
    CHECK_FALSE(ws.info(w).has_value());
    CHECK(ws.list().empty());
    CHECK_THROWS_WITH(ws.focus(w), Catch::Contains("is gone"));
    XCloseDisplay(dpy);
}

TEST_CASE("X11Windows: the window at a point, and input sent to a window as events", "[windows][x11]") {
    auto vd = VirtualDisplay::start(400, 300);
    Display* dpy = XOpenDisplay(vd->name().c_str());
    REQUIRE(dpy);
    auto make = [&](const char* name, int x, int y) {
        Window w = XCreateSimpleWindow(dpy, DefaultRootWindow(dpy), x, y, 100, 80, 0, 0, 0xffffff);
        XClassHint hint{const_cast<char*>(name), const_cast<char*>("EacuTest")};
        XSetClassHint(dpy, w, &hint);
        XStoreName(dpy, w, name);
        XSelectInput(dpy, w, ButtonPressMask | ButtonReleaseMask | KeyPressMask | KeyReleaseMask);
        XMapWindow(dpy, w);
        return w;
    };
    Window below = make("below", 10, 10);
    Window above = make("above", 60, 40);  // mapped later: on top, overlapping `below`
    XSync(dpy, False);

    X11Windows ws(vd->name());
    auto at = [&](int x, int y) { auto w = ws.windowAt({x, y}); return w ? Window(w->id) : Window(0); };
    CHECK(at(20, 20) == below);
    CHECK(at(80, 60) == above);  // the overlap: the one on top
    CHECK(at(150, 110) == above);
    CHECK(at(300, 250) == Window(0));  // only the root there
    REQUIRE(ws.windowAt({80, 60}));
    CHECK(ws.windowAt({80, 60})->title == "above");

    // A click sent to `below` at a point `above` covers reaches `below`, at window coordinates.
    ws.sendClick(below, {80, 60}, MouseButton::Left, 1);
    XSync(dpy, False);
    XEvent e;
    REQUIRE(XCheckTypedWindowEvent(dpy, below, ButtonPress, &e));
    CHECK(e.xbutton.send_event);
    CHECK((e.xbutton.x == 70 && e.xbutton.y == 50 && e.xbutton.x_root == 80 && e.xbutton.y_root == 60));
    CHECK(e.xbutton.button == 1);
    REQUIRE(XCheckTypedWindowEvent(dpy, below, ButtonRelease, &e));
    CHECK_FALSE(XCheckTypedWindowEvent(dpy, above, ButtonPress, &e));

    // Keys: "A" is the shifted "a" key.
    ws.sendText(below, "A");
    XSync(dpy, False);
    REQUIRE(XCheckTypedWindowEvent(dpy, below, KeyPress, &e));
    CHECK(e.xkey.send_event);
    CHECK(e.xkey.keycode == XKeysymToKeycode(dpy, XK_a));
    CHECK((e.xkey.state & ShiftMask) != 0);
    XDestroyWindow(dpy, above);
    XDestroyWindow(dpy, below);
    XCloseDisplay(dpy);
}

#include "device/x11/Highlight.h"

#include <X11/Xlib.h>
#include <X11/Xutil.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

namespace eacu {
namespace {

struct Outlines {
    std::mutex mu;
    std::condition_variable cv;
    bool stopping = false;
    std::vector<std::thread> threads;
    std::atomic<int> shown{0};

    ~Outlines() { stopAll(); }

    void stopAll() {
        std::vector<std::thread> ts;
        {
            std::lock_guard<std::mutex> l(mu);
            stopping = true;
            ts.swap(threads);
        }
        cv.notify_all();
        for (auto& t : ts)
            if (t.joinable()) t.join();
        std::lock_guard<std::mutex> l(mu);
        stopping = false;
    }
};

Outlines& outlines() {
    static Outlines o;
    return o;
}

}  // namespace

void flashOutline(const std::string& display, const Rect& box, double seconds, uint32_t rgb, int thickness) {
    Display* dpy = XOpenDisplay(display.empty() ? nullptr : display.c_str());
    if (!dpy)
        throw std::runtime_error("highlight: cannot open X display \"" +
                                 (display.empty() ? std::string("$DISPLAY") : display) + "\"");
    int screen = DefaultScreen(dpy);
    Window root = RootWindow(dpy, screen);
    XSetWindowAttributes attrs{};
    attrs.override_redirect = True;
    XColor c{};
    c.red = uint16_t(((rgb >> 16) & 0xff) * 257);
    c.green = uint16_t(((rgb >> 8) & 0xff) * 257);
    c.blue = uint16_t((rgb & 0xff) * 257);
    c.flags = DoRed | DoGreen | DoBlue;
    XAllocColor(dpy, DefaultColormap(dpy, screen), &c);
    attrs.background_pixel = c.pixel;
    const int t = std::max(1, thickness);
    const int x = box.x - t, y = box.y - t, w = box.w + 2 * t, h = box.h + 2 * t;
    // Top, bottom, left, right bars around the box.
    const Rect bars[4] = {{x, y, w, t}, {x, y + h - t, w, t}, {x, y + t, t, h - 2 * t}, {x + w - t, y + t, t, h - 2 * t}};
    std::vector<Window> wins;
    for (const Rect& b : bars) {
        if (b.w <= 0 || b.h <= 0) continue;
        Window win = XCreateWindow(dpy, root, b.x, b.y, unsigned(b.w), unsigned(b.h), 0, CopyFromParent, InputOutput,
                                   CopyFromParent, CWOverrideRedirect | CWBackPixel, &attrs);
        XStoreName(dpy, win, "eacu highlight");
        XMapRaised(dpy, win);
        wins.push_back(win);
    }
    XSync(dpy, False);
    Outlines& o = outlines();
    o.shown++;
    std::lock_guard<std::mutex> l(o.mu);
    o.threads.emplace_back([dpy, wins, seconds, &o] {
        {
            std::unique_lock<std::mutex> lk(o.mu);
            o.cv.wait_for(lk, std::chrono::duration<double>(seconds), [&] { return o.stopping; });
        }
        for (Window w : wins) XDestroyWindow(dpy, w);
        XSync(dpy, False);
        XCloseDisplay(dpy);
        o.shown--;
    });
}

void clearOutlines() { outlines().stopAll(); }

int outlinesShown() { return outlines().shown.load(); }

}  // namespace eacu

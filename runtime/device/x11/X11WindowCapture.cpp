// X11Windows: capturing one window's pixels through the Composite extension.
// X11WindowsImpl.h (OpenCV through Device.h) before Xlib, whose macros break OpenCV's headers.
#include "device/x11/X11WindowsImpl.h"

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <X11/Xutil.h>
#include <X11/extensions/Xcomposite.h>

#include <chrono>
#include <thread>

#include "base/Clock.h"
#include "base/Frame.h"
#include "device/x11/X11Errors.h"

namespace eacu {

namespace {

// An XImage (ZPixmap) as 8-bit BGR.
cv::Mat toBgr(XImage* img) {
    cv::Mat out(img->height, img->width, CV_8UC3);
    if (img->bits_per_pixel == 32 && img->red_mask == 0xff0000 && img->green_mask == 0xff00 &&
        img->blue_mask == 0xff && img->byte_order == LSBFirst) {
        cv::Mat bgra(img->height, img->width, CV_8UC4, img->data, size_t(img->bytes_per_line));
        cv::cvtColor(bgra, out, cv::COLOR_BGRA2BGR);
        return out;
    }
    auto channel = [](unsigned long px, unsigned long mask) {
        if (!mask) return 0;
        int shift = 0;
        while (!(mask & 1)) {
            mask >>= 1;
            ++shift;
        }
        return int(((px >> shift) & mask) * 255 / mask);
    };
    for (int y = 0; y < img->height; ++y)
        for (int x = 0; x < img->width; ++x) {
            unsigned long px = XGetPixel(img, x, y);
            out.at<cv::Vec3b>(y, x) = {uchar(channel(px, img->blue_mask)), uchar(channel(px, img->green_mask)),
                                       uchar(channel(px, img->red_mask))};
        }
    return out;
}

}  // namespace

WindowCapture X11Windows::capture(uint64_t id) {
    return impl_->bounded("window capture", [&]() -> WindowCapture {
        Impl& d = *impl_;
        WindowInfo i = d.current(id);
        if (!d.composite)
            throw DeviceError("cannot capture " + Impl::label(i) + " on its own: X display " + d.name +
                              " has no Composite extension (0.2 or later)");
        if (i.minimized)
            throw DeviceError("cannot capture " + Impl::label(i) + ": it is minimized, so nothing is drawn (restore it first)");
        const Window w = Window(id);
        bool fresh = false;
        if (!d.redirected.count(w)) {
            x11::trapBegin();
            XCompositeRedirectWindow(d.dpy, w, CompositeRedirectAutomatic);
            if (int err = x11::trapEnd(d.dpy))
                throw DeviceError("cannot capture " + Impl::label(i) + ": XCompositeRedirectWindow failed (X error " +
                                  std::to_string(err) + ")");
            d.redirected.insert(w);
            fresh = true;
        }
        auto grab = [&]() -> cv::Mat {
            WindowInfo now = d.current(id);
            i = now;
            x11::trapBegin();
            Pixmap pm = XCompositeNameWindowPixmap(d.dpy, w);
            XImage* img = XGetImage(d.dpy, pm, 0, 0, unsigned(now.w), unsigned(now.h), AllPlanes, ZPixmap);
            int err = x11::trapEnd(d.dpy);
            if (pm) XFreePixmap(d.dpy, pm);
            if (!img || err) {
                if (img) XDestroyImage(img);
                d.checkAlive();
                throw DeviceError("cannot capture " + Impl::label(now) + ": its pixmap cannot be read (X error " +
                                  std::to_string(err) + "; is it mapped?)");
            }
            // An image of a pixmap carries no visual: its colour masks are the window's.
            XWindowAttributes a;
            x11::trapBegin();
            Status have = XGetWindowAttributes(d.dpy, w, &a);
            if (x11::trapEnd(d.dpy) == 0 && have && a.visual) {
                img->red_mask = a.visual->red_mask;
                img->green_mask = a.visual->green_mask;
                img->blue_mask = a.visual->blue_mask;
            }
            cv::Mat bgr = toBgr(img);
            XDestroyImage(img);
            return bgr;
        };
        cv::Mat pixels = grab();
        if (fresh) {
            // The program redraws a freshly redirected window: wait until three reads agree.
            const double deadline = monotonicSeconds() + 1.0;
            int same = 0;
            while (same < 2 && monotonicSeconds() < deadline) {
                std::this_thread::sleep_for(std::chrono::milliseconds(30));
                cv::Mat again = grab();
                bool equal = again.size() == pixels.size() && cv::norm(again, pixels, cv::NORM_INF) == 0;
                same = equal ? same + 1 : 0;
                pixels = again;
            }
        }
        WindowCapture c;
        c.frame.bgr = pixels;
        c.frame.scale = d.scale;
        c.frame.timestamp = wallSeconds();
        c.frame.monotonic = monotonicSeconds();
        c.origin = {i.x, i.y};
        return c;
    });
}

}  // namespace eacu

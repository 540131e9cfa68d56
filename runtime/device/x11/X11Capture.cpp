// X11Device capture: MIT-SHM (XShmGetImage into a shared segment) with an XGetImage fallback,
// and the conversion of X images to BGR.
#include "device/x11/X11DeviceImpl.h"

#include <sys/ipc.h>
#include <sys/shm.h>

#include <cstdlib>
#include <opencv2/imgproc.hpp>

#include "device/x11/X11Errors.h"

namespace eacu {

using x11::trapBegin;
using x11::trapEnd;

namespace {

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

}  // namespace

void X11Device::Impl::freeShm() {
    if (!shm_image) return;
    if (!dead) XShmDetach(dpy, &shminfo);
    XDestroyImage(shm_image);  // XShm images: frees the struct only, not the segment
    shmdt(shminfo.shmaddr);
    shm_image = nullptr;
    shm = false;
}

void X11Device::Impl::initShm() {
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
    X11Watchdog::Scope bound(*d.watchdog, d.roundTrip("capture"));
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
        d.checkAlive();
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

}  // namespace eacu

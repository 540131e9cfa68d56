// Screen facts and capture: the whole virtual screen (BitBlt of the screen DC) or one window's
// client area (PrintWindow, checked for the black picture Wine and covered windows give), sent
// as the region that changed since the connection's last frame, run-length encoded (rle24).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

void screen_rect(int *x, int *y, int *w, int *h) {
    *x = GetSystemMetrics(SM_XVIRTUALSCREEN);
    *y = GetSystemMetrics(SM_YVIRTUALSCREEN);
    *w = GetSystemMetrics(SM_CXVIRTUALSCREEN);
    *h = GetSystemMetrics(SM_CYVIRTUALSCREEN);
}

const char *op_screen(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)r;
    int x, y, w, h;
    screen_rect(&x, &y, &w, &h);
    HDC dc = GetDC(NULL);
    int dpi = GetDeviceCaps(dc, LOGPIXELSX);
    ReleaseDC(NULL, dc);
    buf_printf(&out->json, ",\"w\":%d,\"h\":%d,\"origin\":[%d,%d],\"dpi\":%d,\"scale\":%.4f,\"monitors\":%d", w, h,
               x, y, dpi, dpi / 96.0, GetSystemMetrics(SM_CMONITORS));
    return NULL;
}

void conn_free_frame(Conn *c) {
    free(c->last);
    c->last = NULL;
    c->last_w = c->last_h = 0;
}

// Captures into a 32-bit top-down DIB: from the screen DC at (sx, sy), or through PrintWindow
// of `win`. Returns BGR (3 bytes a pixel, malloc) or NULL.
static uint8_t *grab(HWND win, int sx, int sy, int w, int h, int use_print) {
    HDC screen = GetDC(NULL);
    HDC mem = CreateCompatibleDC(screen);
    BITMAPINFO bi;
    memset(&bi, 0, sizeof bi);
    bi.bmiHeader.biSize = sizeof bi.bmiHeader;
    bi.bmiHeader.biWidth = w;
    bi.bmiHeader.biHeight = -h;
    bi.bmiHeader.biPlanes = 1;
    bi.bmiHeader.biBitCount = 32;
    bi.bmiHeader.biCompression = BI_RGB;
    void *bits = NULL;
    HBITMAP bmp = CreateDIBSection(screen, &bi, DIB_RGB_COLORS, &bits, NULL, 0);
    uint8_t *out = NULL;
    if (bmp && bits) {
        HGDIOBJ old = SelectObject(mem, bmp);
        BOOL ok;
        if (use_print) {
            ok = PrintWindow(win, mem, PW_CLIENTONLY | 2 /* PW_RENDERFULLCONTENT */);
        } else if (win) {
            HDC wdc = GetDC(win);
            ok = BitBlt(mem, 0, 0, w, h, wdc, 0, 0, SRCCOPY);
            ReleaseDC(win, wdc);
        } else {
            ok = BitBlt(mem, 0, 0, w, h, screen, sx, sy, SRCCOPY | CAPTUREBLT);
        }
        GdiFlush();
        if (ok) {
            out = malloc((size_t)w * h * 3);
            if (out) {
                const uint8_t *s = bits;
                uint8_t *d = out;
                for (size_t i = 0, n = (size_t)w * h; i < n; ++i, s += 4, d += 3) {
                    d[0] = s[0];
                    d[1] = s[1];
                    d[2] = s[2];
                }
            }
        }
        SelectObject(mem, old);
    }
    if (bmp) DeleteObject(bmp);
    DeleteDC(mem);
    ReleaseDC(NULL, screen);
    return out;
}

static int all_black(const uint8_t *p, size_t n) {
    for (size_t i = 0; i < n; ++i)
        if (p[i]) return 0;
    return 1;
}

// Whether a visible top-level window above `win` overlaps its rectangle `rc`.
static int covered(HWND win, const RECT *rc) {
    for (HWND h = GetWindow(win, GW_HWNDPREV); h; h = GetWindow(h, GW_HWNDPREV)) {
        RECT o, i;
        if (IsWindowVisible(h) && !IsIconic(h) && GetWindowRect(h, &o) && IntersectRect(&i, &o, rc)) return 1;
    }
    return 0;
}

// PackBits over 3-byte pixels: a control byte c < 128 is followed by c + 1 literal pixels,
// c >= 128 by one pixel repeated c - 126 times (2..129).
static void rle24(Buf *b, const uint8_t *img, int stride_px, int rx, int ry, int rw, int rh) {
    size_t n = (size_t)rw * rh;
    uint8_t *line = malloc(n * 3);
    if (!line) {
        b->oom = 1;
        return;
    }
    for (int y = 0; y < rh; ++y) memcpy(line + (size_t)y * rw * 3, img + ((size_t)(ry + y) * stride_px + rx) * 3, (size_t)rw * 3);
    size_t i = 0;
    while (i < n) {
        size_t run = 1;
        while (i + run < n && run < 129 && memcmp(line + (i + run) * 3, line + i * 3, 3) == 0) run++;
        if (run >= 2) {
            buf_putc(b, (char)(126 + run));
            buf_put(b, line + i * 3, 3);
            i += run;
            continue;
        }
        size_t lit = 1;
        while (i + lit < n && lit < 128 &&
               !(i + lit + 1 < n && memcmp(line + (i + lit) * 3, line + (i + lit + 1) * 3, 3) == 0))
            lit++;
        buf_putc(b, (char)(lit - 1));
        buf_put(b, line + i * 3, lit * 3);
        i += lit;
    }
    free(line);
}

const char *op_capture(Conn *c, const Req *r, Reply *out) {
    HWND win = req_hwnd(r, "window");
    int ox, oy, vx, vy, w, h;
    screen_rect(&vx, &vy, &w, &h);
    uint8_t *img = NULL;
    const char *source = "screen";
    int print_black = 0;
    if (win) {
        if (!IsWindow(win)) {
            snprintf(out->err, ERR_N, "window %llu is gone", (unsigned long long)(uintptr_t)win);
            return out->err;
        }
        if (IsIconic(win)) {
            snprintf(out->err, ERR_N, "window %llu is minimized: nothing is drawn", (unsigned long long)(uintptr_t)win);
            return out->err;
        }
        RECT cr, wr;
        POINT o = {0, 0};
        GetClientRect(win, &cr);
        ClientToScreen(win, &o);
        GetWindowRect(win, &wr);
        w = cr.right;
        h = cr.bottom;
        if (w <= 0 || h <= 0) return "the window has an empty client area";
        ox = o.x - vx;
        oy = o.y - vy;
        img = grab(win, 0, 0, w, h, 1);
        source = "printwindow";
        if (img && all_black(img, (size_t)w * h * 3)) {
            // PrintWindow answers TRUE with a black picture (Wine; some GPU-drawn programs).
            print_black = 1;
            free(img);
            img = NULL;
            if (covered(win, &wr)) {
                snprintf(out->err, ERR_N,
                         "PrintWindow gave a black picture of window %llu and other windows cover it: its own "
                         "pixels cannot be read (focus it first)",
                         (unsigned long long)(uintptr_t)win);
                return out->err;
            }
            img = grab(win, 0, 0, w, h, 0);
            source = "window-dc";
        }
    } else {
        ox = oy = 0;
        img = grab(NULL, vx, vy, w, h, 0);
    }
    if (!img) return "the capture failed (BitBlt or PrintWindow refused)";
    uint64_t target = (uint64_t)(uintptr_t)win;
    uint32_t base = (uint32_t)req_num(r, "base", 0);
    int full = !c->last || base == 0 || base != c->last_seq || c->last_w != w || c->last_h != h ||
               c->last_target != target;
    int rx = 0, ry = 0, rw = w, rh = h;
    if (!full) {
        int x0 = w, x1 = -1, y0 = h, y1 = -1;
        for (int y = 0; y < h; ++y) {
            const uint8_t *a = img + (size_t)y * w * 3, *b = c->last + (size_t)y * w * 3;
            if (memcmp(a, b, (size_t)w * 3) == 0) continue;
            if (y < y0) y0 = y;
            y1 = y;
            int l = 0, rr = w - 1;
            while (l < w && memcmp(a + l * 3, b + l * 3, 3) == 0) l++;
            while (rr > l && memcmp(a + rr * 3, b + rr * 3, 3) == 0) rr--;
            if (l < x0) x0 = l;
            if (rr > x1) x1 = rr;
        }
        if (y1 < 0) rw = rh = 0;
        else {
            rx = x0;
            ry = y0;
            rw = x1 - x0 + 1;
            rh = y1 - y0 + 1;
        }
    }
    if (rw > 0 && rh > 0) rle24(&out->bin, img, w, rx, ry, rw, rh);
    free(c->last);
    c->last = img;
    c->last_w = w;
    c->last_h = h;
    c->last_target = target;
    c->last_seq = c->last_seq + 1 ? c->last_seq + 1 : 1;
    buf_printf(&out->json,
               ",\"seq\":%lu,\"w\":%d,\"h\":%d,\"origin\":[%d,%d],\"full\":%s,\"rect\":[%d,%d,%d,%d],"
               "\"encoding\":\"rle24\",\"source\":\"%s\",\"printwindow_black\":%s",
               (unsigned long)c->last_seq, w, h, ox, oy, full ? "true" : "false", rx, ry, rw, rh, source,
               print_black ? "true" : "false");
    return NULL;
}

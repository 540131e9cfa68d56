// Pointer and keyboard input through SendInput: absolute moves over the virtual screen,
// buttons, wheel, virtual keys and characters, and text as KEYEVENTF_UNICODE (any script
// without an input method).
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char *send_events(INPUT *in, UINT n, Reply *out) {
    UINT sent = SendInput(n, in, sizeof(INPUT));
    if (sent != n) {
        snprintf(out->err, ERR_N, "SendInput sent %u of %u events (error %lu; a secure desktop or a "
                 "higher-integrity window in front refuses input)", sent, n, GetLastError());
        return out->err;
    }
    return NULL;
}

// Pins a button or wheel event to the connection's last moved-to point (see Conn).
static void at_point(const Conn *c, INPUT *in) {
    if (!c->has_point) return;
    in->mi.dx = c->point_dx;
    in->mi.dy = c->point_dy;
    in->mi.dwFlags |= MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK;
}

static void cursor_json(Buf *b) {
    POINT p;
    int vx, vy, w, h;
    screen_rect(&vx, &vy, &w, &h);
    GetCursorPos(&p);
    buf_printf(b, ",\"x\":%ld,\"y\":%ld", p.x - vx, p.y - vy);
}

const char *op_move(Conn *c, const Req *r, Reply *out) {
    int vx, vy, w, h;
    screen_rect(&vx, &vy, &w, &h);
    double x = req_num(r, "x", -1), y = req_num(r, "y", -1);
    if (x < 0 || y < 0 || x >= w || y >= h) {
        snprintf(out->err, ERR_N, "move: expected x in 0..%d and y in 0..%d, got (%.0f, %.0f)", w - 1, h - 1, x, y);
        return out->err;
    }
    INPUT in;
    memset(&in, 0, sizeof in);
    in.type = INPUT_MOUSE;
    // 0..65535 spans the virtual screen: pixel x is x * 65535 / (w - 1), rounded.
    in.mi.dx = w > 1 ? (LONG)((x * 65535.0) / (w - 1) + 0.5) : 0;
    in.mi.dy = h > 1 ? (LONG)((y * 65535.0) / (h - 1) + 0.5) : 0;
    in.mi.dwFlags = MOUSEEVENTF_MOVE | MOUSEEVENTF_ABSOLUTE | MOUSEEVENTF_VIRTUALDESK;
    const char *e = send_events(&in, 1, out);
    if (e) return e;
    c->has_point = 1;
    c->point_dx = in.mi.dx;
    c->point_dy = in.mi.dy;
    cursor_json(&out->json);
    return NULL;
}

const char *op_cursor(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)r;
    cursor_json(&out->json);
    return NULL;
}

static int button_flags(int button, int down, DWORD *flags) {
    switch (button) {
    case 1: *flags = down ? MOUSEEVENTF_LEFTDOWN : MOUSEEVENTF_LEFTUP; return 1;
    case 2: *flags = down ? MOUSEEVENTF_MIDDLEDOWN : MOUSEEVENTF_MIDDLEUP; return 1;
    case 3: *flags = down ? MOUSEEVENTF_RIGHTDOWN : MOUSEEVENTF_RIGHTUP; return 1;
    }
    return 0;
}

const char *op_button(Conn *c, const Req *r, Reply *out) {
    INPUT in;
    memset(&in, 0, sizeof in);
    in.type = INPUT_MOUSE;
    if (!button_flags((int)req_num(r, "button", 0), req_num(r, "down", 0) != 0, &in.mi.dwFlags))
        return "button: expected button 1 (left), 2 (middle) or 3 (right)";
    at_point(c, &in);
    return send_events(&in, 1, out);
}

const char *op_click(Conn *c, const Req *r, Reply *out) {
    int count = (int)req_num(r, "count", 1);
    if (count < 1 || count > 3) return "click: expected count 1..3";
    INPUT in[6];
    memset(in, 0, sizeof in);
    int button = (int)req_num(r, "button", 1);
    for (int i = 0; i < count * 2; ++i) {
        in[i].type = INPUT_MOUSE;
        if (!button_flags(button, i % 2 == 0, &in[i].mi.dwFlags))
            return "click: expected button 1 (left), 2 (middle) or 3 (right)";
        at_point(c, &in[i]);
    }
    return send_events(in, (UINT)count * 2, out);
}

const char *op_scroll(Conn *c, const Req *r, Reply *out) {
    int dx = (int)req_num(r, "dx", 0), dy = (int)req_num(r, "dy", 0);
    if (dx < -100 || dx > 100 || dy < -100 || dy > 100) return "scroll: expected dx and dy in -100..100 wheel clicks";
    INPUT in[2];
    memset(in, 0, sizeof in);
    UINT n = 0;
    if (dy) {
        in[n].type = INPUT_MOUSE;
        in[n].mi.dwFlags = MOUSEEVENTF_WHEEL;
        at_point(c, &in[n]);
        in[n++].mi.mouseData = (DWORD)(-dy * WHEEL_DELTA);  // positive is away from the user (up)
    }
    if (dx) {
        in[n].type = INPUT_MOUSE;
        in[n].mi.dwFlags = MOUSEEVENTF_HWHEEL;
        at_point(c, &in[n]);
        in[n++].mi.mouseData = (DWORD)(dx * WHEEL_DELTA);
    }
    return n ? send_events(in, n, out) : NULL;
}

static int extended_vk(WORD vk) {
    switch (vk) {
    case VK_RCONTROL: case VK_RMENU: case VK_INSERT: case VK_DELETE: case VK_HOME: case VK_END:
    case VK_PRIOR: case VK_NEXT: case VK_LEFT: case VK_RIGHT: case VK_UP: case VK_DOWN:
    case VK_NUMLOCK: case VK_DIVIDE: case VK_SNAPSHOT: case VK_LWIN: case VK_RWIN: case VK_APPS:
        return 1;
    }
    return 0;
}

static void vk_input(INPUT *in, WORD vk, int down) {
    memset(in, 0, sizeof *in);
    in->type = INPUT_KEYBOARD;
    in->ki.wVk = vk;
    in->ki.wScan = (WORD)MapVirtualKeyW(vk, MAPVK_VK_TO_VSC);
    in->ki.dwFlags = (down ? 0 : KEYEVENTF_KEYUP) | (extended_vk(vk) ? KEYEVENTF_EXTENDEDKEY : 0);
}

static void unicode_input(INPUT *in, WCHAR unit, int down) {
    memset(in, 0, sizeof *in);
    in->type = INPUT_KEYBOARD;
    in->ki.wScan = unit;
    in->ki.dwFlags = KEYEVENTF_UNICODE | (down ? 0 : KEYEVENTF_KEYUP);
}

// {"vk": N} a virtual key, or {"char": codepoint}: the key that types it on the current layout
// (Shift around it when the layout needs it), or KEYEVENTF_UNICODE when no key types it.
const char *op_key(Conn *c, const Req *r, Reply *out) {
    (void)c;
    int down = req_num(r, "down", 0) != 0;
    INPUT in[4];
    UINT n = 0;
    if (req_has(r, "vk")) {
        double vk = req_num(r, "vk", 0);
        if (vk < 1 || vk > 254) return "key: expected vk 1..254";
        vk_input(&in[n++], (WORD)vk, down);
        return send_events(in, n, out);
    }
    double cp = req_num(r, "char", -1);
    if (cp < 1 || cp > 0x10FFFF) return "key: expected \"vk\" (1..254) or \"char\" (a Unicode code point)";
    if (cp < 0x10000) {
        SHORT k = VkKeyScanW((WCHAR)cp);
        if (k != -1 && (k & 0x600) == 0) {  // no Ctrl/Alt needed
            int shift = (k & 0x100) != 0;
            if (down && shift) vk_input(&in[n++], VK_SHIFT, 1);
            vk_input(&in[n++], (WORD)(k & 0xFF), down);
            if (!down && shift) vk_input(&in[n++], VK_SHIFT, 0);
            return send_events(in, n, out);
        }
        unicode_input(&in[n++], (WCHAR)cp, down);
        return send_events(in, n, out);
    }
    unsigned v = (unsigned)cp - 0x10000;
    unicode_input(&in[n++], (WCHAR)(0xD800 + (v >> 10)), down);
    unicode_input(&in[n++], (WCHAR)(0xDC00 + (v & 0x3FF)), down);
    return send_events(in, n, out);
}

// The payload (UTF-8) typed as KEYEVENTF_UNICODE, "\n" as Return and "\t" as Tab ("\r" skipped).
const char *op_text(Conn *c, const Req *r, Reply *out) {
    (void)c;
    wchar_t *w = utf8_to_wide((const char *)r->payload, r->payload_n);
    if (!w) return "text: the payload is not valid UTF-8";
    size_t n = wcslen(w);
    INPUT *in = calloc(n * 2 + 2, sizeof(INPUT));
    if (!in) {
        free(w);
        return "out of memory";
    }
    UINT k = 0;
    for (size_t i = 0; i < n; ++i) {
        if (w[i] == L'\r') continue;
        if (w[i] == L'\n' || w[i] == L'\t') {
            vk_input(&in[k++], w[i] == L'\n' ? VK_RETURN : VK_TAB, 1);
            vk_input(&in[k++], w[i] == L'\n' ? VK_RETURN : VK_TAB, 0);
        } else {
            unicode_input(&in[k++], w[i], 1);
            unicode_input(&in[k++], w[i], 0);
        }
    }
    const char *e = NULL;
    // In slices, so a long text does not overrun the input queue.
    for (UINT i = 0; i < k && !e; i += 64) e = send_events(in + i, k - i < 64 ? k - i : 64, out);
    free(in);
    free(w);
    return e;
}

// Best effort: waits until the foreground window's thread has handled a message sent after
// the input (input queued before is normally handled first).
const char *op_sync(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)r;
    (void)out;
    HWND fg = GetForegroundWindow();
    DWORD_PTR res;
    for (int i = 0; i < 2 && fg; ++i) SendMessageTimeoutW(fg, WM_NULL, 0, 0, SMTO_ABORTIFHUNG, 1000, &res);
    return NULL;
}

// Top-level windows: the list (bottom first), focus, minimize, maximize, restore, move and
// resize of the client area, close (WM_CLOSE), the window at a point, and messages posted to
// a window without moving the pointer or the focus.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

void exe_name(DWORD pid, wchar_t *out, DWORD n) {
    out[0] = 0;
    HANDLE p = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, FALSE, pid);
    if (!p) return;
    wchar_t path[MAX_PATH];
    DWORD len = MAX_PATH;
    if (QueryFullProcessImageNameW(p, 0, path, &len)) {
        wchar_t *s = wcsrchr(path, L'\\');
        wcsncpy(out, s ? s + 1 : path, n - 1);
        out[n - 1] = 0;
    }
    CloseHandle(p);
}

int window_json(Buf *b, HWND h) {
    if (!IsWindow(h)) return 0;
    wchar_t title[512], cls[256], exe[MAX_PATH];
    GetWindowTextW(h, title, 512);
    GetClassNameW(h, cls, 256);
    DWORD pid = 0;
    GetWindowThreadProcessId(h, &pid);
    exe_name(pid, exe, MAX_PATH);
    RECT cr;
    POINT o = {0, 0};
    GetClientRect(h, &cr);
    ClientToScreen(h, &o);
    int vx, vy, vw, vh;
    screen_rect(&vx, &vy, &vw, &vh);
    buf_printf(b, "{\"id\":%llu,\"pid\":%lu,\"title\":", (unsigned long long)(uintptr_t)h, pid);
    buf_jwstr(b, title);
    buf_lit(b, ",\"cls\":");
    buf_jwstr(b, cls);
    buf_lit(b, ",\"instance\":");
    buf_jwstr(b, exe);
    buf_printf(b, ",\"x\":%ld,\"y\":%ld,\"w\":%ld,\"h\":%ld,\"focused\":%s,\"minimized\":%s,\"maximized\":%s,\"visible\":%s}",
               o.x - vx, o.y - vy, cr.right, cr.bottom, GetForegroundWindow() == h ? "true" : "false",
               IsIconic(h) ? "true" : "false", IsZoomed(h) ? "true" : "false",
               IsWindowVisible(h) ? "true" : "false");
    return 1;
}

typedef struct {
    HWND *h;
    int n, cap;
    int programs_only;
    int oom;
} HwndList;

static BOOL CALLBACK collect(HWND h, LPARAM lp) {
    HwndList *l = (HwndList *)lp;
    if (!IsWindowVisible(h)) return TRUE;
    wchar_t cls[64];
    GetClassNameW(h, cls, 64);
    // The shell's own windows are the desktop, not programs' windows.
    if (!wcscmp(cls, L"Progman") || !wcscmp(cls, L"Shell_TrayWnd") || !wcscmp(cls, L"#32769")) return TRUE;
    if (l->programs_only && GetWindowLongW(h, GWL_EXSTYLE) & WS_EX_TOOLWINDOW && GetWindowTextLengthW(h) == 0)
        return TRUE;
    if (l->n == l->cap) {
        int cap = l->cap ? l->cap * 2 : 64;
        HWND *p = realloc(l->h, (size_t)cap * sizeof(HWND));
        if (!p) {
            l->oom = 1;
            return FALSE;
        }
        l->h = p;
        l->cap = cap;
    }
    l->h[l->n++] = h;
    return TRUE;
}

int top_windows(HWND **out, int programs_only) {
    HwndList l = {0};
    l.programs_only = programs_only;
    EnumWindows(collect, (LPARAM)&l);
    if (l.oom) {
        free(l.h);
        *out = NULL;
        return -1;
    }
    *out = l.h;
    return l.n;
}

const char *op_windows(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)r;
    HWND *h = NULL;
    int n = top_windows(&h, 1);
    if (n < 0) return "windows: out of memory";
    buf_lit(&out->json, ",\"windows\":[");
    // EnumWindows goes from the top; the protocol lists bottom first.
    for (int i = n - 1, first = 1; i >= 0; --i) {
        if (!first) buf_putc(&out->json, ',');
        if (window_json(&out->json, h[i])) first = 0;
        else if (!first) out->json.n--;
    }
    buf_putc(&out->json, ']');
    free(h);
    return NULL;
}

static const char *gone(HWND h, Reply *out) {
    snprintf(out->err, ERR_N, "window %llu is gone", (unsigned long long)(uintptr_t)h);
    return out->err;
}

// Brings `h` to the front; the foreground lock is lifted by a synthetic Alt tap first, as
// Windows allows SetForegroundWindow to the process that got the last input.
static void bring_front(HWND h) {
    if (IsIconic(h)) ShowWindow(h, SW_RESTORE);
    if (GetForegroundWindow() == h) return;
    INPUT alt[2];
    memset(alt, 0, sizeof alt);
    alt[0].type = alt[1].type = INPUT_KEYBOARD;
    alt[0].ki.wVk = alt[1].ki.wVk = VK_MENU;
    alt[1].ki.dwFlags = KEYEVENTF_KEYUP;
    if (!SetForegroundWindow(h)) {
        SendInput(2, alt, sizeof(INPUT));
        SetForegroundWindow(h);
    }
    BringWindowToTop(h);
}

const char *op_window(Conn *c, const Req *r, Reply *out) {
    (void)c;
    HWND h = req_hwnd(r, "window");
    const char *action = req_str(r, "action");
    if (!action) return "window: expected an \"action\" (info, focus, minimize, maximize, restore, close, move, resize)";
    if (!IsWindow(h)) {
        if (!strcmp(action, "info")) {
            buf_lit(&out->json, ",\"window\":null");
            return NULL;
        }
        return gone(h, out);
    }
    RECT wr, cr;
    POINT o = {0, 0};
    GetWindowRect(h, &wr);
    GetClientRect(h, &cr);
    ClientToScreen(h, &o);
    int vx, vy, vw, vh;
    screen_rect(&vx, &vy, &vw, &vh);
    if (!strcmp(action, "info")) {
    } else if (!strcmp(action, "focus")) {
        bring_front(h);
    } else if (!strcmp(action, "minimize")) {
        ShowWindow(h, SW_MINIMIZE);
    } else if (!strcmp(action, "maximize")) {
        ShowWindow(h, SW_MAXIMIZE);
    } else if (!strcmp(action, "restore")) {
        ShowWindow(h, SW_RESTORE);
    } else if (!strcmp(action, "close")) {
        if (!PostMessageW(h, WM_CLOSE, 0, 0)) return gone(h, out);
    } else if (!strcmp(action, "move")) {
        if (!req_has(r, "x") || !req_has(r, "y")) return "window move: expected x and y (the client area's corner)";
        int x = (int)req_num(r, "x", 0) + vx, y = (int)req_num(r, "y", 0) + vy;
        // The frame's corner lies where it was relative to the client area's.
        SetWindowPos(h, NULL, x - (o.x - wr.left), y - (o.y - wr.top), 0, 0,
                     SWP_NOSIZE | SWP_NOZORDER | SWP_NOACTIVATE);
    } else if (!strcmp(action, "resize")) {
        int w = (int)req_num(r, "w", 0), hh = (int)req_num(r, "h", 0);
        if (w < 1 || hh < 1 || w > 32767 || hh > 32767) return "window resize: expected w and h of 1..32767 pixels";
        SetWindowPos(h, NULL, 0, 0, w + (wr.right - wr.left - cr.right), hh + (wr.bottom - wr.top - cr.bottom),
                     SWP_NOMOVE | SWP_NOZORDER | SWP_NOACTIVATE);
    } else {
        snprintf(out->err, ERR_N, "window: unknown action \"%.40s\" (expected info, focus, minimize, maximize, "
                 "restore, close, move or resize)", action);
        return out->err;
    }
    buf_lit(&out->json, ",\"window\":");
    if (!window_json(&out->json, h)) buf_lit(&out->json, "null");
    return NULL;
}

const char *op_window_at(Conn *c, const Req *r, Reply *out) {
    (void)c;
    int vx, vy, vw, vh;
    screen_rect(&vx, &vy, &vw, &vh);
    POINT p = {(LONG)req_num(r, "x", 0) + vx, (LONG)req_num(r, "y", 0) + vy};
    HWND h = WindowFromPoint(p);
    HWND root = h ? GetAncestor(h, GA_ROOT) : NULL;
    wchar_t cls[64] = L"";
    if (root) GetClassNameW(root, cls, 64);
    buf_lit(&out->json, ",\"window\":");
    if (!root || root == GetDesktopWindow() || !wcscmp(cls, L"Progman") || !window_json(&out->json, root))
        buf_lit(&out->json, "null");
    return NULL;
}

// The innermost visible child of `top` at screen point p.
static HWND child_at(HWND top, POINT p) {
    HWND h = top;
    for (;;) {
        POINT cp = p;
        ScreenToClient(h, &cp);
        HWND c = ChildWindowFromPointEx(h, cp, CWP_SKIPINVISIBLE | CWP_SKIPTRANSPARENT);
        if (!c || c == h) return h;
        h = c;
    }
}

// The window that has the keyboard focus in `top`'s thread (`top` itself when none).
static HWND focus_of(HWND top) {
    GUITHREADINFO gi = {sizeof gi};
    if (GetGUIThreadInfo(GetWindowThreadProcessId(top, NULL), &gi) && gi.hwndFocus) return gi.hwndFocus;
    return top;
}

// {"id", "kind": "click"|"key"|"text", ...}: posted messages, no pointer move and no focus change.
const char *op_send_input(Conn *c, const Req *r, Reply *out) {
    (void)c;
    HWND top = req_hwnd(r, "window");
    if (!IsWindow(top)) return gone(top, out);
    const char *kind = req_str(r, "kind");
    if (!kind) return "send_input: expected \"kind\": click, key or text";
    if (!strcmp(kind, "click")) {
        int vx, vy, vw, vh;
        screen_rect(&vx, &vy, &vw, &vh);
        POINT p = {(LONG)req_num(r, "x", 0) + vx, (LONG)req_num(r, "y", 0) + vy};
        HWND t = child_at(top, p);
        POINT cp = p;
        ScreenToClient(t, &cp);
        int button = (int)req_num(r, "button", 1), count = (int)req_num(r, "count", 1);
        UINT dn = button == 3 ? WM_RBUTTONDOWN : button == 2 ? WM_MBUTTONDOWN : WM_LBUTTONDOWN;
        WPARAM mk = button == 3 ? MK_RBUTTON : button == 2 ? MK_MBUTTON : MK_LBUTTON;
        LPARAM lp = MAKELPARAM(cp.x, cp.y);
        for (int i = 0; i < count && i < 3; ++i) {
            PostMessageW(t, i == 1 ? dn + 2 /* DBLCLK */ : dn, mk, lp);
            PostMessageW(t, dn + 1, 0, lp);
        }
        return NULL;
    }
    HWND f = focus_of(top);
    if (!strcmp(kind, "key")) {
        double vk = req_num(r, "vk", 0);
        if (vk < 1 || vk > 254) return "send_input key: expected vk 1..254";
        UINT scan = MapVirtualKeyW((UINT)vk, MAPVK_VK_TO_VSC);
        int down = req_num(r, "down", 0) != 0;
        PostMessageW(f, down ? WM_KEYDOWN : WM_KEYUP, (WPARAM)vk, 1 | (scan << 16) | (down ? 0 : 0xC0000000u));
        return NULL;
    }
    if (!strcmp(kind, "text")) {
        wchar_t *w = utf8_to_wide((const char *)r->payload, r->payload_n);
        if (!w) return "send_input text: the payload is not valid UTF-8";
        for (wchar_t *p = w; *p; ++p) PostMessageW(f, WM_CHAR, *p == L'\n' ? L'\r' : *p, 1);
        free(w);
        return NULL;
    }
    return "send_input: expected \"kind\": click, key or text";
}

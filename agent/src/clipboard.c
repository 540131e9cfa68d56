// The clipboard as Unicode text (CF_UNICODETEXT), carried as UTF-8 in the payload.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

// Another program may hold the clipboard for a moment: retry for up to a second.
static int open_clipboard(void) {
    for (int i = 0; i < 50; ++i) {
        if (OpenClipboard(NULL)) return 1;
        Sleep(20);
    }
    return 0;
}

const char *op_clipboard_get(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)r;
    if (!open_clipboard()) return "clipboard: another program keeps it open";
    HANDLE h = GetClipboardData(CF_UNICODETEXT);
    const wchar_t *w = h ? GlobalLock(h) : NULL;
    if (w) {
        int n = WideCharToMultiByte(CP_UTF8, 0, w, -1, NULL, 0, NULL, NULL);
        if (n > 1 && n - 1 <= 64 * 1024 * 1024) {
            char *u = malloc((size_t)n);
            if (u) {
                WideCharToMultiByte(CP_UTF8, 0, w, -1, u, n, NULL, NULL);
                buf_put(&out->bin, u, (size_t)n - 1);
                free(u);
            }
        }
        GlobalUnlock(h);
    }
    CloseClipboard();
    buf_printf(&out->json, ",\"text\":%s", w ? "true" : "false");
    return NULL;
}

const char *op_clipboard_set(Conn *c, const Req *r, Reply *out) {
    (void)c;
    (void)out;
    wchar_t *w = utf8_to_wide((const char *)r->payload, r->payload_n);
    if (!w) return "clipboard_set: the payload is not valid UTF-8";
    size_t bytes = (wcslen(w) + 1) * sizeof(wchar_t);
    HGLOBAL g = GlobalAlloc(GMEM_MOVEABLE, bytes);
    if (!g) {
        free(w);
        return "out of memory";
    }
    memcpy(GlobalLock(g), w, bytes);
    GlobalUnlock(g);
    free(w);
    if (!open_clipboard()) {
        GlobalFree(g);
        return "clipboard: another program keeps it open";
    }
    EmptyClipboard();
    HANDLE ok = SetClipboardData(CF_UNICODETEXT, g);
    CloseClipboard();
    if (!ok) {
        GlobalFree(g);
        return "clipboard: SetClipboardData refused the text";
    }
    return NULL;
}

// Just enough of <windows.h> for the agent's JSON reader (agent/src/json.c, through agent.h) to
// build natively for fuzzing (fuzz_agent_request): the types agent.h names, a strict UTF-8
// MultiByteToWideChar and WideCharToMultiByte (wchar_t is UTF-32 here). Nothing else of Win32.
#pragma once
#include <stddef.h>
#include <stdint.h>
#include <wchar.h>

typedef void *HWND;
typedef long LONG;
typedef unsigned long DWORD;

#define CP_UTF8 65001
#define MB_ERR_INVALID_CHARS 8

/// As Win32's with CP_UTF8 and MB_ERR_INVALID_CHARS: the number of code points of the `n`
/// bytes at `s` (written to `out` when `out_n` > 0), 0 for invalid UTF-8 (overlong forms,
/// surrogates, code points above U+10FFFF, cut sequences).
static inline int MultiByteToWideChar(unsigned cp, DWORD flags, const char *s, int n, wchar_t *out, int out_n) {
    (void)cp;
    (void)flags;
    const unsigned char *p = (const unsigned char *)s, *end = p + n;
    int count = 0;
    while (p < end) {
        unsigned c = *p++, need = 0, min = 0;
        if (c < 0x80) need = 0;
        else if ((c & 0xe0) == 0xc0) need = 1, min = 0x80, c &= 0x1f;
        else if ((c & 0xf0) == 0xe0) need = 2, min = 0x800, c &= 0x0f;
        else if ((c & 0xf8) == 0xf0) need = 3, min = 0x10000, c &= 0x07;
        else return 0;
        if ((unsigned)(end - p) < need) return 0;
        for (unsigned i = 0; i < need; ++i) {
            if ((*p & 0xc0) != 0x80) return 0;
            c = (c << 6) | (*p++ & 0x3f);
        }
        if (need && c < min) return 0;
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) return 0;
        if (out_n > 0) {
            if (count >= out_n) return 0;
            out[count] = (wchar_t)c;
        }
        ++count;
    }
    return count;
}

/// As Win32's with CP_UTF8: the UTF-8 bytes of the `n` code points at `s` (`n` = -1: up to and
/// with its NUL), written to `out` when `out_n` > 0; 0 when `out_n` is too small. A code point
/// that is no Unicode scalar value becomes U+FFFD.
static inline int WideCharToMultiByte(unsigned cp, DWORD flags, const wchar_t *s, int n, char *out, int out_n,
                                      const char *dflt, int *used_dflt) {
    (void)cp;
    (void)flags;
    (void)dflt;
    if (used_dflt) *used_dflt = 0;
    size_t len = n < 0 ? wcslen(s) + 1 : (size_t)n;
    int total = 0;
    for (size_t i = 0; i < len; ++i) {
        unsigned c = (unsigned)s[i];
        if (c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff)) c = 0xfffd;
        char b[4];
        int k = c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (k == 1) b[0] = (char)c;
        else if (k == 2) b[0] = (char)(0xc0 | (c >> 6)), b[1] = (char)(0x80 | (c & 0x3f));
        else if (k == 3) b[0] = (char)(0xe0 | (c >> 12)), b[1] = (char)(0x80 | ((c >> 6) & 0x3f)), b[2] = (char)(0x80 | (c & 0x3f));
        else b[0] = (char)(0xf0 | (c >> 18)), b[1] = (char)(0x80 | ((c >> 12) & 0x3f)), b[2] = (char)(0x80 | ((c >> 6) & 0x3f)), b[3] = (char)(0x80 | (c & 0x3f));
        if (out_n > 0) {
            if (total + k > out_n) return 0;
            for (int j = 0; j < k; ++j) out[total + j] = b[j];
        }
        total += k;
    }
    return total;
}

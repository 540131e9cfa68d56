// The agent's JSON: a growable output buffer with string escaping, and a parser for the flat
// request objects of docs/agent-protocol.md (no nesting but arrays of numbers).
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

void buf_free(Buf *b) {
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

void buf_put(Buf *b, const void *data, size_t n) {
    if (b->oom) return;
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n) cap *= 2;
        char *p = realloc(b->p, cap);
        if (!p) {
            b->oom = 1;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->n, data, n);
    b->n += n;
}

void buf_putc(Buf *b, char c) { buf_put(b, &c, 1); }

void buf_printf(Buf *b, const char *fmt, ...) {
    char tmp[1024];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n < 0) return;
    buf_put(b, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

void buf_jstr(Buf *b, const char *s, size_t n) {
    buf_putc(b, '"');
    for (size_t i = 0; i < n; ++i) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            buf_putc(b, '\\');
            buf_putc(b, (char)c);
        } else if (c < 0x20) {
            buf_printf(b, "\\u%04x", c);
        } else {
            buf_putc(b, (char)c);
        }
    }
    buf_putc(b, '"');
}

void buf_jwstr(Buf *b, const wchar_t *s) {
    int n = WideCharToMultiByte(CP_UTF8, 0, s, -1, NULL, 0, NULL, NULL);
    if (n <= 1) {
        buf_lit(b, "\"\"");
        return;
    }
    char *u = malloc((size_t)n);
    if (!u) {
        buf_lit(b, "\"\"");
        return;
    }
    WideCharToMultiByte(CP_UTF8, 0, s, -1, u, n, NULL, NULL);
    buf_jstr(b, u, (size_t)n - 1);
    free(u);
}

wchar_t *utf8_to_wide(const char *s, size_t n) {
    if (n == 0) return calloc(1, sizeof(wchar_t));
    if (n > 0x7fffffff) return NULL;
    int w = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, NULL, 0);
    if (w <= 0) return NULL;
    wchar_t *out = malloc(((size_t)w + 1) * sizeof(wchar_t));
    if (!out) return NULL;
    MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, s, (int)n, out, w);
    out[w] = 0;
    return out;
}

// ---- parsing ----

typedef struct {
    char *p, *end;
    const char *err;
} Cur;

static void ws(Cur *c) {
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r')) c->p++;
}

static int hex4(const char *p, unsigned *v) {
    *v = 0;
    for (int i = 0; i < 4; ++i) {
        char ch = p[i];
        *v <<= 4;
        if (ch >= '0' && ch <= '9') *v |= (unsigned)(ch - '0');
        else if (ch >= 'a' && ch <= 'f') *v |= (unsigned)(ch - 'a' + 10);
        else if (ch >= 'A' && ch <= 'F') *v |= (unsigned)(ch - 'A' + 10);
        else return 0;
    }
    return 1;
}

static void put_utf8(char **w, unsigned cp) {
    char *o = *w;
    if (cp < 0x80) *o++ = (char)cp;
    else if (cp < 0x800) {
        *o++ = (char)(0xC0 | (cp >> 6));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        *o++ = (char)(0xE0 | (cp >> 12));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    } else {
        *o++ = (char)(0xF0 | (cp >> 18));
        *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
        *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
        *o++ = (char)(0x80 | (cp & 0x3F));
    }
    *w = o;
}

// A string at c->p (after its opening quote is checked), decoded in place.
static int str(Cur *c, const char **out, size_t *out_n) {
    if (c->p >= c->end || *c->p != '"') {
        c->err = "expected a string";
        return 0;
    }
    c->p++;
    char *w = c->p;
    *out = w;
    while (c->p < c->end) {
        char ch = *c->p++;
        if (ch == '"') {
            *out_n = (size_t)(w - *out);
            *w = 0;  // at or before the closing quote, already read
            return 1;
        }
        if ((unsigned char)ch < 0x20) {
            c->err = "a control character inside a string";
            return 0;
        }
        if (ch != '\\') {
            *w++ = ch;
            continue;
        }
        if (c->p >= c->end) break;
        ch = *c->p++;
        switch (ch) {
        case '"': *w++ = '"'; break;
        case '\\': *w++ = '\\'; break;
        case '/': *w++ = '/'; break;
        case 'b': *w++ = '\b'; break;
        case 'f': *w++ = '\f'; break;
        case 'n': *w++ = '\n'; break;
        case 'r': *w++ = '\r'; break;
        case 't': *w++ = '\t'; break;
        case 'u': {
            unsigned v, lo;
            if (c->end - c->p < 4 || !hex4(c->p, &v)) {
                c->err = "a bad \\u escape";
                return 0;
            }
            c->p += 4;
            if (v >= 0xD800 && v < 0xDC00 && c->end - c->p >= 6 && c->p[0] == '\\' && c->p[1] == 'u' &&
                hex4(c->p + 2, &lo) && lo >= 0xDC00 && lo < 0xE000) {
                c->p += 6;
                v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
            }
            // \uXXXX takes 6 bytes and writes at most 4: the write stays behind the read.
            put_utf8(&w, v);
            break;
        }
        default: c->err = "a bad escape in a string"; return 0;
        }
    }
    c->err = "an unterminated string";
    return 0;
}

static int num(Cur *c, double *v) {
    char *start = c->p;
    while (c->p < c->end && strchr("+-0123456789.eE", *c->p)) c->p++;
    if (c->p == start || c->p - start > 40) {
        c->err = "expected a value (a number, a string, true, false, null or an array of numbers)";
        return 0;
    }
    char tmp[48];
    memcpy(tmp, start, (size_t)(c->p - start));
    tmp[c->p - start] = 0;
    char *e;
    *v = strtod(tmp, &e);
    if (*e) {
        c->err = "a malformed number";
        return 0;
    }
    return 1;
}

static int word(Cur *c, const char *w) {
    size_t n = strlen(w);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

const char *json_parse(char *text, size_t n, Req *r) {
    Cur c = {text, text + n, NULL};
    r->n = 0;
    ws(&c);
    if (c.p >= c.end || *c.p != '{') return "expected a JSON object";
    c.p++;
    ws(&c);
    if (c.p < c.end && *c.p == '}') {
        c.p++;
    } else {
        for (;;) {
            if (r->n >= AGENT_MAX_FIELDS) return "too many fields (at most 32)";
            JField *f = &r->f[r->n];
            memset(f, 0, sizeof *f);
            ws(&c);
            const char *k;
            size_t kn;
            if (!str(&c, &k, &kn)) return c.err;
            ws(&c);
            if (c.p >= c.end || *c.p != ':') return "expected ':' after a key";
            c.p++;
            ws(&c);
            if (c.p >= c.end) return "expected a value";
            if (*c.p == '"') {
                f->type = J_STR;
                if (!str(&c, &f->str, &f->str_n)) return c.err;
            } else if (word(&c, "true")) {
                f->type = J_BOOL;
                f->num = 1;
            } else if (word(&c, "false")) {
                f->type = J_BOOL;
            } else if (word(&c, "null")) {
                f->type = J_NULL;
            } else if (*c.p == '[') {
                f->type = J_ARR;
                c.p++;
                ws(&c);
                if (c.p < c.end && *c.p == ']') {
                    c.p++;
                } else {
                    for (;;) {
                        ws(&c);
                        if (f->arr_n >= AGENT_MAX_ARRAY) return "an array longer than 64";
                        if (!num(&c, &f->arr[f->arr_n++])) return "expected a number in an array";
                        ws(&c);
                        if (c.p < c.end && *c.p == ',') {
                            c.p++;
                            continue;
                        }
                        if (c.p < c.end && *c.p == ']') {
                            c.p++;
                            break;
                        }
                        return "expected ',' or ']' in an array";
                    }
                }
            } else {
                f->type = J_NUM;
                if (!num(&c, &f->num)) return c.err;
            }
            (void)kn;
            f->key = k;
            r->n++;
            ws(&c);
            if (c.p < c.end && *c.p == ',') {
                c.p++;
                continue;
            }
            if (c.p < c.end && *c.p == '}') {
                c.p++;
                break;
            }
            return "expected ',' or '}' after a value";
        }
    }
    ws(&c);
    if (c.p != c.end) return "text after the JSON object";
    return NULL;
}

const JField *req_get(const Req *r, const char *key) {
    for (int i = 0; i < r->n; ++i)
        if (strcmp(r->f[i].key, key) == 0) return &r->f[i];
    return NULL;
}

const char *req_str(const Req *r, const char *key) {
    const JField *f = req_get(r, key);
    return f && f->type == J_STR ? f->str : NULL;
}

double req_num(const Req *r, const char *key, double dflt) {
    const JField *f = req_get(r, key);
    return f && (f->type == J_NUM || f->type == J_BOOL) ? f->num : dflt;
}

int req_has(const Req *r, const char *key) { return req_get(r, key) != NULL; }

HWND req_hwnd(const Req *r, const char *key) {
    return (HWND)(uintptr_t)(uint64_t)req_num(r, key, 0);
}

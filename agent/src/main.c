// eacu-agent.exe [--host H] [--port P] [--token T]: listens for eacu (loopback by default; any
// other address needs a token), one thread per connection. Requests are taken one at a time
// within each of two classes across all connections (kOps' lock): input (SendInput and the
// sync after it) under g_input_lock, the rest (captures, the tree, windows, the clipboard,
// programs) under g_lock; a pointer or screen-size read takes neither. So a click from one
// connection is not held behind another connection's capture or tree read (40-180 ms under
// Wine), while two inputs never interleave their events. The token is never printed.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

static const char *g_token = "";
static int g_uia; // the element tree comes from UI Automation (agent_tree_init)
static CRITICAL_SECTION g_lock;       // captures, the tree, windows, the clipboard, programs
static CRITICAL_SECTION g_input_lock; // SendInput and sync
// Wrong tokens in a row (any connection): each costs 100 ms << that count (at most 5 s) under
// g_auth_lock, so that guesses are taken one at a time ever more slowly, from however many
// connections; a right token resets it.
static CRITICAL_SECTION g_auth_lock;
static unsigned g_bad_tokens;

typedef const char *(*Handler)(Conn *, const Req *, Reply *);
enum { LOCK_NONE, LOCK_INPUT, LOCK_STATE };
static const struct {
    const char *op;
    Handler fn;
    int lock;
} kOps[] = {
    {"screen", op_screen, LOCK_NONE},          {"cursor", op_cursor, LOCK_NONE},
    {"move", op_move, LOCK_INPUT},             {"button", op_button, LOCK_INPUT},
    {"click", op_click, LOCK_INPUT},           {"scroll", op_scroll, LOCK_INPUT},
    {"key", op_key, LOCK_INPUT},               {"text", op_text, LOCK_INPUT},
    {"sync", op_sync, LOCK_INPUT},             {"send_input", op_send_input, LOCK_INPUT},
    {"capture", op_capture, LOCK_STATE},       {"windows", op_windows, LOCK_STATE},
    {"window", op_window, LOCK_STATE},         {"window_at", op_window_at, LOCK_STATE},
    {"clipboard_get", op_clipboard_get, LOCK_STATE}, {"clipboard_set", op_clipboard_set, LOCK_STATE},
    {"launch", op_launch, LOCK_STATE},         {"wait", op_wait, LOCK_STATE},
    {"tree", op_tree, LOCK_STATE},             {"element", op_element, LOCK_STATE},
};

static int send_all(SOCKET s, const char *p, size_t n) {
    while (n > 0) {
        int k = send(s, p, n > 1 << 20 ? 1 << 20 : (int)n, 0);
        if (k <= 0) return 0;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

static int recv_all(SOCKET s, char *p, size_t n) {
    while (n > 0) {
        int k = recv(s, p, n > 1 << 20 ? 1 << 20 : (int)n, 0);
        if (k <= 0) return 0;
        p += k;
        n -= (size_t)k;
    }
    return 1;
}

static void put_u32(unsigned char *p, uint32_t v) {
    p[0] = (unsigned char)v;
    p[1] = (unsigned char)(v >> 8);
    p[2] = (unsigned char)(v >> 16);
    p[3] = (unsigned char)(v >> 24);
}

static uint32_t get_u32(const unsigned char *p) {
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static int send_msg(SOCKET s, const Buf *json, const Buf *bin) {
    unsigned char head[8];
    put_u32(head, (uint32_t)json->n);
    put_u32(head + 4, (uint32_t)(bin ? bin->n : 0));
    return send_all(s, (const char *)head, 8) && send_all(s, json->p, json->n) &&
           (!bin || bin->n == 0 || send_all(s, bin->p, bin->n));
}

static int send_error(SOCKET s, double id, const char *msg) {
    Buf j = {0};
    buf_printf(&j, "{\"id\":%.0f,\"ok\":false,\"error\":", id);
    buf_jstr(&j, msg, strlen(msg));
    buf_putc(&j, '}');
    int ok = !j.oom && send_msg(s, &j, NULL);
    buf_free(&j);
    return ok;
}

// Constant-time comparison, so the answer's timing says nothing about the token.
static int token_equal(const char *a, size_t an, const char *b) {
    size_t bn = strlen(b);
    unsigned diff = (unsigned)(an ^ bn);
    for (size_t i = 0; i < an; ++i) diff |= (unsigned char)a[i] ^ (unsigned char)b[i % (bn ? bn : 1)];
    return diff == 0;
}

static const char *op_hello(Conn *c, const Req *r, Reply *out) {
    double v = req_num(r, "version", -1);
    if (v != AGENT_PROTOCOL_VERSION) {
        snprintf(out->err, ERR_N, "protocol version: this agent speaks version %d, the client asked for %.0f",
                 AGENT_PROTOCOL_VERSION, v);
        return out->err;
    }
    const JField *t = req_get(r, "token");
    const char *tok = t && t->type == J_STR ? t->str : "";
    size_t tn = t && t->type == J_STR ? t->str_n : 0;
    EnterCriticalSection(&g_auth_lock);
    if (!token_equal(tok, tn, g_token)) {
        unsigned n = g_bad_tokens < 6 ? g_bad_tokens : 6;
        DWORD delay = 100u << n;
        ++g_bad_tokens;
        Sleep(delay > 5000 ? 5000 : delay);
        LeaveCriticalSection(&g_auth_lock);
        return "wrong token (EACU_AGENT_TOKEN must be the agent's --token)";
    }
    g_bad_tokens = 0;
    LeaveCriticalSection(&g_auth_lock);
    c->authed = 1;
    OSVERSIONINFOW vi;
    memset(&vi, 0, sizeof vi);
    vi.dwOSVersionInfoSize = sizeof vi;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
    GetVersionExW(&vi);
#pragma GCC diagnostic pop
    buf_printf(&out->json, ",\"version\":%d,\"agent\":\"eacu-agent\",\"os\":\"windows %lu.%lu.%lu\",\"pid\":%lu",
               AGENT_PROTOCOL_VERSION, vi.dwMajorVersion, vi.dwMinorVersion, vi.dwBuildNumber,
               GetCurrentProcessId());
    buf_printf(&out->json, ",\"max_header\":%d,\"max_payload\":%d,\"uia\":%s", AGENT_MAX_HEADER,
               AGENT_MAX_PAYLOAD, g_uia ? "true" : "false");
    return NULL;
}

static DWORD WINAPI serve(LPVOID arg) {
    SOCKET s = (SOCKET)(uintptr_t)arg;
    Conn conn = {0};
    // Until the hello, a silent client is dropped after 10 s.
    DWORD tmo = 10000;
    setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tmo, sizeof tmo);
    for (;;) {
        unsigned char head[8];
        if (!recv_all(s, (char *)head, 8)) break;
        uint32_t hn = get_u32(head), pn = get_u32(head + 4);
        if (hn == 0 || hn > AGENT_MAX_HEADER || pn > AGENT_MAX_PAYLOAD) {
            char msg[160];
            snprintf(msg, sizeof msg,
                     "message too large or empty: header %lu bytes (1..%d), payload %lu bytes (at most %d); "
                     "closing the connection",
                     (unsigned long)hn, AGENT_MAX_HEADER, (unsigned long)pn, AGENT_MAX_PAYLOAD);
            send_error(s, 0, msg);
            break;
        }
        char *msg = malloc((size_t)hn + pn + 1);
        if (!msg) {
            send_error(s, 0, "out of memory");
            break;
        }
        if (!recv_all(s, msg, (size_t)hn + pn)) {
            free(msg);
            break;
        }
        Req req;
        req.payload = (const uint8_t *)msg + hn;
        req.payload_n = pn;
        const char *perr = json_parse(msg, hn, &req);
        double id = perr ? 0 : req_num(&req, "id", 0);
        if (perr) {
            char m[200];
            snprintf(m, sizeof m, "malformed request header: %s", perr);
            int ok = send_error(s, 0, m);
            free(msg);
            if (!ok) break;
            continue;
        }
        const char *op = req_str(&req, "op");
        Reply rep;
        memset(&rep, 0, sizeof rep);
        const char *err = NULL;
        if (!op) {
            err = "the request has no \"op\" string";
        } else if (strcmp(op, "hello") == 0) {
            err = op_hello(&conn, &req, &rep);
        } else if (!conn.authed) {
            err = "expected a hello with the protocol version and the token first";
        } else {
            Handler fn = NULL;
            int lock = LOCK_NONE;
            for (size_t i = 0; i < sizeof kOps / sizeof kOps[0]; ++i)
                if (strcmp(kOps[i].op, op) == 0) {
                    fn = kOps[i].fn;
                    lock = kOps[i].lock;
                }
            if (!fn) {
                snprintf(rep.err, ERR_N, "unknown op \"%.64s\"", op);
                err = rep.err;
            } else {
                CRITICAL_SECTION *cs = lock == LOCK_INPUT ? &g_input_lock : lock == LOCK_STATE ? &g_lock : NULL;
                if (cs) EnterCriticalSection(cs);
                err = fn(&conn, &req, &rep);
                if (cs) LeaveCriticalSection(cs);
            }
        }
        int authed_now = conn.authed;
        int ok;
        if (err || rep.json.oom || rep.bin.oom) {
            ok = send_error(s, id, err ? err : "out of memory building the answer");
        } else {
            Buf j = {0};
            buf_printf(&j, "{\"id\":%.0f,\"ok\":true", id);
            buf_put(&j, rep.json.p, rep.json.n);
            buf_putc(&j, '}');
            ok = !j.oom && send_msg(s, &j, &rep.bin);
            buf_free(&j);
        }
        int was_hello = op && strcmp(op, "hello") == 0;
        buf_free(&rep.json);
        buf_free(&rep.bin);
        free(msg);
        if (!ok) break;
        if (was_hello && !authed_now) break;  // a wrong token ends the connection
        if (authed_now) {
            tmo = 0;  // authenticated: a client may stay idle
            setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, (const char *)&tmo, sizeof tmo);
        }
    }
    conn_free_frame(&conn);
    closesocket(s);
    return 0;
}

static void usage(void) {
    fprintf(stderr, "usage: eacu-agent.exe [--host H] [--port P] [--token T]\n"
                    "  --host H   address to listen on (default 127.0.0.1; any other needs --token)\n"
                    "  --port P   TCP port (default 7878; 0 picks a free one, printed)\n"
                    "  --token T  the secret every client must send in its hello (EACU_AGENT_TOKEN)\n");
}

int main(int argc, char **argv) {
    const char *host = "127.0.0.1";
    int port = 7878;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--host") == 0 && i + 1 < argc) host = argv[++i];
        else if (strcmp(argv[i], "--port") == 0 && i + 1 < argc) port = atoi(argv[++i]);
        else if (strcmp(argv[i], "--token") == 0 && i + 1 < argc) g_token = argv[++i];
        else if (strcmp(argv[i], "--help") == 0) {
            usage();
            return 0;
        } else {
            fprintf(stderr, "eacu-agent: unknown argument \"%s\"\n", argv[i]);
            usage();
            return 2;
        }
    }
    if (port < 0 || port > 65535) {
        fprintf(stderr, "eacu-agent: --port expects 0..65535, got %d\n", port);
        return 2;
    }
    // Per-monitor DPI awareness where the system has it (Windows 10 1703+), else system-wide.
    typedef BOOL(WINAPI * SetCtx)(HANDLE);
    SetCtx set_ctx = (SetCtx)(void *)GetProcAddress(GetModuleHandleW(L"user32.dll"), "SetProcessDpiAwarenessContext");
    const char *dpi_mode = "system";
    if (set_ctx && set_ctx((HANDLE)(intptr_t)-4)) dpi_mode = "per-monitor-v2";
    else SetProcessDPIAware();
    WSADATA wsa;
    if (WSAStartup(MAKEWORD(2, 2), &wsa) != 0) {
        fprintf(stderr, "eacu-agent: WSAStartup failed\n");
        return 1;
    }
    struct in_addr addr;
    if (inet_pton(AF_INET, host, &addr) != 1) {
        fprintf(stderr, "eacu-agent: --host expects an IPv4 address, got \"%s\"\n", host);
        return 2;
    }
    int loopback = (ntohl(addr.s_addr) >> 24) == 127;
    if (!loopback && !*g_token) {
        fprintf(stderr, "eacu-agent: refusing to listen on %s without --token (only loopback addresses "
                        "may go without one)\n", host);
        return 2;
    }
    SOCKET ls = socket(AF_INET, SOCK_STREAM, IPPROTO_TCP);
    struct sockaddr_in sa = {0};
    sa.sin_family = AF_INET;
    sa.sin_addr = addr;
    sa.sin_port = htons((u_short)port);
    BOOL excl = TRUE;
    setsockopt(ls, SOL_SOCKET, SO_EXCLUSIVEADDRUSE, (const char *)&excl, sizeof excl);
    if (ls == INVALID_SOCKET || bind(ls, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(ls, 8) != 0) {
        fprintf(stderr, "eacu-agent: cannot listen on %s:%d (error %d)\n", host, port, WSAGetLastError());
        return 1;
    }
    int len = sizeof sa;
    getsockname(ls, (struct sockaddr *)&sa, &len);
    InitializeCriticalSection(&g_lock);
    InitializeCriticalSection(&g_input_lock);
    InitializeCriticalSection(&g_auth_lock);
    char why[200];
    g_uia = agent_tree_init(why, sizeof why);
    if (g_uia) printf("eacu-agent: element tree through UI Automation\n");
    else printf("eacu-agent: element tree through MSAA (UI Automation not available: %s)\n", why);
    printf("eacu-agent: listening on %s:%d (protocol %d, dpi awareness %s, token %s)\n", host,
           ntohs(sa.sin_port), AGENT_PROTOCOL_VERSION, dpi_mode, *g_token ? "required" : "none");
    fflush(stdout);
    for (;;) {
        SOCKET s = accept(ls, NULL, NULL);
        if (s == INVALID_SOCKET) continue;
        int one = 1;
        setsockopt(s, IPPROTO_TCP, TCP_NODELAY, (const char *)&one, sizeof one);
        HANDLE th = CreateThread(NULL, 0, serve, (LPVOID)(uintptr_t)s, 0, NULL);
        if (th) CloseHandle(th);
        else closesocket(s);
    }
}

// eacu-agent: a Win32 device agent that eacu drives over TCP (docs/agent-protocol.md).
// Shared declarations of the agent's files: the growable buffer, the request fields, the
// per-connection state and each handler family.
#pragma once
#define WIN32_LEAN_AND_MEAN
#include <winsock2.h>
#include <ws2tcpip.h>
#include <windows.h>
#include <stddef.h>
#include <stdint.h>

#define AGENT_PROTOCOL_VERSION 1
/// Bounds of one request: its JSON header and its binary payload (bytes).
#define AGENT_MAX_HEADER (64 * 1024)
#define AGENT_MAX_PAYLOAD (4 * 1024 * 1024)
#define AGENT_MAX_FIELDS 32
#define AGENT_MAX_ARRAY 64

/// A growable byte buffer; `oom` is set when an allocation failed (the content is then cut).
typedef struct {
    char *p;
    size_t n, cap;
    int oom;
} Buf;

void buf_free(Buf *b);
void buf_put(Buf *b, const void *data, size_t n);
void buf_putc(Buf *b, char c);
void buf_printf(Buf *b, const char *fmt, ...);
/// Appends `s` (UTF-8, `n` bytes) as a JSON string with its quotes.
void buf_jstr(Buf *b, const char *s, size_t n);
/// Appends a NUL-terminated UTF-16 string as a JSON string (UTF-8) with its quotes.
void buf_jwstr(Buf *b, const wchar_t *s);

typedef enum { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR } JType;

/// One field of a request's flat JSON object. Strings point into the request's own copy.
typedef struct {
    const char *key;
    JType type;
    double num;
    const char *str;
    size_t str_n;
    double arr[AGENT_MAX_ARRAY];
    int arr_n;
} JField;

/// A parsed request: the fields of its JSON object and its binary payload.
typedef struct {
    JField f[AGENT_MAX_FIELDS];
    int n;
    const uint8_t *payload;
    size_t payload_n;
} Req;

/// Parses a flat JSON object (values: null, booleans, numbers, strings, arrays of numbers)
/// in place (`text` is modified). Returns NULL or a message saying what was expected.
const char *json_parse(char *text, size_t n, Req *r);
const JField *req_get(const Req *r, const char *key);
/// The string field `key` or NULL when absent or not a string.
const char *req_str(const Req *r, const char *key);
/// The number field `key` (booleans count 0/1), or `dflt` when absent.
double req_num(const Req *r, const char *key, double dflt);
int req_has(const Req *r, const char *key);

/// What a handler answers: `json` gets the fields after "ok":true (each with a leading
/// comma), `bin` the binary payload. A handler returns NULL or an error message, which it
/// may build in `err` (a buffer of ERR_N chars).
#define ERR_N 512
typedef struct {
    Buf json;
    Buf bin;
    char err[ERR_N];
} Reply;

/// What a connection keeps between requests: its last frame sent, for changed regions.
typedef struct {
    int authed;
    uint8_t *last;       // BGR, 3 bytes a pixel
    int last_w, last_h;
    uint64_t last_target; // 0 the screen, else the window
    uint32_t last_seq;
    // The last point this connection moved the pointer to (SendInput's absolute 0..65535
    // units): button and wheel events carry it, so they happen there even when the system's
    // cursor position lags behind or is set back by a late event (seen under Wine).
    int has_point;
    LONG point_dx, point_dy;
} Conn;

/// The virtual screen's origin and size (physical pixels). Protocol coordinates are relative
/// to the origin, so (0, 0) is the top-left pixel of a full capture.
void screen_rect(int *x, int *y, int *w, int *h);

const char *op_screen(Conn *c, const Req *r, Reply *out);
const char *op_capture(Conn *c, const Req *r, Reply *out);
void conn_free_frame(Conn *c);

const char *op_move(Conn *c, const Req *r, Reply *out);
const char *op_cursor(Conn *c, const Req *r, Reply *out);
const char *op_button(Conn *c, const Req *r, Reply *out);
const char *op_click(Conn *c, const Req *r, Reply *out);
const char *op_scroll(Conn *c, const Req *r, Reply *out);
const char *op_key(Conn *c, const Req *r, Reply *out);
const char *op_text(Conn *c, const Req *r, Reply *out);
const char *op_sync(Conn *c, const Req *r, Reply *out);

const char *op_windows(Conn *c, const Req *r, Reply *out);
const char *op_window(Conn *c, const Req *r, Reply *out);
const char *op_window_at(Conn *c, const Req *r, Reply *out);
const char *op_send_input(Conn *c, const Req *r, Reply *out);
/// Appends the window's JSON object; returns 0 when it is not a window.
int window_json(Buf *b, HWND h);

const char *op_clipboard_get(Conn *c, const Req *r, Reply *out);
const char *op_clipboard_set(Conn *c, const Req *r, Reply *out);

const char *op_launch(Conn *c, const Req *r, Reply *out);
const char *op_wait(Conn *c, const Req *r, Reply *out);

const char *op_tree(Conn *c, const Req *r, Reply *out);
const char *op_element(Conn *c, const Req *r, Reply *out);

/// The visible top-level windows, topmost first, without the shell's own (desktop, task bar);
/// `programs_only` also leaves out untitled tool windows. Returns the count (-1 out of memory)
/// and a malloc'd array in *out (free()).
int top_windows(HWND **out, int programs_only);
/// The file name of process `pid`'s executable (empty when it cannot be read).
void exe_name(DWORD pid, wchar_t *out, DWORD n);

/// Where the element tree comes from: UI Automation when CoCreateInstance of CUIAutomation
/// gives a working IUIAutomation, else each control's MSAA object (tree.c). Decided once at
/// start (agent_tree_init); `why` says why UI Automation is not used.
int agent_tree_init(char *why, size_t why_n);

/// A tree walk's budget and the virtual screen's origin (bounds are relative to it).
typedef struct {
    int left;      // elements still allowed
    int max_depth;
    int truncated;
    int vx, vy;
    HWND focus;
} TreeWalk;

/// An IUIAutomation and its control view walker, for one thread (uia.c).
typedef struct Uia Uia;
/// NULL (with `why`) when CUIAutomation cannot be created or answers nothing for the desktop.
Uia *uia_open(char *why, size_t why_n);
void uia_close(Uia *u);
/// Appends top-level window `top`'s element and its control-view descendants.
void uia_window(Uia *u, Buf *b, HWND top, DWORD pid, TreeWalk *wk);
/// The element request on a UI Automation path [pid, top, index...]: click (Invoke, else
/// Toggle), focus (SetFocus), set_text (Value.SetValue).
const char *uia_element(Uia *u, const Req *r, Reply *out);

/// UTF-8 → a new NUL-terminated UTF-16 string (free()); NULL on invalid UTF-8.
wchar_t *utf8_to_wide(const char *s, size_t n);
/// The window handle a request's number field names (HWNDs travel as numbers).
HWND req_hwnd(const Req *r, const char *key);
/// Appends a string literal.
#define buf_lit(b, s) buf_put((b), (s), sizeof(s) - 1)

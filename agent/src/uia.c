// The element tree through UI Automation (IUIAutomation, CoCreateInstance of CUIAutomation),
// where the system has it: ControlType (as AT-SPI role names), Name, AutomationId,
// BoundingRectangle, and the Invoke, Value and Toggle patterns for element actions.
// Bookworm's mingw-w64 headers carry only UI Automation's numeric ids, not its interfaces, so
// the few vtable slots used are declared here, in the order of the Windows SDK's
// UIAutomationClient.h (each slot's index is in its comment). Elements are addressed by
// [pid, top-level window, child index in the control view, ...].
// Untested here: Wine 8 has no usable CUIAutomation, so under Wine the agent takes tree.c's
// MSAA path (see agent_tree_source()).
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#include <oleauto.h>
#include <uiautomationclient.h>

// CLSID_CUIAutomation and the interface ids (UIAutomationClient.h).
static const GUID kClsidCUIAutomation = {0xff48dba4, 0x60ef, 0x4201, {0xaa, 0x87, 0x54, 0x10, 0x3e, 0xef, 0x59, 0x4e}};
static const GUID kIidIUIAutomation = {0x30cbe57d, 0xd9d0, 0x452a, {0xab, 0x13, 0x7a, 0xc5, 0xac, 0x48, 0x25, 0xee}};
static const GUID kIidInvoke = {0xfb377fbe, 0x8ea6, 0x46d5, {0x9c, 0x73, 0x64, 0x99, 0x64, 0x2d, 0x30, 0x59}};
static const GUID kIidValue = {0xa94cd8b1, 0x0844, 0x4cd6, {0x9d, 0x2d, 0x64, 0x05, 0x37, 0xab, 0x39, 0xe9}};
static const GUID kIidToggle = {0x94cf8058, 0x9b8d, 0x4ab9, {0x8b, 0xfd, 0x4c, 0xd0, 0xa3, 0x3c, 0x8c, 0x70}};

typedef struct UiaAutomation UiaAutomation;
typedef struct UiaElement UiaElement;
typedef struct UiaWalker UiaWalker;
typedef struct UiaPattern UiaPattern;

typedef struct {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(UiaAutomation *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(UiaAutomation *);
    ULONG(STDMETHODCALLTYPE *Release)(UiaAutomation *);
    void *CompareElements, *CompareRuntimeIds, *GetRootElement;                    // 3-5
    HRESULT(STDMETHODCALLTYPE *ElementFromHandle)(UiaAutomation *, HWND, UiaElement **); // 6
    void *slots7to13[7];                                                              // 7-13
    HRESULT(STDMETHODCALLTYPE *get_ControlViewWalker)(UiaAutomation *, UiaWalker **);  // 14
} UiaAutomationVtbl;
struct UiaAutomation {
    const UiaAutomationVtbl *v;
};

typedef struct {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(UiaElement *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(UiaElement *);
    ULONG(STDMETHODCALLTYPE *Release)(UiaElement *);
    HRESULT(STDMETHODCALLTYPE *SetFocus)(UiaElement *);                                   // 3
    void *slots4to9[6];                                                                  // 4-9
    HRESULT(STDMETHODCALLTYPE *GetCurrentPropertyValue)(UiaElement *, int, VARIANT *);    // 10
    void *slots11to13[3];                                                                // 11-13
    HRESULT(STDMETHODCALLTYPE *GetCurrentPatternAs)(UiaElement *, int, REFIID, void **); // 14
} UiaElementVtbl;
struct UiaElement {
    const UiaElementVtbl *v;
};

typedef struct {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(UiaWalker *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(UiaWalker *);
    ULONG(STDMETHODCALLTYPE *Release)(UiaWalker *);
    void *GetParentElement;                                                                     // 3
    HRESULT(STDMETHODCALLTYPE *GetFirstChildElement)(UiaWalker *, UiaElement *, UiaElement **);  // 4
    void *GetLastChildElement;                                                                  // 5
    HRESULT(STDMETHODCALLTYPE *GetNextSiblingElement)(UiaWalker *, UiaElement *, UiaElement **); // 6
} UiaWalkerVtbl;
struct UiaWalker {
    const UiaWalkerVtbl *v;
};

// IUIAutomationInvokePattern (3 Invoke), IUIAutomationValuePattern (3 SetValue),
// IUIAutomationTogglePattern (3 Toggle): the first own slot is the one used.
typedef struct {
    HRESULT(STDMETHODCALLTYPE *QueryInterface)(UiaPattern *, REFIID, void **);
    ULONG(STDMETHODCALLTYPE *AddRef)(UiaPattern *);
    ULONG(STDMETHODCALLTYPE *Release)(UiaPattern *);
    void *first; // Invoke(this), Toggle(this) or SetValue(this, BSTR)
} UiaPatternVtbl;
struct UiaPattern {
    const UiaPatternVtbl *v;
};

// UIA_*ControlTypeId (UIAutomationClient.h: 50000 + the index here) → AT-SPI role names.
static const char *const kRoles[] = {
    "push button", "calendar", "check box", "combo box", "text", "link", "image", "list item", "list", "menu",
    "menu bar", "menu item", "progress bar", "radio button", "scroll bar", "slider", "spin button", "status bar",
    "page tab list", "page tab", "label", "tool bar", "tool tip", "tree", "tree item", "unknown", "panel", "unknown",
    "table", "table cell", "document frame", "push button", "frame", "panel", "table column header",
    "table column header", "table", "title bar", "separator", "panel", "tool bar"};

struct Uia {
    UiaAutomation *a;
    UiaWalker *walker;
};

Uia *uia_open(char *why, size_t why_n) {
    CoInitializeEx(NULL, COINIT_APARTMENTTHREADED);
    UiaAutomation *a = NULL;
    HRESULT hr = CoCreateInstance(&kClsidCUIAutomation, NULL, CLSCTX_INPROC_SERVER, &kIidIUIAutomation, (void **)&a);
    if (FAILED(hr) || !a) {
        snprintf(why, why_n, "CoCreateInstance(CUIAutomation) failed: 0x%08lx", (unsigned long)hr);
        return NULL;
    }
    UiaWalker *w = NULL;
    hr = a->v->get_ControlViewWalker(a, &w);
    UiaElement *probe = NULL;
    HRESULT hp = w ? a->v->ElementFromHandle(a, GetDesktopWindow(), &probe) : E_FAIL;
    if (FAILED(hr) || !w || FAILED(hp) || !probe) {
        snprintf(why, why_n, "IUIAutomation answers no %s: 0x%08lx",
                 FAILED(hr) || !w ? "control view walker" : "element for the desktop window",
                 (unsigned long)(FAILED(hr) ? hr : hp));
        if (w) w->v->Release(w);
        a->v->Release(a);
        return NULL;
    }
    probe->v->Release(probe);
    Uia *u = calloc(1, sizeof *u);
    if (!u) {
        snprintf(why, why_n, "out of memory");
        w->v->Release(w);
        a->v->Release(a);
        return NULL;
    }
    u->a = a;
    u->walker = w;
    return u;
}

void uia_close(Uia *u) {
    if (!u) return;
    u->walker->v->Release(u->walker);
    u->a->v->Release(u->a);
    free(u);
}

static VARIANT prop(UiaElement *e, int id) {
    VARIANT v;
    VariantInit(&v);
    if (FAILED(e->v->GetCurrentPropertyValue(e, id, &v))) VariantInit(&v);
    return v;
}

static int prop_bool(UiaElement *e, int id) {
    VARIANT v = prop(e, id);
    int b = v.vt == VT_BOOL && v.boolVal != VARIANT_FALSE;
    VariantClear(&v);
    return b;
}

static int prop_int(UiaElement *e, int id) {
    VARIANT v = prop(e, id);
    int n = v.vt == VT_I4 ? (int)v.lVal : 0;
    VariantClear(&v);
    return n;
}

// A string property into `out` (n wide chars, NUL-terminated; empty when absent).
static void prop_str(UiaElement *e, int id, wchar_t *out, int n) {
    VARIANT v = prop(e, id);
    out[0] = 0;
    if (v.vt == VT_BSTR && v.bstrVal) {
        wcsncpy(out, v.bstrVal, n - 1);
        out[n - 1] = 0;
    }
    VariantClear(&v);
}

// BoundingRectangle: a SAFEARRAY of 4 doubles, left, top, width, height (physical pixels).
static void prop_rect(UiaElement *e, double r[4]) {
    VARIANT v = prop(e, UIA_BoundingRectanglePropertyId);
    r[0] = r[1] = r[2] = r[3] = 0;
    if (v.vt == (VT_ARRAY | VT_R8) && v.parray) {
        double *d = NULL;
        if (SUCCEEDED(SafeArrayAccessData(v.parray, (void **)&d)) && d) {
            LONG lo = 0, hi = -1;
            SafeArrayGetLBound(v.parray, 1, &lo);
            SafeArrayGetUBound(v.parray, 1, &hi);
            if (hi - lo + 1 >= 4) memcpy(r, d, 4 * sizeof(double));
            SafeArrayUnaccessData(v.parray);
        }
    }
    VariantClear(&v);
}

static const char *role_of(UiaElement *e) {
    int t = prop_int(e, UIA_ControlTypePropertyId) - 50000;
    if (t == 4 && prop_bool(e, UIA_IsPasswordPropertyId)) return "password text";
    if (t >= 0 && t < (int)(sizeof kRoles / sizeof kRoles[0])) return kRoles[t];
    return "unknown";
}

static int editable(UiaElement *e) {
    return prop_bool(e, UIA_IsValuePatternAvailablePropertyId) && !prop_bool(e, UIA_ValueIsReadOnlyPropertyId);
}

static void element(Uia *u, Buf *b, UiaElement *e, DWORD pid, HWND top, const int *path, int path_n, int depth,
                    TreeWalk *wk) {
    const char *role = role_of(e);
    wchar_t name[512], id[256], value[512];
    prop_str(e, UIA_NamePropertyId, name, 512);
    prop_str(e, UIA_AutomationIdPropertyId, id, 256);
    prop_str(e, UIA_ValueValuePropertyId, value, 512);
    double r[4];
    prop_rect(e, r);
    int ed = editable(e), enabled = prop_bool(e, UIA_IsEnabledPropertyId);
    int offscreen = prop_bool(e, UIA_IsOffscreenPropertyId);
    int focusable = prop_bool(e, UIA_IsKeyboardFocusablePropertyId);
    int invoke = prop_bool(e, UIA_IsInvokePatternAvailablePropertyId);
    int toggle = prop_bool(e, UIA_IsTogglePatternAvailablePropertyId);
    int checked = toggle && prop_int(e, UIA_ToggleToggleStatePropertyId) == 1;
    buf_printf(b, "{\"role\":\"%s\",\"name\":", role);
    buf_jwstr(b, name);
    buf_lit(b, ",\"id\":");
    buf_jwstr(b, id);
    buf_lit(b, ",\"value\":");
    buf_jwstr(b, value);
    buf_printf(b, ",\"bounds\":[%d,%d,%d,%d],\"path\":[%lu,%llu", (int)r[0] - wk->vx, (int)r[1] - wk->vy, (int)r[2],
               (int)r[3], pid, (unsigned long long)(uintptr_t)top);
    for (int i = 0; i < path_n; ++i) buf_printf(b, ",%d", path[i]);
    buf_printf(b, "],\"pid\":%lu,\"editable\":%s,\"states\":[", pid, ed ? "true" : "false");
    int first = 1;
#define STATE(cond, s)                                  \
    if (cond) {                                         \
        buf_printf(b, "%s\"%s\"", first ? "" : ",", s); \
        first = 0;                                      \
    }
    STATE(enabled, "enabled");
    STATE(enabled, "sensitive");
    STATE(!offscreen, "visible");
    STATE(!offscreen, "showing");
    STATE(focusable, "focusable");
    STATE(prop_bool(e, UIA_HasKeyboardFocusPropertyId), "focused");
    STATE(depth == 1 && GetForegroundWindow() == top, "active");
    STATE(ed, "editable");
    STATE(toggle, "checkable");
    STATE(checked, "checked");
    STATE(depth == 1 && IsIconic(top), "iconified");
#undef STATE
    buf_lit(b, "],\"actions\":[");
    first = 1;
    if (invoke || toggle) {
        buf_lit(b, "\"click\"");
        first = 0;
    }
    if (focusable) buf_printf(b, "%s\"focus\"", first ? "" : ",");
    buf_lit(b, "],\"children\":[");
    int sub[AGENT_MAX_ARRAY];
    if (path_n > 0 && path_n < AGENT_MAX_ARRAY - 2) memcpy(sub, path, (size_t)path_n * sizeof(int));
    UiaElement *c = NULL;
    u->walker->v->GetFirstChildElement(u->walker, e, &c);
    if (c && (depth >= wk->max_depth || path_n >= AGENT_MAX_ARRAY - 2)) {
        wk->truncated = 1;
        c->v->Release(c);
        c = NULL;
    }
    for (int i = 0; c; ++i) {
        if (wk->left <= 0) {
            wk->truncated = 1;
            c->v->Release(c);
            break;
        }
        wk->left--;
        if (i) buf_putc(b, ',');
        sub[path_n] = i;
        element(u, b, c, pid, top, sub, path_n + 1, depth + 1, wk);
        UiaElement *next = NULL;
        u->walker->v->GetNextSiblingElement(u->walker, c, &next);
        c->v->Release(c);
        c = next;
    }
    buf_lit(b, "]}");
}

void uia_window(Uia *u, Buf *b, HWND top, DWORD pid, TreeWalk *wk) {
    UiaElement *e = NULL;
    if (FAILED(u->a->v->ElementFromHandle(u->a, top, &e)) || !e) {
        // A window UI Automation cannot reach (it closed meanwhile): an empty frame.
        wchar_t title[256];
        GetWindowTextW(top, title, 256);
        buf_lit(b, "{\"role\":\"frame\",\"name\":");
        buf_jwstr(b, title);
        buf_printf(b, ",\"path\":[%lu,%llu],\"pid\":%lu,\"states\":[],\"actions\":[],\"children\":[]}", pid,
                   (unsigned long long)(uintptr_t)top, pid);
        return;
    }
    element(u, b, e, pid, top, NULL, 0, 1, wk);
    e->v->Release(e);
}

// The element at [pid, top, i...]: the top-level window's element, then the i-th child in the
// control view at each level. NULL with `out->err` set when it is gone.
static UiaElement *find(Uia *u, const JField *p, Reply *out) {
    HWND top = (HWND)(uintptr_t)(uint64_t)p->arr[1];
    DWORD pid = 0;
    UiaElement *e = NULL;
    if (IsWindow(top) && (GetWindowThreadProcessId(top, &pid), pid == (DWORD)p->arr[0]))
        u->a->v->ElementFromHandle(u->a, top, &e);
    for (int k = 2; e && k < p->arr_n; ++k) {
        int want = (int)p->arr[k];
        UiaElement *c = NULL;
        if (want >= 0) u->walker->v->GetFirstChildElement(u->walker, e, &c);
        e->v->Release(e);
        for (int i = 0; c && i < want; ++i) {
            UiaElement *next = NULL;
            u->walker->v->GetNextSiblingElement(u->walker, c, &next);
            c->v->Release(c);
            c = next;
        }
        e = c;
    }
    if (!e) snprintf(out->err, ERR_N, "element at path of %d entries under window %.0f is gone", p->arr_n, p->arr[1]);
    return e;
}

static const char *pattern_call(UiaElement *e, int id, const GUID *iid, const wchar_t *text, Reply *out,
                                const char *what) {
    UiaPattern *pat = NULL;
    HRESULT hr = e->v->GetCurrentPatternAs(e, id, iid, (void **)&pat);
    if (FAILED(hr) || !pat) {
        snprintf(out->err, ERR_N, "element: the %s pattern is not available (0x%08lx)", what, (unsigned long)hr);
        return out->err;
    }
    if (text) {
        BSTR s = SysAllocString(text);
        hr = ((HRESULT(STDMETHODCALLTYPE *)(UiaPattern *, BSTR))pat->v->first)(pat, s);
        SysFreeString(s);
    } else {
        hr = ((HRESULT(STDMETHODCALLTYPE *)(UiaPattern *))pat->v->first)(pat);
    }
    pat->v->Release(pat);
    if (FAILED(hr)) {
        snprintf(out->err, ERR_N, "element: %s failed: 0x%08lx", what, (unsigned long)hr);
        return out->err;
    }
    return NULL;
}

const char *uia_element(Uia *u, const Req *r, Reply *out) {
    const JField *p = req_get(r, "path");
    const char *action = req_str(r, "action"), *want_role = req_str(r, "role"), *want_name = req_str(r, "name");
    if (!p || p->type != J_ARR || p->arr_n < 2 || !action)
        return "element: expected \"path\" [pid, window, index...], \"action\" and the element's \"role\" and \"name\"";
    UiaElement *e = find(u, p, out);
    if (!e) return out->err;
    const char *role = role_of(e);
    wchar_t name[512];
    prop_str(e, UIA_NamePropertyId, name, 512);
    Buf nb = {0}, want = {0};
    buf_jwstr(&nb, name);
    if (want_name) buf_jstr(&want, want_name, strlen(want_name));
    int same = (!want_role || !strcmp(want_role, role)) && (!want_name || (nb.n == want.n && !memcmp(nb.p, want.p, nb.n)));
    if (!same)
        snprintf(out->err, ERR_N, "element is no longer the same: expected %s %.*s, it is now %s %.*s",
                 want_role ? want_role : "?", (int)want.n, want.p ? want.p : "", role, (int)nb.n, nb.p ? nb.p : "");
    buf_free(&nb);
    buf_free(&want);
    const char *err = same ? NULL : out->err;
    if (!err && !strcmp(action, "click")) {
        if (prop_bool(e, UIA_IsInvokePatternAvailablePropertyId))
            err = pattern_call(e, UIA_InvokePatternId, &kIidInvoke, NULL, out, "Invoke");
        else if (prop_bool(e, UIA_IsTogglePatternAvailablePropertyId))
            err = pattern_call(e, UIA_TogglePatternId, &kIidToggle, NULL, out, "Toggle");
        else {
            snprintf(out->err, ERR_N, "element %s has no action \"click\" (neither Invoke nor Toggle)", role);
            err = out->err;
        }
    } else if (!err && !strcmp(action, "focus")) {
        HRESULT hr = e->v->SetFocus(e);
        if (FAILED(hr)) {
            snprintf(out->err, ERR_N, "element focus: SetFocus failed: 0x%08lx", (unsigned long)hr);
            err = out->err;
        }
    } else if (!err && !strcmp(action, "set_text")) {
        wchar_t *w = utf8_to_wide((const char *)r->payload, r->payload_n);
        if (!w) err = "set_text: the payload is not valid UTF-8";
        else if (!editable(e)) {
            snprintf(out->err, ERR_N, "element %s is not editable text (no writable Value pattern)", role);
            err = out->err;
        } else {
            err = pattern_call(e, UIA_ValuePatternId, &kIidValue, w, out, "Value.SetValue");
        }
        free(w);
    } else if (!err) {
        snprintf(out->err, ERR_N, "element: unknown action \"%.40s\" (expected click, focus or set_text)", action);
        err = out->err;
    }
    e->v->Release(e);
    return err;
}

// The element tree: through UI Automation where the system has it (uia.c), otherwise (as under
// Wine 8) every visible window and control, each with its own MSAA object's name and value
// (AccessibleObjectFromWindow, OBJID_CLIENT) and a role read from its window class and style, in
// AT-SPI's role names. MSAA elements are addressed by [pid, hwnd]; actions check that role and
// name are still the same.
#define COBJMACROS
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#include <oleacc.h>

static const char *role_of(HWND h) {
    wchar_t cls[64];
    GetClassNameW(h, cls, 64);
    LONG style = GetWindowLongW(h, GWL_STYLE);
    if (!_wcsicmp(cls, L"Button")) {
        switch (style & BS_TYPEMASK) {
        case BS_CHECKBOX: case BS_AUTOCHECKBOX: case BS_3STATE: case BS_AUTO3STATE: return "check box";
        case BS_RADIOBUTTON: case BS_AUTORADIOBUTTON: return "radio button";
        case BS_GROUPBOX: return "panel";
        default: return "push button";
        }
    }
    if (!_wcsicmp(cls, L"Edit") || !_wcsnicmp(cls, L"RichEdit", 8))
        return style & ES_PASSWORD ? "password text" : "text";
    if (!_wcsicmp(cls, L"Static")) {
        int t = style & SS_TYPEMASK;
        return t == SS_ICON || t == SS_BITMAP || t == SS_ENHMETAFILE ? "image" : "label";
    }
    if (!_wcsicmp(cls, L"ComboBox") || !_wcsicmp(cls, L"ComboBoxEx32")) return "combo box";
    if (!_wcsicmp(cls, L"ListBox") || !_wcsicmp(cls, L"ComboLBox")) return "list";
    if (!_wcsicmp(cls, L"SysListView32")) return "table";
    if (!_wcsicmp(cls, L"SysTreeView32")) return "tree";
    if (!_wcsicmp(cls, L"msctls_progress32")) return "progress bar";
    if (!_wcsicmp(cls, L"msctls_trackbar32")) return "slider";
    if (!_wcsicmp(cls, L"SysTabControl32")) return "page tab list";
    if (!_wcsicmp(cls, L"ScrollBar")) return "scroll bar";
    if (!_wcsicmp(cls, L"ToolbarWindow32")) return "tool bar";
    if (!_wcsicmp(cls, L"msctls_statusbar32")) return "status bar";
    if (!_wcsicmp(cls, L"SysLink")) return "link";
    if (!_wcsicmp(cls, L"#32770")) return "dialog";
    if (!(style & WS_CHILD)) return "frame";
    return "panel";
}

static int is_editable(HWND h, const char *role) {
    return (!strcmp(role, "text") || !strcmp(role, "password text")) && !(GetWindowLongW(h, GWL_STYLE) & ES_READONLY);
}

// A control's text: WM_GETTEXT (GetWindowText of another process's control reads only the
// caption the system keeps, empty for an edit control), bounded by a timeout.
static void control_text(HWND h, wchar_t *out, int n) {
    DWORD_PTR len = 0;
    out[0] = 0;
    if (!SendMessageTimeoutW(h, WM_GETTEXT, (WPARAM)n, (LPARAM)out, SMTO_ABORTIFHUNG, 1000, &len)) out[0] = 0;
    out[n - 1] = 0;
}

// The control's text without the '&' mnemonic markers, as MSAA names buttons and labels.
static void plain_text(HWND h, wchar_t *out, int n) {
    wchar_t raw[512];
    control_text(h, raw, 512);
    int j = 0;
    for (int i = 0; raw[i] && j < n - 1; ++i) {
        if (raw[i] == L'&') {
            if (raw[i + 1] != L'&') continue;
            ++i;
        }
        out[j++] = raw[i];
    }
    out[j] = 0;
}

// Name and value from the control's own MSAA object; the window text when it has none.
static void msaa_name_value(HWND h, const char *role, wchar_t *name, wchar_t *value, int n) {
    name[0] = value[0] = 0;
    IAccessible *acc = NULL;
    if (SUCCEEDED(AccessibleObjectFromWindow(h, (DWORD)OBJID_CLIENT, &IID_IAccessible, (void **)&acc)) && acc) {
        VARIANT self;
        VariantInit(&self);
        self.vt = VT_I4;
        self.lVal = CHILDID_SELF;
        BSTR s = NULL;
        if (SUCCEEDED(IAccessible_get_accName(acc, self, &s)) && s) {
            wcsncpy(name, s, n - 1);
            name[n - 1] = 0;
            SysFreeString(s);
        }
        s = NULL;
        if (SUCCEEDED(IAccessible_get_accValue(acc, self, &s)) && s) {
            wcsncpy(value, s, n - 1);
            value[n - 1] = 0;
            SysFreeString(s);
        }
        IAccessible_Release(acc);
    }
    int text = !strcmp(role, "text") || !strcmp(role, "password text");
    int labelled = text || !strcmp(role, "combo box") || !strcmp(role, "list");
    if (!name[0] && !labelled) plain_text(h, name, n);
    // A text field, combo box or list is named by the label before it, as Windows' own MSAA
    // proxy does (Wine's gives no name): the previous sibling when it is a Static, without '&'
    // and a final ':'.
    if (!name[0] && labelled) {
        HWND prev = GetWindow(h, GW_HWNDPREV);
        wchar_t cls[16];
        if (prev && GetClassNameW(prev, cls, 16) && !_wcsicmp(cls, L"Static")) {
            plain_text(prev, name, n);
            size_t k = wcslen(name);
            while (k > 0 && (name[k - 1] == L':' || name[k - 1] == 0xFF1A || name[k - 1] == L' ')) name[--k] = 0;
        }
    }
    if (!value[0] && (!strcmp(role, "text") || !strcmp(role, "combo box"))) control_text(h, value, n);
}

static int g_uia; // UI Automation works here (agent_tree_init)

int agent_tree_init(char *why, size_t why_n) {
    Uia *u = uia_open(why, why_n);
    g_uia = u != NULL;
    uia_close(u);
    return g_uia;
}

static void element(Buf *b, HWND h, DWORD pid, int depth, TreeWalk *wk) {
    const char *role = role_of(h);
    wchar_t name[512], value[512];
    msaa_name_value(h, role, name, value, 512);
    RECT rc;
    GetWindowRect(h, &rc);
    LONG style = GetWindowLongW(h, GWL_STYLE);
    int editable = is_editable(h, role);
    buf_printf(b, "{\"role\":\"%s\",\"name\":", role);
    buf_jwstr(b, name);
    buf_lit(b, ",\"value\":");
    buf_jwstr(b, value);
    int visible = IsWindowVisible(h), minimized = IsIconic(h);
    buf_printf(b, ",\"bounds\":[%ld,%ld,%ld,%ld],\"path\":[%lu,%llu],\"pid\":%lu,\"editable\":%s,\"states\":[",
               minimized ? 0 : rc.left - wk->vx, minimized ? 0 : rc.top - wk->vy,
               minimized ? 0 : rc.right - rc.left, minimized ? 0 : rc.bottom - rc.top, pid,
               (unsigned long long)(uintptr_t)h, pid, editable ? "true" : "false");
    int first = 1;
#define STATE(cond, s)                                \
    if (cond) {                                       \
        buf_printf(b, "%s\"%s\"", first ? "" : ",", s); \
        first = 0;                                    \
    }
    int enabled = IsWindowEnabled(h);
    int interactive = strcmp(role, "label") && strcmp(role, "panel") && strcmp(role, "image") && strcmp(role, "frame") &&
                      strcmp(role, "dialog");
    int checkable = !strcmp(role, "check box") || !strcmp(role, "radio button");
    STATE(enabled, "enabled");
    STATE(enabled, "sensitive");
    STATE(visible, "visible");
    STATE(visible && !minimized, "showing");
    STATE(interactive && (style & WS_TABSTOP || editable), "focusable");
    STATE(h == wk->focus || (!(style & WS_CHILD) && GetForegroundWindow() == h), "focused");
    STATE(!(style & WS_CHILD) && GetForegroundWindow() == h, "active");
    STATE(editable, "editable");
    STATE(!strcmp(role, "text") && (style & ES_MULTILINE), "multi line");
    STATE(!strcmp(role, "text") && !(style & ES_MULTILINE), "single line");
    STATE(checkable, "checkable");
    STATE(checkable && SendMessageW(h, BM_GETCHECK, 0, 0) == BST_CHECKED, "checked");
    STATE(minimized, "iconified");
#undef STATE
    buf_lit(b, "],\"actions\":[");
    if (!strcmp(role, "push button") || checkable) buf_lit(b, "\"click\"");
    else if (interactive) buf_lit(b, "\"focus\"");
    buf_lit(b, "],\"children\":[");
    first = 1;
    if (depth < wk->max_depth) {
        for (HWND c = GetWindow(h, GW_CHILD); c; c = GetWindow(c, GW_HWNDNEXT)) {
            if (!IsWindowVisible(c)) continue;
            if (wk->left <= 0) {
                wk->truncated = 1;
                break;
            }
            wk->left--;
            if (!first) buf_putc(b, ',');
            first = 0;
            element(b, c, pid, depth + 1, wk);
        }
    } else if (GetWindow(h, GW_CHILD)) {
        wk->truncated = 1;
    }
    buf_lit(b, "]}");
}

typedef struct {
    HWND h;
    DWORD pid;
} Top;

// By pid, then by handle: a stable order that focus changes do not reshuffle.
static int by_pid_hwnd(const void *a, const void *b) {
    const Top *x = a, *y = b;
    if (x->pid != y->pid) return x->pid < y->pid ? -1 : 1;
    return (uintptr_t)x->h < (uintptr_t)y->h ? -1 : (uintptr_t)x->h > (uintptr_t)y->h;
}

// {"pid": 0 for all, "max_elements", "max_depth"} → {"source": "uia" | "msaa", "tree": the
// desktop frame}.
const char *op_tree(Conn *c, const Req *r, Reply *out) {
    (void)c;
    CoInitializeEx(NULL, COINIT_APARTMENTTHREADED);
    DWORD only = (DWORD)req_num(r, "pid", 0);
    TreeWalk wk;
    memset(&wk, 0, sizeof wk);
    wk.left = (int)req_num(r, "max_elements", 5000);
    wk.max_depth = (int)req_num(r, "max_depth", 40);
    if (wk.left < 1 || wk.left > 100000 || wk.max_depth < 1 || wk.max_depth > 200)
        return "tree: expected max_elements 1..100000 and max_depth 1..200";
    int vw, vh;
    screen_rect(&wk.vx, &wk.vy, &vw, &vh);
    HWND fg = GetForegroundWindow();
    GUITHREADINFO gi = {sizeof gi};
    if (fg && GetGUIThreadInfo(GetWindowThreadProcessId(fg, NULL), &gi)) wk.focus = gi.hwndFocus;
    HWND *tops = NULL;
    int n = top_windows(&tops, 0);
    if (n < 0) return "tree: out of memory";
    Top *t = malloc((size_t)(n ? n : 1) * sizeof(Top));
    if (!t) {
        free(tops);
        return "tree: out of memory";
    }
    for (int i = 0; i < n; ++i) {
        t[i].h = tops[i];
        GetWindowThreadProcessId(tops[i], &t[i].pid);
    }
    free(tops);
    qsort(t, (size_t)n, sizeof(Top), by_pid_hwnd);
    char why[160];
    Uia *u = g_uia ? uia_open(why, sizeof why) : NULL;
    Buf *b = &out->json;
    buf_printf(b, ",\"source\":\"%s\"", u ? "uia" : "msaa");
    buf_lit(b, ",\"tree\":{\"role\":\"desktop frame\",\"name\":\"\",\"path\":[],\"children\":[");
    for (int i = 0; i < n;) {
        DWORD pid = t[i].pid;
        int j = i;
        while (j < n && t[j].pid == pid) j++;
        if (!only || only == pid) {
            wchar_t exe[MAX_PATH];
            exe_name(pid, exe, MAX_PATH);
            if (b->p[b->n - 1] == '}') buf_putc(b, ',');
            buf_lit(b, "{\"role\":\"application\",\"name\":");
            buf_jwstr(b, exe);
            buf_printf(b, ",\"pid\":%lu,\"path\":[%lu],\"children\":[", pid, pid);
            for (int k = i; k < j && wk.left > 0; ++k) {
                wk.left--;
                if (k > i) buf_putc(b, ',');
                if (u) uia_window(u, b, t[k].h, pid, &wk);
                else element(b, t[k].h, pid, 1, &wk);
            }
            buf_lit(b, "]}");
        }
        i = j;
    }
    buf_printf(b, "],\"truncated\":%s}", wk.truncated || wk.left <= 0 ? "true" : "false");
    free(t);
    uia_close(u);
    return NULL;
}

// {"path": [pid, hwnd], "role", "name", "action": click | focus | set_text} (set_text: the
// text as UTF-8 in the payload).
const char *op_element(Conn *c, const Req *r, Reply *out) {
    (void)c;
    CoInitializeEx(NULL, COINIT_APARTMENTTHREADED);
    if (g_uia) {
        char why[160];
        Uia *u = uia_open(why, sizeof why);
        if (u) {
            const char *err = uia_element(u, r, out);
            uia_close(u);
            return err;
        }
    }
    const JField *p = req_get(r, "path");
    const char *action = req_str(r, "action"), *want_role = req_str(r, "role"), *want_name = req_str(r, "name");
    if (!p || p->type != J_ARR || p->arr_n != 2 || !action)
        return "element: expected \"path\" [pid, hwnd], \"action\" and the element's \"role\" and \"name\"";
    HWND h = (HWND)(uintptr_t)(uint64_t)p->arr[1];
    DWORD pid = 0;
    if (!IsWindow(h) || (GetWindowThreadProcessId(h, &pid), pid != (DWORD)p->arr[0])) {
        snprintf(out->err, ERR_N, "element [%.0f, %.0f] is gone", p->arr[0], p->arr[1]);
        return out->err;
    }
    const char *role = role_of(h);
    wchar_t name[512], value[512];
    msaa_name_value(h, role, name, value, 512);
    Buf nb = {0};
    buf_jwstr(&nb, name);
    Buf want = {0};
    if (want_name) buf_jstr(&want, want_name, strlen(want_name));
    int same = (!want_role || !strcmp(want_role, role)) &&
               (!want_name || (nb.n == want.n && !memcmp(nb.p, want.p, nb.n)));
    if (!same) {
        snprintf(out->err, ERR_N, "element [%.0f, %.0f] is no longer the same: expected %s %.*s, it is now %s %.*s",
                 p->arr[0], p->arr[1], want_role ? want_role : "?", (int)want.n, want.p ? want.p : "",
                 role, (int)nb.n, nb.p ? nb.p : "");
    }
    buf_free(&nb);
    buf_free(&want);
    if (!same) return out->err;
    int checkable = !strcmp(role, "check box") || !strcmp(role, "radio button");
    if (!strcmp(action, "click")) {
        if (strcmp(role, "push button") && !checkable) {
            snprintf(out->err, ERR_N, "element %s has no action \"click\" (it has: %s)", role,
                     is_editable(h, role) ? "focus, set_text" : "focus");
            return out->err;
        }
        // Posted: a button that opens a modal dialog does not block the agent.
        if (!PostMessageW(h, BM_CLICK, 0, 0)) return "element click: the button is gone";
        return NULL;
    }
    if (!strcmp(action, "focus")) {
        HWND top = GetAncestor(h, GA_ROOT);
        SetForegroundWindow(top);
        DWORD me = GetCurrentThreadId(), them = GetWindowThreadProcessId(h, NULL);
        AttachThreadInput(me, them, TRUE);
        SetFocus(h);
        AttachThreadInput(me, them, FALSE);
        return NULL;
    }
    if (!strcmp(action, "set_text")) {
        if (!is_editable(h, role)) {
            snprintf(out->err, ERR_N, "element %s is not editable text", role);
            return out->err;
        }
        wchar_t *w = utf8_to_wide((const char *)r->payload, r->payload_n);
        if (!w) return "set_text: the payload is not valid UTF-8";
        DWORD_PTR res = 0;
        LRESULT ok = SendMessageTimeoutW(h, WM_SETTEXT, 0, (LPARAM)w, SMTO_ABORTIFHUNG, 5000, &res);
        free(w);
        if (!ok || !res) return "set_text: the control refused WM_SETTEXT (or did not answer in 5 s)";
        return NULL;
    }
    snprintf(out->err, ERR_N, "element: unknown action \"%.40s\" (expected click, focus or set_text)", action);
    return out->err;
}

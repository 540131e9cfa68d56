// The Win32 form tests/e2e/windows_agent.sh drives through eacu-agent.exe: Chinese labels, two
// text fields, a check box, OK and Cancel. OK prints "form: NAME|CITY|AGREE" (UTF-8) on stdout
// and exits with 10 + AGREE (0 or 1); Cancel prints "form: cancelled", closing the window
// (WM_CLOSE) "form: closed", and both exit with 2. `eacu-test-form.exe [OUT [VERSION]]` also appends what it prints to the file OUT (a
// program the agent launches has no stdout the test can read). VERSION (healing's test,
// tests/e2e/heal_agent.sh): "v2" renames OK 确定 to 提交 and moves it to a row of its own below,
// "v3" has no OK button; the default is v1, the form as above.
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <stdio.h>
#include <string.h>

enum { ID_NAME = 101, ID_CITY = 102, ID_AGREE = 103 };
static HWND g_name, g_city, g_agree;
static int g_code = 2;
static const wchar_t *g_out;

static void emit(const wchar_t *text) {
    char buf[2048];
    int n = WideCharToMultiByte(CP_UTF8, 0, text, -1, buf, sizeof buf, NULL, NULL);
    DWORD w;
    if (n <= 1) return;
    WriteFile(GetStdHandle(STD_OUTPUT_HANDLE), buf, (DWORD)n - 1, &w, NULL);
    if (g_out) {
        HANDLE f = CreateFileW(g_out, FILE_APPEND_DATA, FILE_SHARE_READ, NULL, OPEN_ALWAYS, 0, NULL);
        if (f != INVALID_HANDLE_VALUE) {
            WriteFile(f, buf, (DWORD)n - 1, &w, NULL);
            CloseHandle(f);
        }
    }
}

static LRESULT CALLBACK proc(HWND h, UINT m, WPARAM wp, LPARAM lp) {
    if (m == WM_COMMAND && (LOWORD(wp) == IDOK || LOWORD(wp) == IDCANCEL)) {
        if (LOWORD(wp) == IDOK) {
            wchar_t name[256], city[256], line[600];
            GetWindowTextW(g_name, name, 256);
            GetWindowTextW(g_city, city, 256);
            int agree = SendMessageW(g_agree, BM_GETCHECK, 0, 0) == BST_CHECKED;
            swprintf(line, 600, L"form: %ls|%ls|%d\n", name, city, agree);
            emit(line);
            g_code = 10 + agree;
        } else {
            emit(L"form: cancelled\n");
        }
        DestroyWindow(h);
        return 0;
    }
    if (m == WM_CLOSE) {
        emit(L"form: closed\n");
        DestroyWindow(h);
        return 0;
    }
    if (m == WM_DESTROY) {
        PostQuitMessage(g_code);
        return 0;
    }
    return DefWindowProcW(h, m, wp, lp);
}

static HWND child(HWND parent, const wchar_t *cls, const wchar_t *text, DWORD style, int x, int y, int w, int h,
                  int id, HFONT font) {
    HWND c = CreateWindowExW(!wcscmp(cls, L"Edit") ? WS_EX_CLIENTEDGE : 0, cls, text, WS_CHILD | WS_VISIBLE | style,
                             x, y, w, h, parent, (HMENU)(INT_PTR)id, GetModuleHandleW(NULL), NULL);
    SendMessageW(c, WM_SETFONT, (WPARAM)font, TRUE);
    return c;
}

int wmain(int argc, wchar_t **argv) {
    if (argc > 1) g_out = argv[1];
    const wchar_t *version = argc > 2 ? argv[2] : L"v1";
    const int v1 = !wcscmp(version, L"v1"), v3 = !wcscmp(version, L"v3");
    WNDCLASSW wc = {0};
    wc.lpfnWndProc = proc;
    wc.hInstance = GetModuleHandleW(NULL);
    wc.hCursor = LoadCursorW(NULL, (LPCWSTR)IDC_ARROW);
    wc.hbrBackground = (HBRUSH)(COLOR_BTNFACE + 1);
    wc.lpszClassName = L"EacuTestForm";
    RegisterClassW(&wc);
    RECT r = {0, 0, 420, v1 ? 220 : 270};
    AdjustWindowRect(&r, WS_OVERLAPPEDWINDOW, FALSE);
    HWND w = CreateWindowExW(0, L"EacuTestForm", L"eacu 测试表单", WS_OVERLAPPEDWINDOW, 120, 100, r.right - r.left,
                             r.bottom - r.top, NULL, NULL, wc.hInstance, NULL);
    HFONT font = CreateFontW(-20, 0, 0, 0, FW_NORMAL, 0, 0, 0, DEFAULT_CHARSET, 0, 0, CLEARTYPE_QUALITY, 0,
                             L"Microsoft YaHei");
    child(w, L"Static", L"姓名", 0, 20, 22, 80, 28, 0, font);
    g_name = child(w, L"Edit", L"", WS_TABSTOP | WS_BORDER | ES_AUTOHSCROLL, 110, 18, 280, 32, ID_NAME, font);
    child(w, L"Static", L"城市", 0, 20, 66, 80, 28, 0, font);
    g_city = child(w, L"Edit", L"", WS_TABSTOP | WS_BORDER | ES_AUTOHSCROLL, 110, 62, 280, 32, ID_CITY, font);
    g_agree = child(w, L"Button", L"同意条款", WS_TABSTOP | BS_AUTOCHECKBOX, 110, 106, 200, 30, ID_AGREE, font);
    if (v1) child(w, L"Button", L"确定", WS_TABSTOP | BS_DEFPUSHBUTTON, 110, 156, 110, 40, IDOK, font);
    else if (!v3) child(w, L"Button", L"提交", WS_TABSTOP | BS_DEFPUSHBUTTON, 110, 208, 110, 40, IDOK, font);
    child(w, L"Button", L"取消", WS_TABSTOP, 240, 156, 110, 40, IDCANCEL, font);
    ShowWindow(w, SW_SHOWNORMAL);
    UpdateWindow(w);
    emit(L"form: ready\n");
    MSG msg;
    while (GetMessageW(&msg, NULL, 0, 0) > 0) {
        if (IsDialogMessageW(w, &msg)) continue;
        TranslateMessage(&msg);
        DispatchMessageW(&msg);
    }
    return (int)msg.wParam;
}

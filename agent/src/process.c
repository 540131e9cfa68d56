// Programs the agent starts: launch a command line (CreateProcessW), wait for it with a
// bound, read its exit code. Handles are kept by pid until the process is waited for.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent.h"

#define MAX_CHILDREN 64
static struct {
    DWORD pid;
    HANDLE h;
} g_children[MAX_CHILDREN];

const char *op_launch(Conn *c, const Req *r, Reply *out) {
    (void)c;
    wchar_t *cmd = utf8_to_wide((const char *)r->payload, r->payload_n);
    if (!cmd) return "launch: the payload (the command line) is not valid UTF-8";
    if (!*cmd) {
        free(cmd);
        return "launch: expected a command line in the payload, got none";
    }
    int slot = -1;
    for (int i = 0; i < MAX_CHILDREN && slot < 0; ++i)
        if (!g_children[i].h) slot = i;
    if (slot < 0) {
        free(cmd);
        return "launch: 64 launched programs are not waited for yet (wait for some first)";
    }
    STARTUPINFOW si = {sizeof si};
    PROCESS_INFORMATION pi;
    const char *dir8 = req_str(r, "cwd");
    wchar_t *dir = dir8 ? utf8_to_wide(dir8, strlen(dir8)) : NULL;
    BOOL ok = CreateProcessW(NULL, cmd, NULL, NULL, FALSE, 0, NULL, dir, &si, &pi);
    DWORD e = GetLastError();
    free(cmd);
    free(dir);
    if (!ok) {
        snprintf(out->err, ERR_N, "launch: CreateProcessW failed with error %lu", e);
        return out->err;
    }
    CloseHandle(pi.hThread);
    g_children[slot].pid = pi.dwProcessId;
    g_children[slot].h = pi.hProcess;
    buf_printf(&out->json, ",\"pid\":%lu", pi.dwProcessId);
    return NULL;
}

// {"pid", "timeout": seconds (0..60)} → {"exited": bool, "code": N}; an exited process's
// handle is released, so its code can be read once. Requests of other connections wait meanwhile:
// clients poll with short timeouts.
const char *op_wait(Conn *c, const Req *r, Reply *out) {
    (void)c;
    DWORD pid = (DWORD)req_num(r, "pid", 0);
    double t = req_num(r, "timeout", 0);
    if (t < 0 || t > 60) return "wait: expected a timeout of 0..60 seconds";
    for (int i = 0; i < MAX_CHILDREN; ++i) {
        if (!g_children[i].h || g_children[i].pid != pid) continue;
        DWORD w = WaitForSingleObject(g_children[i].h, (DWORD)(t * 1000));
        if (w != WAIT_OBJECT_0) {
            buf_lit(&out->json, ",\"exited\":false");
            return NULL;
        }
        DWORD code = 0;
        GetExitCodeProcess(g_children[i].h, &code);
        CloseHandle(g_children[i].h);
        g_children[i].h = NULL;
        buf_printf(&out->json, ",\"exited\":true,\"code\":%lu", code);
        return NULL;
    }
    snprintf(out->err, ERR_N, "wait: pid %lu is not a program this agent launched (or it was waited for already)", pid);
    return out->err;
}

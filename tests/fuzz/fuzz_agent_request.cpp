// The device agent's own request reader (agent/src/json.c, the flat JSON objects of
// docs/agent-protocol.md), built natively for fuzzing with a stand-in of <windows.h>
// (agent_shim/): any bytes as a request header from a hostile client. Invariants: the reader
// never reads or writes out of bounds (ASan); a parsed request holds at most AGENT_MAX_FIELDS
// fields and arrays of at most AGENT_MAX_ARRAY numbers; every string field lies inside the
// input's copy and is NUL-terminated; the agent's JSON escaping of a string field (buf_jstr),
// read back by nlohmann::json, gives the same bytes (when they are UTF-8).
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "FuzzCommon.h"

extern "C" {
#include "agent.h"
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    if (size > AGENT_MAX_HEADER) return 0;
    std::vector<char> text(data, data + size);
    text.push_back('\0');  // the agent's copy has room for one byte more (main.c: hn + pn + 1)
    Req req;
    std::memset(&req, 0, sizeof req);
    if (json_parse(text.data(), size, &req)) return 0;
    if (req.n < 0 || req.n > AGENT_MAX_FIELDS) eacu::fuzz::broken("field count out of bounds");
    for (int i = 0; i < req.n; ++i) {
        const JField& f = req.f[i];
        if (!f.key || f.key < text.data() || f.key >= text.data() + text.size()) eacu::fuzz::broken("a key outside the request");
        if (f.type == J_ARR && (f.arr_n < 0 || f.arr_n > AGENT_MAX_ARRAY)) eacu::fuzz::broken("array length out of bounds");
        if (f.type != J_STR) continue;
        if (f.str < text.data() || f.str + f.str_n >= text.data() + text.size() || f.str[f.str_n] != '\0')
            eacu::fuzz::broken("a string outside the request or not NUL-terminated");
        if (req_get(&req, f.key) == nullptr) eacu::fuzz::broken("a parsed key is not found");
        Buf b = {};
        buf_jstr(&b, f.str, f.str_n);
        if (!b.oom) {
            std::string out(b.p, b.n);
            auto back = nlohmann::json::parse(out, nullptr, false);
            bool utf8 = MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, f.str, int(f.str_n), nullptr, 0) > 0 || f.str_n == 0;
            if (utf8 && (!back.is_string() || back.get<std::string>() != std::string(f.str, f.str_n)))
                eacu::fuzz::broken("the agent's escaping of a string does not read back as the same string");
        }
        buf_free(&b);
        wchar_t* w = utf8_to_wide(f.str, f.str_n);
        std::free(w);
    }
    return 0;
}

#include "wrap_Agent.h"

#include "device/agent/AgentDevice.h"
#include "luax.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

AgentDevice& agentOf(lua_State* L, const char* fname) {
    Session& s = luax_checksession(L);
    auto* a = dynamic_cast<AgentDevice*>(&s.device());
    if (!a)
        luaL_error(L, "%s: expected a device agent (--device agent:HOST:PORT), the device is %s", fname,
                   s.device().describe().c_str());
    return *a;
}

int a_clipboard_get(lua_State* L) {
    AgentDevice& d = agentOf(L, "clipboard");
    return luax_catchexcept(L, [&] {
        std::string text = d.clipboardText();
        lua_pushlstring(L, text.data(), text.size());
        return 1;
    });
}

int a_clipboard_set(lua_State* L) {
    size_t n = 0;
    const char* text = luaL_checklstring(L, 1, &n);
    AgentDevice& d = agentOf(L, "clipboard");
    return luax_catchexcept(L, [&] {
        d.setClipboardText(std::string(text, n));
        return 0;
    });
}

int a_launch(lua_State* L) {
    std::string cmd = luaL_checkstring(L, 1);
    AgentDevice& d = agentOf(L, "remote_launch");
    return luax_catchexcept(L, [&] {
        lua_pushinteger(L, d.launch(cmd));
        return 1;
    });
}

int a_wait(lua_State* L) {
    int pid = int(luaL_checkinteger(L, 1));
    double timeout = luaL_optnumber(L, 2, 10);
    AgentDevice& d = agentOf(L, "remote_launch");
    return luax_catchexcept(L, [&] {
        int code = d.wait(pid, timeout);
        if (code < 0) lua_pushnil(L);
        else lua_pushinteger(L, code);
        return 1;
    });
}

const luaL_Reg agent_functions[] = {{"clipboard_get", a_clipboard_get},
                              {"clipboard_set", a_clipboard_set},
                              {"launch", a_launch},
                              {"wait", a_wait},
                              {nullptr, nullptr}};

}  // namespace

int luaopen_eacu_agent(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, agent_functions);
    return 1;
}

}  // namespace eacu

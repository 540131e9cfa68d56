#include "wrap_Process.h"

#include "luax.h"

namespace eacu {
namespace {

const char* kProcess = "eacu.Process";

Process& check(lua_State* L) { return *luax_checkshared<Process>(L, 1, kProcess); }

// p:wait([timeout]) -> exit code, or nil on timeout. timeout < 0 or nil waits forever.
int w_Process_wait(lua_State* L) {
    double timeout = luaL_optnumber(L, 2, -1);
    return luax_catchexcept(L, [&] {
        auto code = check(L).wait(timeout);
        if (code) lua_pushinteger(L, *code);
        else lua_pushnil(L);
        return 1;
    });
}

// p:read([timeout]) -> all stdout until EOF or timeout (default 10 s).
int w_Process_read(lua_State* L) {
    double timeout = luaL_optnumber(L, 2, 10);
    return luax_catchexcept(L, [&] {
        std::string out = check(L).readStdout(timeout);
        lua_pushlstring(L, out.data(), out.size());
        return 1;
    });
}

// p:read_line([timeout]) -> one line of stdout without "\n", or nil.
int w_Process_read_line(lua_State* L) {
    double timeout = luaL_optnumber(L, 2, 10);
    return luax_catchexcept(L, [&] {
        auto line = check(L).readLine(timeout);
        if (line) lua_pushlstring(L, line->data(), line->size());
        else lua_pushnil(L);
        return 1;
    });
}

int w_Process_stop(lua_State* L) {
    double grace = luaL_optnumber(L, 2, 2.0);
    return luax_catchexcept(L, [&] {
        check(L).stop(grace);
        return 0;
    });
}

int w_Process_running(lua_State* L) {
    return luax_catchexcept(L, [&] {
        lua_pushboolean(L, check(L).running());
        return 1;
    });
}

int w_Process_pid(lua_State* L) {
    lua_pushinteger(L, check(L).pid());
    return 1;
}

int w_Process_tostring(lua_State* L) {
    Process& p = check(L);
    lua_pushfstring(L, "Process(%s, pid %d)", p.name().c_str(), int(p.pid()));
    return 1;
}

int w_Process_gc(lua_State* L) { return luax_gcshared<Process>(L, kProcess); }

const luaL_Reg process_methods[] = {
    {"wait", w_Process_wait},       {"read", w_Process_read},     {"read_line", w_Process_read_line},
    {"stop", w_Process_stop},       {"running", w_Process_running}, {"pid", w_Process_pid},
    {nullptr, nullptr}};

}  // namespace

void luaopen_eacu_process(lua_State* L) {
    luaL_newmetatable(L, kProcess);
    lua_newtable(L);
    luaL_register(L, nullptr, process_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, w_Process_gc);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, w_Process_tostring);
    lua_setfield(L, -2, "__tostring");
    lua_pop(L, 1);
}

void luax_pushprocess(lua_State* L, std::shared_ptr<Process> p) {
    luax_pushshared(L, std::move(p), kProcess);
}

}  // namespace eacu

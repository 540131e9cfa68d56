// Helpers shared by the bindings: exception-safe calls, option-table readers, userdata.
#pragma once
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

namespace eacu {

/// Runs `fn`; a C++ exception becomes a Lua error carrying what() (raised after the catch
/// block has ended, as LÖVE's luax_catchexcept does, so no C++ object is skipped by longjmp).
template <class F>
int luax_catchexcept(lua_State* L, F&& fn) {
    std::string error;
    bool failed = false;
    int nret = 0;
    try {
        nret = fn();
    } catch (const std::exception& e) {
        failed = true;
        error = e.what();
    } catch (...) {
        failed = true;
        error = "unknown C++ exception";
    }
    if (failed) {
        lua_pushlstring(L, error.data(), error.size());
        return lua_error(L);
    }
    return nret;
}

/// Absolute stack index (Lua 5.1 has no lua_absindex).
inline int luax_absindex(lua_State* L, int idx) {
    return (idx > 0 || idx <= LUA_REGISTRYINDEX) ? idx : lua_gettop(L) + idx + 1;
}

/// Field `key` of the table at `idx` as a number, if present; raises a Lua error naming the
/// field when it has another type.
std::optional<double> luax_optnumberfield(lua_State* L, int idx, const char* key);
/// Field `key` as a string, if present (error when it is not a string).
std::optional<std::string> luax_optstringfield(lua_State* L, int idx, const char* key);
/// Field `key` as a boolean, if present.
std::optional<bool> luax_optboolfield(lua_State* L, int idx, const char* key);

/// Userdata holding a std::shared_ptr<T>, with metatable `tname`.
template <class T>
void luax_pushshared(lua_State* L, std::shared_ptr<T> p, const char* tname) {
    void* mem = lua_newuserdata(L, sizeof(std::shared_ptr<T>));
    new (mem) std::shared_ptr<T>(std::move(p));
    luaL_getmetatable(L, tname);
    lua_setmetatable(L, -2);
}

template <class T>
std::shared_ptr<T>& luax_checkshared(lua_State* L, int idx, const char* tname) {
    auto* p = static_cast<std::shared_ptr<T>*>(luaL_checkudata(L, idx, tname));
    if (!*p) luaL_error(L, "%s: used after release", tname);
    return *p;
}

template <class T>
int luax_gcshared(lua_State* L, const char* tname) {
    auto* p = static_cast<std::shared_ptr<T>*>(luaL_checkudata(L, 1, tname));
    p->~shared_ptr<T>();
    return 0;
}

}  // namespace eacu

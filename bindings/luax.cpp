#include "luax.h"

namespace eacu {

std::optional<double> luax_optnumberfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<double> out;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "field '%s': expected a number, got %s", key, luaL_typename(L, -1));
        out = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return out;
}

std::optional<std::string> luax_optstringfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<std::string> out;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "field '%s': expected a string, got %s", key, luaL_typename(L, -1));
        size_t n = 0;
        const char* s = lua_tolstring(L, -1, &n);
        out = std::string(s, n);
    }
    lua_pop(L, 1);
    return out;
}

std::optional<bool> luax_optboolfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<bool> out;
    if (!lua_isnil(L, -1)) out = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    return out;
}

}  // namespace eacu

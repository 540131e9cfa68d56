#include "wrap_Windows.h"

#include "luax.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// A WindowInfo as {id, pid, title, class, instance, x, y, w, h, focused, minimized,
// maximized, desktop}.
void pushWindow(lua_State* L, const WindowInfo& w) {
    lua_createtable(L, 0, 13);
    lua_pushnumber(L, double(w.id));
    lua_setfield(L, -2, "id");
    lua_pushinteger(L, w.pid);
    lua_setfield(L, -2, "pid");
    lua_pushlstring(L, w.title.data(), w.title.size());
    lua_setfield(L, -2, "title");
    lua_pushlstring(L, w.cls.data(), w.cls.size());
    lua_setfield(L, -2, "class");
    lua_pushlstring(L, w.instance.data(), w.instance.size());
    lua_setfield(L, -2, "instance");
    const std::pair<const char*, int> ints[] = {{"x", w.x}, {"y", w.y}, {"w", w.w}, {"h", w.h}, {"desktop", w.desktop}};
    for (const auto& [k, v] : ints) {
        lua_pushinteger(L, v);
        lua_setfield(L, -2, k);
    }
    lua_pushboolean(L, w.focused);
    lua_setfield(L, -2, "focused");
    lua_pushboolean(L, w.minimized);
    lua_setfield(L, -2, "minimized");
    lua_pushboolean(L, w.maximized);
    lua_setfield(L, -2, "maximized");
}

void pushOptional(lua_State* L, const std::optional<WindowInfo>& w) {
    if (w) pushWindow(L, *w);
    else lua_pushnil(L);
}

int w_list(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        auto all = s.windows();
        lua_createtable(L, int(all.size()), 0);
        for (size_t i = 0; i < all.size(); ++i) {
            pushWindow(L, all[i]);
            lua_rawseti(L, -2, int(i + 1));
        }
        return 1;
    });
}

int w_frontmost(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        pushOptional(L, s.frontmost());
        return 1;
    });
}

int w_info(lua_State* L) {
    auto id = uint64_t(luaL_checknumber(L, 1));
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        pushOptional(L, s.window(id));
        return 1;
    });
}

// op(name, id [, a, b [, timeout]])
int w_op(lua_State* L) {
    std::string op = luaL_checkstring(L, 1);
    auto id = uint64_t(luaL_checknumber(L, 2));
    int a = int(luaL_optinteger(L, 3, 0));
    int b = int(luaL_optinteger(L, 4, 0));
    double timeout = luaL_optnumber(L, 5, 5);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        pushWindow(L, s.windowOp(op, id, a, b, timeout));
        return 1;
    });
}

const luaL_Reg functions[] = {
    {"list", w_list}, {"frontmost", w_frontmost}, {"info", w_info}, {"op", w_op}, {nullptr, nullptr}};

}  // namespace

int luaopen_eacu_windows(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, functions);
    return 1;
}

}  // namespace eacu

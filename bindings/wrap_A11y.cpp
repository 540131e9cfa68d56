#include "wrap_A11y.h"

#include "luax.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

void pushStrings(lua_State* L, const std::vector<std::string>& v) {
    lua_createtable(L, int(v.size()), 0);
    for (size_t i = 0; i < v.size(); ++i) {
        lua_pushlstring(L, v[i].data(), v[i].size());
        lua_rawseti(L, -2, int(i + 1));
    }
}

// An element as {role, name, description, value (when it has one), resource_id (when it has one), states, bounds =
// {x, y, w, h}, actions, editable, path, pid, app (applications only), children}.
void pushElement(lua_State* L, const A11yElement& e) {
    lua_createtable(L, 0, 11);
    auto str = [&](const char* k, const std::string& v) {
        lua_pushlstring(L, v.data(), v.size());
        lua_setfield(L, -2, k);
    };
    str("role", e.role);
    str("name", e.name);
    str("description", e.description);
    if (!e.value.empty()) str("value", e.value);
    if (!e.id.empty()) str("resource_id", e.id);
    pushStrings(L, e.states);
    lua_setfield(L, -2, "states");
    lua_createtable(L, 0, 4);
    const std::pair<const char*, int> b[] = {{"x", e.bounds.x}, {"y", e.bounds.y}, {"w", e.bounds.w}, {"h", e.bounds.h}};
    for (const auto& [k, v] : b) {
        lua_pushinteger(L, v);
        lua_setfield(L, -2, k);
    }
    lua_setfield(L, -2, "bounds");
    pushStrings(L, e.actions);
    lua_setfield(L, -2, "actions");
    lua_pushboolean(L, e.editable_text);
    lua_setfield(L, -2, "editable");
    lua_createtable(L, int(e.path.size()), 0);
    for (size_t i = 0; i < e.path.size(); ++i) {
        lua_pushinteger(L, e.path[i]);
        lua_rawseti(L, -2, int(i + 1));
    }
    lua_setfield(L, -2, "path");
    if (e.role == "application") {
        lua_pushinteger(L, e.pid);
        lua_setfield(L, -2, "pid");
        str("app", e.app);
    }
    lua_createtable(L, int(e.children.size()), 0);
    for (size_t i = 0; i < e.children.size(); ++i) {
        pushElement(L, e.children[i]);
        lua_rawseti(L, -2, int(i + 1));
    }
    lua_setfield(L, -2, "children");
}

int w_snapshot(lua_State* L) {
    std::optional<uint64_t> window;
    if (!lua_isnoneornil(L, 1)) window = uint64_t(luaL_checknumber(L, 1));
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        A11yElement root = s.a11ySnapshot(window);
        pushElement(L, root);
        return 1;
    });
}

int w_set_text(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    size_t n = 0;
    const char* text = luaL_checklstring(L, 2, &n);
    double timeout = luaL_optnumber(L, 3, -1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushmatch(L, s.setText(t, std::string(text, n), timeout));
        return 1;
    });
}

const luaL_Reg functions[] = {{"snapshot", w_snapshot}, {"set_text", w_set_text}, {nullptr, nullptr}};

}  // namespace

int luaopen_eacu_a11y(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, functions);
    return 1;
}

}  // namespace eacu

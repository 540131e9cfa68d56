#include "wrap_Waits.h"

#include "geometry/Coords.h"
#include "luax.h"
#include "step/Session.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

void pushSettle(lua_State* L, const Settle& st) {
    lua_createtable(L, 0, 5);
    lua_pushnumber(L, st.change_ratio);
    lua_setfield(L, -2, "change_ratio");
    lua_pushboolean(L, st.changed);
    lua_setfield(L, -2, "changed");
    lua_pushboolean(L, st.settled);
    lua_setfield(L, -2, "settled");
    lua_pushnumber(L, st.ms);
    lua_setfield(L, -2, "ms");
    lua_pushinteger(L, st.frames);
    lua_setfield(L, -2, "frames");
}

// wait_change(region {x,y,w,h}|nil, threshold, timeout) -> settle table
int w_wait_change(lua_State* L) {
    Session& s = luax_checksession(L);
    std::optional<Rect> region;
    if (!lua_isnoneornil(L, 1)) {
        std::array<double, 4> v = luax_checkregion(L, 1, "wait_change");
        region = resolveRegion(v[0], v[1], v[2], v[3], s.device().screenSize());
    }
    double threshold = luaL_optnumber(L, 2, 0.02);
    double timeout = luaL_optnumber(L, 3, -1);
    return luax_catchexcept(L, [&] {
        pushSettle(L, s.waitChange(region, threshold, timeout));
        return 1;
    });
}

int w_wait_stable(lua_State* L) {
    double timeout = luaL_optnumber(L, 1, -1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        pushSettle(L, s.waitStable(timeout));
        return 1;
    });
}

const luaL_Reg kWaitFunctions[] = {{"wait_change", w_wait_change}, {"wait_stable", w_wait_stable}, {nullptr, nullptr}};

}  // namespace

void luax_addwaits(lua_State* L) { luaL_register(L, nullptr, kWaitFunctions); }

}  // namespace eacu

#include "wrap_Blockers.h"

#include "luax.h"
#include "step/Session.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

// on_blocker(name, target|nil, {kind=, dismiss=target, key=, handler=fn, max=})
int w_on_blocker(lua_State* L) {
    Blocker b;
    b.name = luaL_checkstring(L, 1);
    b.target = lua_isnoneornil(L, 2) ? luax_checktarget(L, 1) : luax_checktarget(L, 2);
    if (lua_istable(L, 3)) {
        if (auto k = luax_optstringfield(L, 3, "kind")) b.kind = *k;
        if (auto k = luax_optstringfield(L, 3, "key")) b.key = *k;
        if (auto m = luax_optnumberfield(L, 3, "max")) b.max_handled = int(*m);
        lua_getfield(L, 3, "dismiss");
        if (!lua_isnil(L, -1)) b.dismiss = luax_checktarget(L, -1);
        lua_pop(L, 1);
        lua_getfield(L, 3, "handler");
        if (lua_isfunction(L, -1)) {
            int ref = luaL_ref(L, LUA_REGISTRYINDEX);
            // The handler's error comes back as a StepError keeping its code (a cancellation
            // inside it stays a cancellation).
            b.handler = [L, ref](const Match& m) {
                if (!lua_checkstack(L, 4)) throw std::runtime_error("blocker handler: Lua stack overflow");
                lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
                luax_pushmatch(L, m);
                try {
                    luax_pcallthrow(L, 1, 0);
                } catch (const StepError& e) {
                    throw StepError(e.code, "blocker handler: " + std::string(e.what()), e.step_id, e.frame_id,
                                    e.target, e.best);
                }
            };
        } else {
            if (!lua_isnil(L, -1)) luaL_error(L, "on_blocker: handler must be a function, got %s", luaL_typename(L, -1));
            lua_pop(L, 1);
        }
    }
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.blockers().add(std::move(b));
        return 0;
    });
}

int w_remove_blocker(lua_State* L) {
    std::string name = luaL_checkstring(L, 1);
    lua_pushboolean(L, luax_checksession(L).blockers().remove(name));
    return 1;
}

// blockers() -> {{name=, kind=, handled=}, ...}
int w_blockers(lua_State* L) {
    const auto& list = luax_checksession(L).blockers().list();
    lua_createtable(L, int(list.size()), 0);
    for (size_t i = 0; i < list.size(); ++i) {
        lua_createtable(L, 0, 3);
        lua_pushstring(L, list[i].name.c_str());
        lua_setfield(L, -2, "name");
        lua_pushstring(L, list[i].kind.c_str());
        lua_setfield(L, -2, "kind");
        lua_pushinteger(L, list[i].handled);
        lua_setfield(L, -2, "handled");
        lua_rawseti(L, -2, int(i + 1));
    }
    return 1;
}

// check_blockers([context]) -> name of the blocker handled, or nil
int w_check_blockers(lua_State* L) {
    std::string ctx = luaL_optstring(L, 1, "");
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        std::string n = s.handleBlockers(ctx);
        if (n.empty()) lua_pushnil(L);
        else lua_pushstring(L, n.c_str());
        return 1;
    });
}

const luaL_Reg kBlockerFunctions[] = {{"on_blocker", w_on_blocker},
                              {"remove_blocker", w_remove_blocker},
                              {"blockers", w_blockers},
                              {"check_blockers", w_check_blockers},
                              {nullptr, nullptr}};

}  // namespace

void luax_addblockers(lua_State* L) { luaL_register(L, nullptr, kBlockerFunctions); }

}  // namespace eacu

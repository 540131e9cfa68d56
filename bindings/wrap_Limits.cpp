#include "wrap_Limits.h"

#include <cstdlib>

#include "luax.h"
#include "step/DomainPolicy.h"
#include "step/Session.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// limits([{max_actions=, max_seconds=}]) -> {max_actions, max_seconds, actions, elapsed}
int w_limits(lua_State* L) {
    LimitGuard& g = luax_checksession(L).limits();
    if (lua_istable(L, 1)) {
        RunLimits l = g.limits();
        if (auto v = luax_optnumberfield(L, 1, "max_actions")) l.max_actions = int(*v);
        if (auto v = luax_optnumberfield(L, 1, "max_seconds")) l.max_seconds = *v;
        g.setLimits(l);
    }
    lua_createtable(L, 0, 4);
    lua_pushinteger(L, g.limits().max_actions);
    lua_setfield(L, -2, "max_actions");
    lua_pushnumber(L, g.limits().max_seconds);
    lua_setfield(L, -2, "max_seconds");
    lua_pushinteger(L, g.actions());
    lua_setfield(L, -2, "actions");
    lua_pushnumber(L, g.elapsed());
    lua_setfield(L, -2, "elapsed");
    return 1;
}

// set_heal(on) -> whether healing was on before (SessionOptions::heal; step{heal = true})
int w_set_heal(lua_State* L) {
    Session& s = luax_checksession(L);
    const bool before = s.options().heal;
    s.options().heal = lua_toboolean(L, 1) != 0;
    lua_pushboolean(L, before);
    return 1;
}

// confirm(what) -> true | false, reason
int w_confirm(lua_State* L) {
    std::string what = luaL_checkstring(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        std::string why = s.confirm(what);
        lua_pushboolean(L, why.empty());
        if (why.empty()) return 1;
        lua_pushstring(L, why.c_str());
        return 2;
    });
}

// ask_user(text) -> the person's answer (a string); a failure value "blocked" without one
int w_ask_user(lua_State* L) {
    std::string text = luaL_checkstring(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        std::string answer = s.askUser(text);
        lua_pushlstring(L, answer.data(), answer.size());
        return 1;
    });
}

// check_url(url) -> true; a failure value "refused" when EACU_ALLOW_DOMAINS/EACU_BLOCK_DOMAINS forbid it
int w_check_url(lua_State* L) {
    std::string url = luaL_checkstring(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        checkUrlAllowed(s, url);
        lua_pushboolean(L, 1);
        return 1;
    });
}

// looks_risky(text [, extra_words]) -> boolean
int w_looks_risky(lua_State* L) {
    std::string text = luaL_checkstring(L, 1);
    std::vector<std::string> extra = luax_checkstrings(L, 2, "looks_risky: extra words");
    lua_pushboolean(L, looksRisky(text, extra));
    return 1;
}

const luaL_Reg kLimitFunctions[] = {
    {"limits", w_limits},
    {"set_heal", w_set_heal},
    {"confirm", w_confirm},
    {"ask_user", w_ask_user},
    {"check_url", w_check_url},
    {"looks_risky", w_looks_risky},
    {nullptr, nullptr}};

}  // namespace

void luax_addlimits(lua_State* L) { luaL_register(L, nullptr, kLimitFunctions); }

}  // namespace eacu

#include "wrap_Steps.h"

#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "geometry/Coords.h"
#include "luax.h"
#include "task/AppModules.h"
#include "task/Session.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

Session& session(lua_State* L) { return luax_checksession(L); }

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
            b.handler = [L, ref](const Match& m) {
                lua_rawgeti(L, LUA_REGISTRYINDEX, ref);
                luax_pushmatch(L, m);
                if (lua_pcall(L, 1, 0, 0) != 0) {
                    std::string msg = lua_tostring(L, -1) ? lua_tostring(L, -1) : "(error without message)";
                    lua_pop(L, 1);
                    throw std::runtime_error("blocker handler: " + msg);
                }
            };
        } else {
            if (!lua_isnil(L, -1)) luaL_error(L, "on_blocker: handler must be a function, got %s", luaL_typename(L, -1));
            lua_pop(L, 1);
        }
    }
    Session& s = session(L);
    return luax_catchexcept(L, [&] {
        s.blockers().add(std::move(b));
        return 0;
    });
}

int w_remove_blocker(lua_State* L) {
    std::string name = luaL_checkstring(L, 1);
    lua_pushboolean(L, session(L).blockers().remove(name));
    return 1;
}

// blockers() -> {{name=, kind=, handled=}, ...}
int w_blockers(lua_State* L) {
    const auto& list = session(L).blockers().list();
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
    Session& s = session(L);
    return luax_catchexcept(L, [&] {
        std::string n = s.handleBlockers(ctx);
        if (n.empty()) lua_pushnil(L);
        else lua_pushstring(L, n.c_str());
        return 1;
    });
}

// wait_change(region {x,y,w,h}|nil, threshold, timeout) -> settle table
int w_wait_change(lua_State* L) {
    Session& s = session(L);
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
    Session& s = session(L);
    return luax_catchexcept(L, [&] {
        pushSettle(L, s.waitStable(timeout));
        return 1;
    });
}

// limits([{max_actions=, max_seconds=}]) -> {max_actions, max_seconds, actions, elapsed}
int w_limits(lua_State* L) {
    LimitGuard& g = session(L).limits();
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

// confirm(what) -> true | false, reason
int w_confirm(lua_State* L) {
    std::string what = luaL_checkstring(L, 1);
    Session& s = session(L);
    return luax_catchexcept(L, [&] {
        const char* env = std::getenv("EACU_CONFIRM");
        std::string why = confirmRisky(what, env && *env ? confirmModeFromEnv() : s.confirmMode());
        lua_pushboolean(L, why.empty());
        if (why.empty()) return 1;
        lua_pushstring(L, why.c_str());
        return 2;
    });
}

// The strings of the array at `idx` (a single string counts as a list of one); raises a Lua
// error naming `what` for an element that is not a string.
std::vector<std::string> stringArray(lua_State* L, int idx, const char* what) {
    idx = luax_absindex(L, idx);
    std::vector<std::string> out;
    if (lua_type(L, idx) == LUA_TSTRING) out.emplace_back(lua_tostring(L, idx));
    else if (lua_istable(L, idx))
        for (int i = 1;; ++i) {
            lua_rawgeti(L, idx, i);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s[%d] must be a string", what, i);
            out.emplace_back(lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    return out;
}

// looks_risky(text [, extra_words]) -> boolean
int w_looks_risky(lua_State* L) {
    std::string text = luaL_checkstring(L, 1);
    std::vector<std::string> extra = stringArray(L, 2, "looks_risky: extra words");
    lua_pushboolean(L, looksRisky(text, extra));
    return 1;
}

// record_step{action=, target=, status=, error=, params=(JSON text), started_at=, method=} -> id
int w_record_step(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    Session& s = session(L);
    std::string action = luax_optstringfield(L, 1, "action").value_or("step");
    std::string target = luax_optstringfield(L, 1, "target").value_or("");
    std::string status = luax_optstringfield(L, 1, "status").value_or("ok");
    std::string error = luax_optstringfield(L, 1, "error").value_or("");
    std::string params = luax_optstringfield(L, 1, "params").value_or("{}");
    std::string method = luax_optstringfield(L, 1, "method").value_or("step");
    auto started = luax_optnumberfield(L, 1, "started_at");
    return luax_catchexcept(L, [&] {
        if (nlohmann::json::parse(params, nullptr, false).is_discarded())
            throw std::invalid_argument("record_step: params must be JSON text, got " + params.substr(0, 80));
        StepRecord r = s.beginStep(action, target);
        if (started) r.started_at = *started;
        r.status = status;
        r.error = error;
        r.params_json = params;
        r.method = method;
        lua_pushnumber(L, double(s.commitStep(r)));
        return 1;
    });
}

// Field `field` of the table at `idx` as a list of strings (see stringArray).
std::vector<std::string> stringList(lua_State* L, int idx, const char* field) {
    lua_getfield(L, idx, field);
    std::vector<std::string> out = stringArray(L, -1, (std::string("route: ") + field).c_str());
    lua_pop(L, 1);
    return out;
}

// route(task, {{name=, keywords={}, package=, templates={{name=, patterns={}, risky=}}}})
//   -> {module=, score=, template=, pattern=, params={}, keywords={}, scores={{module=, score=}}}
int w_route(lua_State* L) {
    std::string task = luaL_checkstring(L, 1);
    luaL_checktype(L, 2, LUA_TTABLE);
    std::vector<AppModuleInfo> mods;
    for (int i = 1;; ++i) {
        lua_rawgeti(L, 2, i);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        int m = lua_gettop(L);
        AppModuleInfo info;
        info.name = luax_optstringfield(L, m, "name").value_or("");
        info.package = luax_optstringfield(L, m, "package").value_or("");
        info.keywords = stringList(L, m, "keywords");
        lua_getfield(L, m, "templates");
        if (lua_istable(L, -1)) {
            int t = lua_gettop(L);
            for (int j = 1;; ++j) {
                lua_rawgeti(L, t, j);
                if (lua_isnil(L, -1)) {
                    lua_pop(L, 1);
                    break;
                }
                AppTemplate tpl;
                tpl.name = luax_optstringfield(L, -1, "name").value_or("");
                tpl.patterns = stringList(L, lua_gettop(L), "patterns");
                tpl.risky = luax_optboolfield(L, -1, "risky").value_or(false);
                info.templates.push_back(tpl);
                lua_pop(L, 1);
            }
        }
        lua_pop(L, 2);
        mods.push_back(info);
    }
    return luax_catchexcept(L, [&] {
        Route r = routeTask(task, mods);
        auto pushScore = [&](const RouteScore& s) {
            lua_createtable(L, 0, 7);
            lua_pushstring(L, s.module.c_str());
            lua_setfield(L, -2, "module");
            lua_pushnumber(L, s.score);
            lua_setfield(L, -2, "score");
            lua_pushstring(L, s.template_name.c_str());
            lua_setfield(L, -2, "template");
            lua_pushstring(L, s.pattern.c_str());
            lua_setfield(L, -2, "pattern");
            lua_createtable(L, 0, int(s.params.size()));
            for (const auto& [k, v] : s.params) {
                lua_pushstring(L, v.c_str());
                lua_setfield(L, -2, k.c_str());
            }
            lua_setfield(L, -2, "params");
            lua_createtable(L, int(s.keywords_hit.size()), 0);
            for (size_t i = 0; i < s.keywords_hit.size(); ++i) {
                lua_pushstring(L, s.keywords_hit[i].c_str());
                lua_rawseti(L, -2, int(i + 1));
            }
            lua_setfield(L, -2, "keywords");
        };
        pushScore(r.best);
        lua_createtable(L, int(r.scores.size()), 0);
        for (size_t i = 0; i < r.scores.size(); ++i) {
            pushScore(r.scores[i]);
            lua_rawseti(L, -2, int(i + 1));
        }
        lua_setfield(L, -2, "scores");
        return 1;
    });
}

// list_dirs(path) -> sorted names of the sub-folders of `path` that hold an init.lua
int w_list_dirs(lua_State* L) {
    std::string dir = luaL_checkstring(L, 1);
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& e : std::filesystem::directory_iterator(dir, ec))
        if (e.is_directory() && std::filesystem::exists(e.path() / "init.lua"))
            names.push_back(e.path().filename().string());
    std::sort(names.begin(), names.end());
    lua_createtable(L, int(names.size()), 0);
    for (size_t i = 0; i < names.size(); ++i) {
        lua_pushstring(L, names[i].c_str());
        lua_rawseti(L, -2, int(i + 1));
    }
    return 1;
}

// wall() -> seconds since the Unix epoch
int w_wall(lua_State* L) {
    lua_pushnumber(L, wallSeconds());
    return 1;
}

const luaL_Reg functions[] = {
    {"on_blocker", w_on_blocker},   {"remove_blocker", w_remove_blocker}, {"blockers", w_blockers},
    {"check_blockers", w_check_blockers}, {"wait_change", w_wait_change}, {"wait_stable", w_wait_stable},
    {"limits", w_limits},           {"confirm", w_confirm},               {"looks_risky", w_looks_risky},
    {"record_step", w_record_step}, {"wall", w_wall},
    {"route", w_route},             {"list_dirs", w_list_dirs},           {nullptr, nullptr}};

}  // namespace

int luaopen_eacu_steps(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, functions);
    return 1;
}

}  // namespace eacu

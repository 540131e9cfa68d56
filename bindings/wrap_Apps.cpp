#include "wrap_Apps.h"

#include <algorithm>
#include <filesystem>

#include "luax.h"
#include "step/AppModules.h"

namespace eacu {
namespace {

// Field `field` of the table at `idx` as a list of strings (see luax_checkstrings).
std::vector<std::string> stringList(lua_State* L, int idx, const char* field) {
    lua_getfield(L, idx, field);
    std::vector<std::string> out = luax_checkstrings(L, -1, (std::string("route: ") + field).c_str());
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

const luaL_Reg kAppFunctions[] = {{"route", w_route}, {"list_dirs", w_list_dirs}, {nullptr, nullptr}};

}  // namespace

void luax_addapps(lua_State* L) { luaL_register(L, nullptr, kAppFunctions); }

}  // namespace eacu

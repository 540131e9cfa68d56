#include "wrap_AppSteps.h"

#include "luax.h"
#include "step/AppSteps.h"
#include "step/Session.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// launch_app(package) -> true
int w_launch_app(lua_State* L) {
    std::string package = luaL_checkstring(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        launchApp(s, package);
        lua_pushboolean(L, 1);
        return 1;
    });
}

// stop_app(package) -> true
int w_stop_app(lua_State* L) {
    std::string package = luaL_checkstring(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        stopApp(s, package);
        lua_pushboolean(L, 1);
        return 1;
    });
}

// current_app() -> "package/activity"
int w_current_app(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        std::string app = currentApp(s);
        lua_pushlstring(L, app.data(), app.size());
        return 1;
    });
}

// has_apps() -> whether the device has installed apps (Android)
int w_has_apps(lua_State* L) {
    lua_pushboolean(L, appsOf(luax_checksession(L)) != nullptr);
    return 1;
}

const luaL_Reg kAppStepFunctions[] = {{"launch_app", w_launch_app},
                                      {"stop_app", w_stop_app},
                                      {"current_app", w_current_app},
                                      {"has_apps", w_has_apps},
                                      {nullptr, nullptr}};

}  // namespace

void luax_addappsteps(lua_State* L) { luaL_register(L, nullptr, kAppStepFunctions); }

}  // namespace eacu

#include "wrap_Navigation.h"

#include "luax.h"
#include "step/Navigation.h"
#include "step/Session.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// open_url(url [, timeout]) -> true
int w_open_url(lua_State* L) {
    std::string url = luaL_checkstring(L, 1);
    double timeout = luaL_optnumber(L, 2, 30);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        openUrl(s, url, timeout);
        lua_pushboolean(L, 1);
        return 1;
    });
}

// current_url() -> the page's URL
int w_current_url(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        std::string url = currentUrl(s);
        lua_pushlstring(L, url.data(), url.size());
        return 1;
    });
}

const luaL_Reg kNavigationFunctions[] = {
    {"open_url", w_open_url},
    {"current_url", w_current_url},
    {nullptr, nullptr}};

}  // namespace

void luax_addnavigation(lua_State* L) { luaL_register(L, nullptr, kNavigationFunctions); }

}  // namespace eacu

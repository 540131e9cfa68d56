// eacu._highlight: the native side of highlight() (an outline on the X11 screen).
#include "wrap_Highlight.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

extern "C" {
#include <lauxlib.h>
}

#include "device/x11/Highlight.h"
#include "wrap_Session.h"

namespace eacu {
namespace {

// show(x, y, w, h [, seconds [, rgb [, thickness]]]): outline on the session's X display (else
// $DISPLAY); returns nothing.
int w_show(lua_State* L) {
    std::string display = luax_checksession(L).options().display;
    Rect box{int(luaL_checkinteger(L, 1)), int(luaL_checkinteger(L, 2)), int(luaL_checkinteger(L, 3)),
             int(luaL_checkinteger(L, 4))};
    double seconds = luaL_optnumber(L, 5, 1.5);
    uint32_t rgb = uint32_t(luaL_optinteger(L, 6, 0xff2d55));
    int thickness = int(luaL_optinteger(L, 7, 3));
    std::string err;
    try {
        std::string d = display;
        if (d.empty() && std::getenv("DISPLAY")) d = std::getenv("DISPLAY");
        if (d.empty()) throw std::runtime_error("highlight: no X display (an image: device has no screen to draw on, and $DISPLAY is not set)");
        flashOutline(d, box, seconds, rgb, thickness);
    } catch (const std::exception& e) {
        err = e.what();
    }
    if (!err.empty()) return luaL_error(L, "%s", err.c_str());
    return 0;
}

int w_shown(lua_State* L) {
    lua_pushinteger(L, outlinesShown());
    return 1;
}

int w_clear(lua_State* L) {
    clearOutlines();
    return 0;
}

const luaL_Reg kFuncs[] = {{"show", w_show}, {"shown", w_shown}, {"clear", w_clear}, {nullptr, nullptr}};

}  // namespace

int luaopen_eacu_highlight(lua_State* L) {
    lua_newtable(L);
    luaL_register(L, nullptr, kFuncs);
    return 1;
}

}  // namespace eacu

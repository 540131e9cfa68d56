// The private native module eacu._a11y: the device's accessibility tree through the Session.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._a11y (registered in package.preload by LuaHost):
/// snapshot([window id]) -> element table (Session::a11ySnapshot);
/// set_text(target, text [, timeout]) -> match table (Session::setText).
int luaopen_eacu_a11y(lua_State* L);

}  // namespace eacu

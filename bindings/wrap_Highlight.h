// eacu._highlight: native module behind stdlib/eacu/highlight.lua.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._highlight (register it in package.preload).
int luaopen_eacu_highlight(lua_State* L);

}  // namespace eacu

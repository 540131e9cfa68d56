// The private native module eacu._windows: the device's windows through the Session.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._windows (registered in package.preload by LuaHost):
/// list() -> array of window tables; frontmost() -> table or nil; info(id) -> table or nil;
/// op(name, id [, a, b [, timeout]]) -> table (Session::windowOp).
int luaopen_eacu_windows(lua_State* L);

}  // namespace eacu

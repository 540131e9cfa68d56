// The private native module eacu._native: the Session's steps, callable from Lua.
#pragma once
extern "C" {
#include <lua.h>
}

#include "step/Session.h"

namespace eacu {

/// Binds `session` to the state (stored in the registry) so eacu._native can reach it.
/// The session must outlive the state's use of it.
void luax_setsession(lua_State* L, Session* session);

/// The session bound by luax_setsession; raises a Lua error ("no device session (run the
/// script with `eacu run`)") when none is.
Session& luax_checksession(lua_State* L);

/// lua_CFunction opening eacu._native (registered in package.preload by LuaHost).
int luaopen_eacu_native(lua_State* L);

}  // namespace eacu

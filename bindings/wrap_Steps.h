// The private native module eacu._steps: blockers, change/stability waits, run limits,
// confirmation and step{} summary rows, over the Session (runtime/task).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._steps (registered in package.preload by LuaHost). Uses the
/// session bound by luax_setsession.
int luaopen_eacu_steps(lua_State* L);

}  // namespace eacu

// The private native module eacu._steps: step{} over the step engine, blockers, change and
// stability waits, run limits and confirmation, app routing; each concern in its own file
// (wrap_Step, wrap_Blockers, wrap_Waits, wrap_Limits, wrap_Apps), over the Session
// (runtime/step).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._steps (registered in package.preload by LuaHost). Uses the
/// session bound by luax_setsession.
int luaopen_eacu_steps(lua_State* L);

}  // namespace eacu

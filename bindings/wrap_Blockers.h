// eacu._steps, blockers: on_blocker, remove_blocker, blockers, check_blockers over the
// Session's BlockerSet (runtime/step/Blockers.h).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds the blocker functions to the table on top of the stack.
void luax_addblockers(lua_State* L);

}  // namespace eacu

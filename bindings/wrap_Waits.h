// eacu._steps, waits: wait_change and wait_stable over the Session (vision/Stability.h).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds the wait functions to the table on top of the stack.
void luax_addwaits(lua_State* L);

}  // namespace eacu

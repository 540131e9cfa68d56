// eacu._steps, limits and confirmation: limits, confirm, looks_risky (runtime/step/Limits.h).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds the limit and confirmation functions to the table on top of the stack.
void luax_addlimits(lua_State* L);

}  // namespace eacu

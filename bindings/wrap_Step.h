// eacu._steps, the step engine: run_step (step{} as a StepSpec run by step/StepEngine), failure
// values made in Lua (failure, is_failure), record_step and wall.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds the step functions to the table on top of the stack.
void luax_addstep(lua_State* L);

}  // namespace eacu

// Lua userdata for a launched program (eacu.Process).
#pragma once
#include <memory>

extern "C" {
#include <lua.h>
}

#include "process/Process.h"

namespace eacu {

/// Registers the eacu.Process metatable (methods wait, read, read_line, stop, running, pid).
void luaopen_eacu_process(lua_State* L);
/// Pushes a process handle.
void luax_pushprocess(lua_State* L, std::shared_ptr<Process> p);

}  // namespace eacu

// The private native module eacu._agent: what a device agent adds to a screen (the clipboard,
// programs started on the agent's machine), for --device agent:HOST:PORT.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// lua_CFunction opening eacu._agent (registered in package.preload by LuaHost):
/// clipboard_get() -> string; clipboard_set(text); launch(command_line) -> pid;
/// wait(pid, timeout) -> exit code or nil while it runs. Each raises a string error naming
/// the device when the session's device is not an agent.
int luaopen_eacu_agent(lua_State* L);

}  // namespace eacu

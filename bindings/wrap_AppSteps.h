// eacu._steps, installed apps: launch_app, stop_app, current_app, has_apps (runtime/step/AppSteps.h).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds launch_app, stop_app, current_app and has_apps to the table on top of the stack.
void luax_addappsteps(lua_State* L);

}  // namespace eacu

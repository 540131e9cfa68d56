// eacu._steps, app modules: route (runtime/step/AppModules.h) and list_dirs.
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds the app-module functions to the table on top of the stack.
void luax_addapps(lua_State* L);

}  // namespace eacu

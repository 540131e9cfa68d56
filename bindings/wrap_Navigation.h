// eacu._steps, web pages: open_url, current_url (runtime/step/Navigation.h).
#pragma once
extern "C" {
#include <lua.h>
}

namespace eacu {

/// Adds open_url and current_url to the table on top of the stack.
void luax_addnavigation(lua_State* L);

}  // namespace eacu

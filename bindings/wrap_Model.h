// The private native module eacu._model: model-driven steps (ask, grounding, autopilot, plan).
#pragma once
#include <memory>

extern "C" {
#include <lua.h>
}

#include "planner/ModelContext.h"

namespace eacu {

/// Hands the run's model context to the state (owned by the state from now on, destroyed by
/// lua_close). Without it, eacu._model builds one on first use from the environment
/// (EACU_MODEL_*, EACU_MODEL_CACHE) for the state's session.
void luax_setmodel(lua_State* L, std::unique_ptr<ModelContext> ctx);

/// lua_CFunction opening eacu._model (registered in package.preload by LuaHost).
int luaopen_eacu_model(lua_State* L);

}  // namespace eacu

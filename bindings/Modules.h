// The native modules of the Lua API, in one table: LuaHost registers each in package.preload;
// stdlib/eacu/*.lua requires them and builds the public API on them.
#pragma once
extern "C" {
#include <lua.h>
}

#include <span>

namespace eacu {

/// A native module: its name in package.preload ("eacu._native") and its opener, which uses
/// the session bound by luax_setsession.
struct NativeModule {
    const char* name;
    lua_CFunction open;
};

/// Every native module, in no particular order (the preload table is keyed by name).
std::span<const NativeModule> nativeModules();

}  // namespace eacu

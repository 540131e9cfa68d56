// The LuaJIT host: a Lua state with the stdlib preloaded and the DSL installed as globals.
#pragma once
#include <string>
#include <vector>

struct lua_State;

namespace eacu {

class Session;

/// Owns one lua_State. The stdlib modules (stdlib/*.lua, embedded in the binary; read from
/// $EACU_STDLIB_DIR instead when it is set, for development) are in package.preload, and
/// eacu._native is bound to `session`. Construction runs `require "eacu"`, which installs the
/// DSL globals (tap, input, wait, ...).
class LuaHost {
public:
    /// `session` may be null for a host without a device (then DSL calls raise an error).
    /// Throws std::runtime_error if the stdlib fails to load.
    explicit LuaHost(Session* session);
    ~LuaHost();
    LuaHost(const LuaHost&) = delete;
    LuaHost& operator=(const LuaHost&) = delete;

    lua_State* state() const { return L_; }

    /// Prepends `dir`/?.lua and `dir`/?/init.lua to package.path, so `require "calculator"`
    /// finds scripts/calculator/init.lua when `dir` is the scripts folder.
    void addPackagePath(const std::string& dir);

    /// Runs the script file with `args` as `arg` (arg[0] = path) and as `...`.
    /// Returns "" on success, else the error message with a traceback.
    std::string runFile(const std::string& path, const std::vector<std::string>& args);
    /// Runs a chunk of Lua source; returns "" or the error message.
    std::string runString(const std::string& code, const std::string& chunkname);

private:
    std::string call(int nargs);
    lua_State* L_;
};

}  // namespace eacu

// The LuaJIT host: a Lua state with the stdlib preloaded and the DSL installed as globals.
#pragma once
#include <optional>
#include <string>
#include <vector>

struct lua_State;

namespace eacu {

class Session;

/// Owns one lua_State. The JIT compiler is off in it: a run must stop at its deadline or on a
/// signal even in a busy pure-Lua loop, and compiled code never runs the hook that interrupt()
/// sets (scripts spend their time in native waits, where the interpreter costs nothing).
/// The stdlib modules (stdlib/*.lua, embedded in the binary; read from
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
    /// Returns "" on success, else the error message with a traceback. With `result`, it
    /// receives the script's first returned value when that is a string or a number.
    std::string runFile(const std::string& path, const std::vector<std::string>& args,
                        std::optional<std::string>* result = nullptr);
    /// Runs a chunk of Lua source; returns "" or the error message. `result` as for runFile.
    std::string runString(const std::string& code, const std::string& chunkname,
                          std::optional<std::string>* result = nullptr);
    /// Makes the running script raise an error at its next instruction (and at every one
    /// after, so that a pcall cannot swallow it) until the current runFile/runString/callTop
    /// returns. The error is the session's cancel reason (the deadline's message, or
    /// "cancelled"). Callable from another thread or a signal handler (as lua.c's SIGINT
    /// handler does); the hook is cleared when the call returns.
    void interrupt();
    /// Removes the interrupt() hook (done by callTop when its call returns).
    void clearInterrupt();
    /// Calls a function with `nargs` arguments above it on the stack (as lua_pcall does), keeping
    /// `nresults` results (LUA_MULTRET for all) on success; returns "" or the error message with
    /// a traceback (nothing is left on the stack then). Clears an interrupt() hook on return.
    std::string callTop(int nargs, int nresults);

private:
    // callTop keeping one result, which goes to `result` (when a string or number) and is popped.
    std::string callForResult(int nargs, std::optional<std::string>* result);

    lua_State* L_;
    Session* session_;
};

}  // namespace eacu

// Helpers shared by the bindings: exception-safe calls, option-table readers, userdata.
#pragma once
#include <exception>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

extern "C" {
#include <lauxlib.h>
#include <lua.h>
}

#include "step/StepError.h"

namespace eacu {

/// Failure values: how a failed step reaches Lua. A table with the metatable "eacu.Failure":
/// - `code`: the failure code (failure::kNotFound → "not_found", ...);
/// - `message`: the message (what the C++ StepError says);
/// - `target`: the target's label, or nil; `best`: the best candidate seen (a match table
///   {found, x, y, w, h, cx, cy, score, ...}), or nil;
/// - `frame_id`, `step_id`: run-log rows, or nil;
/// - `where`: "script.lua:3: ", set by the stdlib when it raises the value at a script line
///   (eacu.failure.raise), as error(message, level) would prefix a string.
/// tostring(err) is where .. message: the text a string error had, as `eacu run` prints it.
/// String methods (err:find(...)) and concatenation work on that text.
void luax_pushfailure(lua_State* L, const StepError& e);

/// Makes the table at `idx` a failure value (sets the "eacu.Failure" metatable).
void luax_setfailuremeta(lua_State* L, int idx);

/// True when the value at `idx` is a failure value.
bool luax_isfailure(lua_State* L, int idx);

/// The text of the error value at `idx`: a string (or number) as it is, a failure value's
/// tostring, "(error object is a <type> value)" for others.
std::string luax_errortext(lua_State* L, int idx);

/// The error value at `idx` as a StepError: a failure value with its fields (message: its
/// text as printed, with `where`); any other value with failure::kFailed and its text.
StepError luax_tostepError(lua_State* L, int idx);

/// Calls the function below the `nargs` arguments on top of the stack in protected mode,
/// leaving `nresults` results; a Lua error is thrown as a StepError (luax_tostepError). For
/// Lua callbacks run from C++ (step{}'s call=, verify=, success=, fallbacks, blocker handlers).
void luax_pcallthrow(lua_State* L, int nargs, int nresults);

/// The failure value for a C++ exception, if it is a step's failure: a StepError, or an
/// exception whose failure code (step/StepEngine.h failureCode) is limit, cancelled, timeout,
/// model or device. Otherwise (argument errors and the like) std::nullopt, and `text`
/// receives what() for a string error.
std::optional<StepError> luax_failureof(const std::exception_ptr& e, std::string& text);

/// Runs `fn`; a C++ exception becomes a Lua error: a failure value for a step's failure (see
/// luax_failureof), else a string carrying what(). Raised after the catch block has ended, as
/// LÖVE's luax_catchexcept does, so no C++ object is skipped by longjmp.
template <class F>
int luax_catchexcept(lua_State* L, F&& fn) {
    std::string error;
    std::optional<StepError> failure;
    bool failed = false;
    int nret = 0;
    try {
        nret = fn();
    } catch (const std::exception&) {
        failed = true;
        failure = luax_failureof(std::current_exception(), error);
    } catch (...) {
        failed = true;
        error = "unknown C++ exception";
    }
    if (failed) {
        if (failure) luax_pushfailure(L, *failure);
        else lua_pushlstring(L, error.data(), error.size());
        failure.reset();
        std::string().swap(error);
        return lua_error(L);
    }
    return nret;
}

/// Absolute stack index (Lua 5.1 has no lua_absindex).
inline int luax_absindex(lua_State* L, int idx) {
    return (idx > 0 || idx <= LUA_REGISTRYINDEX) ? idx : lua_gettop(L) + idx + 1;
}

/// Field `key` of the table at `idx` as a number, if present; raises a Lua error naming the
/// field when it has another type.
std::optional<double> luax_optnumberfield(lua_State* L, int idx, const char* key);
/// Field `key` as a string, if present (error when it is not a string).
std::optional<std::string> luax_optstringfield(lua_State* L, int idx, const char* key);
/// Field `key` as a boolean, if present.
std::optional<bool> luax_optboolfield(lua_State* L, int idx, const char* key);

/// The strings of the array at `idx` (a single string counts as a list of one; nil or none:
/// empty); raises a Lua error "<what>[i] must be a string" for an element that is not one.
std::vector<std::string> luax_checkstrings(lua_State* L, int idx, const char* what);

/// Userdata holding a std::shared_ptr<T>, with metatable `tname`.
template <class T>
void luax_pushshared(lua_State* L, std::shared_ptr<T> p, const char* tname) {
    void* mem = lua_newuserdata(L, sizeof(std::shared_ptr<T>));
    new (mem) std::shared_ptr<T>(std::move(p));
    luaL_getmetatable(L, tname);
    lua_setmetatable(L, -2);
}

template <class T>
std::shared_ptr<T>& luax_checkshared(lua_State* L, int idx, const char* tname) {
    auto* p = static_cast<std::shared_ptr<T>*>(luaL_checkudata(L, idx, tname));
    if (!*p) luaL_error(L, "%s: used after release", tname);
    return *p;
}

template <class T>
int luax_gcshared(lua_State* L, const char* tname) {
    auto* p = static_cast<std::shared_ptr<T>*>(luaL_checkudata(L, 1, tname));
    p->~shared_ptr<T>();
    return 0;
}

}  // namespace eacu

#include "luax.h"

#include "step/StepEngine.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

const char* kFailureMeta = "eacu.Failure";

// Pushes where .. message of the failure value at `idx`.
void pushFailureText(lua_State* L, int idx) {
    idx = luax_absindex(L, idx);
    lua_getfield(L, idx, "where");
    lua_getfield(L, idx, "message");
    if (!lua_isstring(L, -1)) {
        lua_pop(L, 1);
        lua_pushliteral(L, "(failure without a message)");
    }
    if (lua_isstring(L, -2)) {
        lua_concat(L, 2);
    } else {
        lua_remove(L, -2);
    }
}

int failureToString(lua_State* L) {
    pushFailureText(L, 1);
    return 1;
}

// A string method called on a failure value: called on its text instead.
int failureStringMethod(lua_State* L) {
    int n = lua_gettop(L);
    lua_pushvalue(L, lua_upvalueindex(1));
    if (n >= 1 && luax_isfailure(L, 1)) pushFailureText(L, 1);
    else if (n >= 1) lua_pushvalue(L, 1);
    else lua_pushnil(L);
    for (int i = 2; i <= n; ++i) lua_pushvalue(L, i);
    lua_call(L, n < 1 ? 1 : n, LUA_MULTRET);
    return lua_gettop(L) - n;
}

// __index(err, key): the string library's function of that name, bound to the text.
int failureIndex(lua_State* L) {
    if (lua_type(L, 2) != LUA_TSTRING) return 0;
    lua_getglobal(L, "string");
    if (!lua_istable(L, -1)) return 0;
    lua_pushvalue(L, 2);
    lua_rawget(L, -2);
    if (!lua_isfunction(L, -1)) return 0;
    lua_pushcclosure(L, failureStringMethod, 1);
    return 1;
}

int failureConcat(lua_State* L) {
    for (int i = 1; i <= 2; ++i) {
        if (luax_isfailure(L, i)) {
            pushFailureText(L, i);
        } else if (lua_isstring(L, i)) {
            lua_pushvalue(L, i);
        } else {
            return luaL_error(L, "attempt to concatenate a %s value", luaL_typename(L, i));
        }
    }
    lua_concat(L, 2);
    return 1;
}

void pushFailureMeta(lua_State* L) {
    if (luaL_newmetatable(L, kFailureMeta)) {
        lua_pushcfunction(L, failureToString);
        lua_setfield(L, -2, "__tostring");
        lua_pushcfunction(L, failureIndex);
        lua_setfield(L, -2, "__index");
        lua_pushcfunction(L, failureConcat);
        lua_setfield(L, -2, "__concat");
    }
}

std::optional<double> rawNumber(lua_State* L, int idx, const char* key) {
    lua_pushstring(L, key);
    lua_rawget(L, idx);
    std::optional<double> v;
    if (lua_type(L, -1) == LUA_TNUMBER) v = lua_tonumber(L, -1);
    lua_pop(L, 1);
    return v;
}

std::string rawString(lua_State* L, int idx, const char* key) {
    lua_pushstring(L, key);
    lua_rawget(L, idx);
    std::string v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : "";
    lua_pop(L, 1);
    return v;
}

}  // namespace

std::vector<std::string> luax_checkstrings(lua_State* L, int idx, const char* what) {
    idx = luax_absindex(L, idx);
    std::vector<std::string> out;
    if (lua_type(L, idx) == LUA_TSTRING) out.emplace_back(lua_tostring(L, idx));
    else if (lua_istable(L, idx))
        for (int i = 1;; ++i) {
            lua_rawgeti(L, idx, i);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            if (lua_type(L, -1) != LUA_TSTRING) luaL_error(L, "%s[%d] must be a string", what, i);
            out.emplace_back(lua_tostring(L, -1));
            lua_pop(L, 1);
        }
    return out;
}

void luax_pushfailure(lua_State* L, const StepError& e) {
    lua_createtable(L, 0, 6);
    lua_pushstring(L, e.code.c_str());
    lua_setfield(L, -2, "code");
    lua_pushstring(L, e.what());
    lua_setfield(L, -2, "message");
    if (!e.target.empty()) {
        lua_pushstring(L, e.target.c_str());
        lua_setfield(L, -2, "target");
    }
    if (e.best) {
        luax_pushmatch(L, *e.best);
        lua_setfield(L, -2, "best");
    }
    if (e.frame_id) {
        lua_pushnumber(L, double(e.frame_id));
        lua_setfield(L, -2, "frame_id");
    }
    if (e.step_id) {
        lua_pushnumber(L, double(e.step_id));
        lua_setfield(L, -2, "step_id");
    }
    luax_setfailuremeta(L, -1);
}

void luax_setfailuremeta(lua_State* L, int idx) {
    idx = luax_absindex(L, idx);
    pushFailureMeta(L);
    lua_setmetatable(L, idx);
}

bool luax_isfailure(lua_State* L, int idx) {
    if (!lua_istable(L, idx) || !lua_getmetatable(L, idx)) return false;
    luaL_getmetatable(L, kFailureMeta);
    bool same = lua_rawequal(L, -1, -2) != 0;
    lua_pop(L, 2);
    return same;
}

std::string luax_errortext(lua_State* L, int idx) {
    idx = luax_absindex(L, idx);
    if (luax_isfailure(L, idx)) {
        pushFailureText(L, idx);
        std::string s = lua_tostring(L, -1);
        lua_pop(L, 1);
        return s;
    }
    if (lua_isstring(L, idx)) {
        size_t n = 0;
        const char* s = lua_tolstring(L, idx, &n);
        return std::string(s, n);
    }
    return std::string("(error object is a ") + luaL_typename(L, idx) + " value)";
}

StepError luax_tostepError(lua_State* L, int idx) {
    idx = luax_absindex(L, idx);
    std::string text = luax_errortext(L, idx);
    if (!luax_isfailure(L, idx)) return StepError(failure::kFailed, text);
    std::string code = rawString(L, idx, "code");
    std::optional<Match> best;
    lua_pushstring(L, "best");
    lua_rawget(L, idx);
    if (lua_istable(L, -1)) {
        int b = lua_gettop(L);
        Match m;
        lua_getfield(L, b, "found");
        m.found = lua_toboolean(L, -1) != 0;
        lua_pop(L, 1);
        auto num = [&](const char* k) { return rawNumber(L, b, k).value_or(0); };
        m.box = Rect{int(num("x")), int(num("y")), int(num("w")), int(num("h"))};
        m.target = Point{int(num("cx")), int(num("cy"))};
        m.score = num("score");
        m.color_score = num("color_score");
        m.threshold = num("threshold");
        m.scale = rawNumber(L, b, "scale").value_or(1.0);
        m.ms = num("ms");
        m.method = rawString(L, b, "method");
        best = m;
    }
    lua_pop(L, 1);
    return StepError(code.empty() ? failure::kFailed : code, text, int64_t(rawNumber(L, idx, "step_id").value_or(0)),
                     int64_t(rawNumber(L, idx, "frame_id").value_or(0)), rawString(L, idx, "target"), best);
}

void luax_pcallthrow(lua_State* L, int nargs, int nresults) {
    if (lua_pcall(L, nargs, nresults, 0) != 0) {
        StepError e = luax_tostepError(L, -1);
        lua_pop(L, 1);
        throw e;
    }
}

std::optional<StepError> luax_failureof(const std::exception_ptr& e, std::string& text) {
    StepError se = asStepError(e);
    const std::string& c = se.code;
    bool is_step_error = false;
    try {
        std::rethrow_exception(e);
    } catch (const StepError&) {
        is_step_error = true;
    } catch (...) {
    }
    if (is_step_error || c == failure::kLimit || c == failure::kCancelled || c == failure::kTimeout ||
        c == failure::kModel || c == failure::kDevice)
        return se;
    text = se.what();
    return std::nullopt;
}

std::optional<double> luax_optnumberfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<double> out;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "field '%s': expected a number, got %s", key, luaL_typename(L, -1));
        out = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return out;
}

std::optional<std::string> luax_optstringfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<std::string> out;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TSTRING)
            luaL_error(L, "field '%s': expected a string, got %s", key, luaL_typename(L, -1));
        size_t n = 0;
        const char* s = lua_tolstring(L, -1, &n);
        out = std::string(s, n);
    }
    lua_pop(L, 1);
    return out;
}

std::optional<bool> luax_optboolfield(lua_State* L, int idx, const char* key) {
    lua_getfield(L, idx, key);
    std::optional<bool> out;
    if (!lua_isnil(L, -1)) out = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    return out;
}

}  // namespace eacu

#include "wrap_Step.h"

#include <cstdio>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "luax.h"
#include "step/Session.h"
#include "step/StepEngine.h"
#include "wrap_Session.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

// What the conversion of a step table needs: the state, the hooks table {target=fn,
// dynamic=fn} (stdlib/eacu/step.lua), a table keeping the Lua values callbacks use (it stays
// on the stack while the step runs) and the stack slot receiving the main action's Lua result.
struct Conv {
    lua_State* L;
    int hooks;
    int keep;
    int value_slot;
    int kept = 0;
};

// Keeps the value at `idx` for a callback; returns its key in the keep table.
int keepValue(Conv& c, int idx) {
    idx = luax_absindex(c.L, idx);
    lua_pushvalue(c.L, idx);
    lua_rawseti(c.L, c.keep, ++c.kept);
    return c.kept;
}

void needStack(lua_State* L) {
    if (!lua_checkstack(L, 8)) throw std::runtime_error("step: Lua stack overflow");
}

// Stores the callback's result (on top) in the value slot when `slot` is set, else drops it.
void storeResult(lua_State* L, int slot) {
    if (slot) lua_replace(L, slot);
    else lua_pop(L, 1);
}

// call=: the function, called without arguments.
std::function<std::optional<Match>(double)> callPerform(Conv& c, int key, bool main) {
    lua_State* L = c.L;
    int keep = c.keep, slot = main ? c.value_slot : 0;
    return [L, keep, key, slot](double) -> std::optional<Match> {
        needStack(L);
        lua_rawgeti(L, keep, key);
        luax_pcallthrow(L, 0, 1);
        storeResult(L, slot);
        return std::nullopt;
    };
}

// Calls hooks.dynamic(kind, target, timeout, {button=, hold=}) (the model grounds the target).
void callDynamic(lua_State* L, int hooks, int keep, int key, const std::string& kind, double timeout,
                 const std::string& button, double hold) {
    needStack(L);
    lua_getfield(L, hooks, "dynamic");
    lua_pushstring(L, kind.c_str());
    lua_rawgeti(L, keep, key);
    lua_pushnumber(L, timeout);
    lua_createtable(L, 0, 2);
    if (!button.empty()) {
        lua_pushstring(L, button.c_str());
        lua_setfield(L, -2, "button");
    }
    if (hold >= 0) {
        lua_pushnumber(L, hold);
        lua_setfield(L, -2, "hold");
    }
    luax_pcallthrow(L, 4, 1);
}

bool isDynamic(lua_State* L, int idx) {
    if (!lua_istable(L, idx)) return false;
    lua_getfield(L, idx, "dynamic");
    bool d = !lua_isnil(L, -1);
    lua_pop(L, 1);
    return d;
}

std::string dynamicLabel(lua_State* L, int idx) {
    lua_getfield(L, idx, "dynamic");
    std::string d = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    lua_pop(L, 1);
    return "{dynamic=" + nlohmann::json(d).dump() + "}";
}

std::string numText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.14g", v);
    return buf;
}

// A target value (not dynamic) normalized by hooks.target (a Match becomes its point; bad
// targets raise there) and read as a TargetSpec.
TargetSpec readTarget(Conv& c, int idx, const std::string& fname) {
    lua_State* L = c.L;
    idx = luax_absindex(L, idx);
    lua_getfield(L, c.hooks, "target");
    lua_pushvalue(L, idx);
    lua_pushstring(L, fname.c_str());
    lua_call(L, 2, 1);
    TargetSpec t = luax_checktarget(L, -1);
    lua_pop(L, 1);
    if (t.point && t.label.empty()) t.label = "{x=" + numText((*t.point)[0]) + ", y=" + numText((*t.point)[1]) + "}";
    return t;
}

// The target of a tap, double_tap, long_press or wait at `idx` into `a`: dynamic targets are
// acted on by hooks.dynamic, the others by the session.
void readActionTarget(Conv& c, int idx, StepAction& a, bool main, const std::string& button, double hold) {
    lua_State* L = c.L;
    if (!isDynamic(L, idx)) {
        a.target = readTarget(c, idx, a.kind);
        return;
    }
    int key = keepValue(c, idx);
    a.label = a.kind + " " + dynamicLabel(L, idx);
    int hooks = c.hooks, keep = c.keep, slot = main ? c.value_slot : 0;
    a.perform = [L, hooks, keep, key, slot, kind = a.kind, button, hold](double timeout) -> std::optional<Match> {
        callDynamic(L, hooks, keep, key, kind, timeout, button, hold);
        storeResult(L, slot);
        return std::nullopt;
    };
}

const char* const kKinds[] = {"tap", "double_tap", "long_press", "input", "key", "scroll", "swipe", "wait", "call"};

// Seed 002's action names (StepPlan.action) → step{} kinds.
const char* seedKind(const std::string& a) {
    if (a == "input_text" || a == "input") return "input";
    if (a == "press_key" || a == "key") return "key";
    for (const char* k : kKinds)
        if (a == k && a != "call") return k;
    return nullptr;
}

bool hasAction(lua_State* L, int idx) {
    if (lua_isfunction(L, idx)) return true;
    if (!lua_istable(L, idx)) return false;
    lua_getfield(L, idx, "action");
    bool any = !lua_isnil(L, -1);
    lua_pop(L, 1);
    for (const char* k : kKinds) {
        if (any) break;
        lua_getfield(L, idx, k);
        any = !lua_isnil(L, -1);
        lua_pop(L, 1);
    }
    return any;
}

MouseButton checkButton(lua_State* L, const std::string& b) {
    if (b == "left") return MouseButton::Left;
    if (b == "right") return MouseButton::Right;
    if (b == "middle") return MouseButton::Middle;
    luaL_error(L, "step: invalid button \"%s\": expected left, right or middle", b.c_str());
    return MouseButton::Left;
}

// Pushes the value of seed 002's form {action=, target=|target_ref=, params=} (nothing pushed
// and nil returned when it has no action=); returns the kind.
const char* pushSeedValue(lua_State* L, int t, const char* what) {
    lua_getfield(L, t, "action");
    if (lua_isnil(L, -1)) {
        lua_pop(L, 1);
        return nullptr;
    }
    std::string name = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : luaL_typename(L, -1);
    lua_pop(L, 1);
    const char* kind = seedKind(name);
    if (!kind)
        luaL_error(L, "%s: unknown action \"%s\" (expected tap, double_tap, long_press, input_text, press_key, scroll, "
                      "swipe, wait)", what, name.c_str());
    lua_getfield(L, t, "params");
    int p = lua_gettop(L);
    auto param = [&](const char* k) {
        if (lua_istable(L, p)) lua_getfield(L, p, k);
        else lua_pushnil(L);
        return !lua_isnil(L, -1);
    };
    auto field = [&](const char* k) {
        lua_getfield(L, t, k);
        return !lua_isnil(L, -1);
    };
    auto targetField = [&]() {
        if (field("target")) return true;
        lua_pop(L, 1);
        return field("target_ref");
    };
    std::string k = kind;
    bool found;
    if (k == "input") {
        found = param("text") || (lua_pop(L, 1), field("text"));
    } else if (k == "key") {
        found = param("key") || (lua_pop(L, 1), field("key"));
    } else if (k == "scroll" || k == "swipe") {
        found = param("direction") || (lua_pop(L, 1), targetField());
    } else if (k == "wait") {
        found = targetField();
        if (!found) {
            lua_pop(L, 1);
            double ms = 1000;
            if (param("ms") || (lua_pop(L, 1), param("duration"))) ms = luaL_checknumber(L, -1);
            lua_pop(L, 1);
            lua_pushnumber(L, ms / 1000);
            found = true;
        }
    } else {
        found = targetField();
    }
    if (!found) luaL_error(L, "%s: action %s needs its target or params", what, name.c_str());
    lua_remove(L, p);
    return kind;
}

// Reads one action: a function (call), or a table with one of tap=, double_tap=, long_press=,
// input=, key=, scroll=, swipe=, wait=, call=, or seed 002's action=/target=/params=. Returns
// nothing for a table without an action. Raises a Lua error for bad input.
std::optional<StepAction> readAction(Conv& c, int idx, const char* what, bool main) {
    lua_State* L = c.L;
    idx = luax_absindex(L, idx);
    StepAction a;
    if (lua_isfunction(L, idx)) {
        a.kind = "call";
        a.perform = callPerform(c, keepValue(c, idx), main);
        return a;
    }
    if (!lua_istable(L, idx)) luaL_error(L, "%s: expected a table or a function, got %s", what, luaL_typename(L, idx));
    const char* kind = pushSeedValue(L, idx, what);
    if (!kind) {
        for (const char* k : kKinds) {
            lua_getfield(L, idx, k);
            if (!lua_isnil(L, -1)) {
                kind = k;
                break;
            }
            lua_pop(L, 1);
        }
        if (!kind) return std::nullopt;
    }
    int v = lua_gettop(L);
    a.kind = kind;
    std::string button = luax_optstringfield(L, idx, "button").value_or("");
    if (!button.empty()) a.button = checkButton(L, button);
    double hold = luax_optnumberfield(L, idx, "hold").value_or(-1);
    const std::string& k = a.kind;
    if (k == "tap" || k == "double_tap" || k == "long_press") {
        if (k == "long_press") a.seconds = hold;
        readActionTarget(c, v, a, main, button, hold);
    } else if (k == "input") {
        if (lua_type(L, v) != LUA_TSTRING && lua_type(L, v) != LUA_TNUMBER)
            luaL_error(L, "input: expected text (a string), got %s", luaL_typename(L, v));
        a.text = lua_tostring(L, v);
    } else if (k == "key") {
        if (lua_type(L, v) != LUA_TSTRING) luaL_error(L, "key: expected a key combo string, got %s", luaL_typename(L, v));
        a.text = lua_tostring(L, v);
    } else if ((k == "scroll" || k == "swipe") && lua_type(L, v) == LUA_TSTRING) {
        std::string dir = lua_tostring(L, v);
        try {
            a = scrollAction(dir, k == "swipe");
        } catch (const std::invalid_argument& e) {
            luaL_error(L, "%s", e.what());
        }
    } else if (k == "scroll") {
        if (lua_type(L, v) == LUA_TNUMBER) {
            a.dy = int(lua_tointeger(L, v));
        } else if (lua_istable(L, v)) {
            a.dx = int(luax_optnumberfield(L, v, "dx").value_or(0));
            a.dy = int(luax_optnumberfield(L, v, "dy").value_or(0));
            lua_getfield(L, v, "at");
            if (!lua_isnil(L, -1)) a.target = readTarget(c, -1, "scroll");
            lua_pop(L, 1);
        } else {
            luaL_error(L, "scroll: expected up|down|left|right, {dy=, dx=, at=} or a number, got %s",
                       luaL_typename(L, v));
        }
    } else if (k == "swipe") {
        if (!lua_istable(L, v)) luaL_error(L, "swipe: expected up|down|left|right or {from=, to=, duration=}");
        lua_getfield(L, v, "from");
        a.target = readTarget(c, -1, "swipe");
        lua_pop(L, 1);
        lua_getfield(L, v, "to");
        a.to = readTarget(c, -1, "swipe");
        lua_pop(L, 1);
        a.seconds = luax_optnumberfield(L, v, "duration").value_or(0.3);
    } else if (k == "wait") {
        if (lua_type(L, v) == LUA_TNUMBER) {
            a.seconds = lua_tonumber(L, v);
            if (a.seconds < 0) luaL_error(L, "wait: expected seconds >= 0, got %f", a.seconds);
        } else {
            readActionTarget(c, v, a, main, "", -1);
        }
    } else if (k == "call") {
        if (!lua_isfunction(L, v)) luaL_error(L, "call: expected a function, got %s", luaL_typename(L, v));
        a.perform = callPerform(c, keepValue(c, v), main);
    }
    lua_pop(L, 1);
    return a;
}

// A check: a function (polled until it returns true), a dynamic target (asked of the model),
// or a target (waited for).
StepCheck readCheck(Conv& c, int idx, const char* what) {
    lua_State* L = c.L;
    idx = luax_absindex(L, idx);
    StepCheck chk;
    chk.what = what;
    if (lua_isfunction(L, idx)) {
        int key = keepValue(c, idx), keep = c.keep;
        chk.label = "(function)";
        chk.holds = [L, keep, key]() {
            needStack(L);
            lua_rawgeti(L, keep, key);
            luax_pcallthrow(L, 0, 1);
            bool ok = lua_toboolean(L, -1) != 0;
            lua_pop(L, 1);
            return ok;
        };
    } else if (isDynamic(L, idx)) {
        int key = keepValue(c, idx), keep = c.keep, hooks = c.hooks;
        chk.label = dynamicLabel(L, idx);
        chk.check = [L, hooks, keep, key](double timeout) {
            callDynamic(L, hooks, keep, key, "verify", timeout, "", -1);
            lua_pop(L, 1);
        };
    } else {
        chk.target = readTarget(c, idx, "verify");
    }
    return chk;
}

double optSeconds(lua_State* L, int t, const char* key, double dflt) {
    lua_getfield(L, t, key);
    double v = dflt;
    if (!lua_isnil(L, -1)) {
        if (lua_type(L, -1) != LUA_TNUMBER || lua_tonumber(L, -1) < 0)
            luaL_error(L, "step: %s must be a number of seconds >= 0, got %s", key,
                       lua_type(L, -1) == LUA_TNUMBER ? numText(lua_tonumber(L, -1)).c_str() : luaL_typename(L, -1));
        v = lua_tonumber(L, -1);
    }
    lua_pop(L, 1);
    return v;
}

int optCount(lua_State* L, int t, const char* key, int dflt) {
    lua_getfield(L, t, key);
    int v = dflt;
    if (!lua_isnil(L, -1)) {
        double d = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : -1;
        if (d < 0 || d != double(int(d)))
            luaL_error(L, "step: %s must be a whole number >= 0, got %s", key,
                       lua_type(L, -1) == LUA_TNUMBER ? numText(d).c_str() : luaL_typename(L, -1));
        v = int(d);
    }
    lua_pop(L, 1);
    return v;
}

StepSpec readSpec(Conv& c, int t) {
    lua_State* L = c.L;
    StepSpec s;
    s.name = luax_optstringfield(L, t, "name").value_or("");
    s.timeout = optSeconds(L, t, "timeout", 5);
    s.retry = optCount(L, t, "retry", 1);
    s.fallback_max = optCount(L, t, "fallback_max", 3);
    s.wait_before = optSeconds(L, t, "wait_before", 0);
    s.wait_after = optSeconds(L, t, "wait_after", 0);
    s.optional = luax_optboolfield(L, t, "optional").value_or(false);
    s.risky = luax_optboolfield(L, t, "risky").value_or(false);
    s.action = readAction(c, t, "step", true);

    lua_getfield(L, t, "verify");
    if (!lua_isnil(L, -1)) s.verify = readCheck(c, -1, "the step's verify condition");
    lua_pop(L, 1);
    lua_getfield(L, t, "success");
    if (!lua_isnil(L, -1)) {
        if (!lua_isfunction(L, -1)) luaL_error(L, "step: success must be a function, got %s", luaL_typename(L, -1));
        s.success = readCheck(c, -1, "the step's success predicate");
    }
    lua_pop(L, 1);
    if (!s.action && !s.verify && !s.success)
        luaL_error(L, "step: expected an action (tap=, input=, key=, scroll=, swipe=, wait=, call=, or action=) or "
                      "verify=");

    // fallback: one action (a table or a function) or a list of them.
    lua_getfield(L, t, "fallback");
    int fb = lua_gettop(L);
    if (hasAction(L, fb)) {
        s.fallback.push_back(*readAction(c, fb, "step fallback", false));
    } else if (lua_istable(L, fb)) {
        for (int i = 1;; ++i) {
            lua_rawgeti(L, fb, i);
            if (lua_isnil(L, -1)) {
                lua_pop(L, 1);
                break;
            }
            std::optional<StepAction> a = readAction(c, -1, "step fallback", false);
            if (!a) luaL_error(L, "step: fallback %d has no action", i);
            s.fallback.push_back(std::move(*a));
            lua_pop(L, 1);
        }
        if (s.fallback.empty()) luaL_error(L, "step: fallback has no action");
    } else if (!lua_isnil(L, fb)) {
        luaL_error(L, "step: fallback must be an action table, a function or a list of them, got %s",
                   luaL_typename(L, fb));
    }
    lua_pop(L, 1);
    return s;
}

void setStepString(lua_State* L, const char* k, const std::string& v) {
    lua_pushstring(L, v.c_str());
    lua_setfield(L, -2, k);
}

// run_step(spec, hooks) -> {ok, attempts, fallbacks, reason, suggestion, step_id, value, match,
// code, error}. hooks: {target = function(value, fname) -> normalized target, dynamic =
// function(kind, target, timeout, {button=, hold=}) -> result}. A failure that is not optional
// is raised as a failure value.
int w_run_step(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    luaL_checktype(L, 2, LUA_TTABLE);
    lua_settop(L, 2);
    lua_newtable(L);  // 3: values kept for callbacks
    lua_pushnil(L);   // 4: the main action's Lua result
    Conv c{L, 2, 3, 4};
    StepSpec spec = readSpec(c, 1);
    Session& ses = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        StepResult r = runStep(ses, spec);
        lua_createtable(L, 0, 10);
        lua_pushboolean(L, r.ok);
        lua_setfield(L, -2, "ok");
        lua_pushinteger(L, r.attempts);
        lua_setfield(L, -2, "attempts");
        lua_pushinteger(L, r.fallbacks);
        lua_setfield(L, -2, "fallbacks");
        setStepString(L, "reason", r.reason);
        setStepString(L, "suggestion", r.suggestion);
        if (r.step_id) {
            lua_pushnumber(L, double(r.step_id));
            lua_setfield(L, -2, "step_id");
        }
        if (r.match) {
            luax_pushmatch(L, *r.match);
            lua_setfield(L, -2, "match");
        }
        lua_pushvalue(L, c.value_slot);
        lua_setfield(L, -2, "value");
        if (!r.ok) {
            setStepString(L, "code", r.code);
            luax_pushfailure(L, *r.error);
            lua_setfield(L, -2, "error");
        }
        return 1;
    });
}

// failure{code=, message=, target=, best=, frame_id=, step_id=} -> the table as a failure value
int w_failure(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    lua_settop(L, 1);
    lua_getfield(L, 1, "code");
    lua_getfield(L, 1, "message");
    if (lua_type(L, -2) != LUA_TSTRING || lua_type(L, -1) != LUA_TSTRING)
        luaL_error(L, "failure: expected {code = \"...\", message = \"...\"}");
    lua_pop(L, 2);
    luax_setfailuremeta(L, 1);
    return 1;
}

int w_is_failure(lua_State* L) {
    lua_pushboolean(L, luax_isfailure(L, 1));
    return 1;
}

// record_step{action=, target=, status=, error=, params=(JSON text), started_at=, method=} -> id
int w_record_step(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    Session& s = luax_checksession(L);
    std::string action = luax_optstringfield(L, 1, "action").value_or("step");
    std::string target = luax_optstringfield(L, 1, "target").value_or("");
    std::string status = luax_optstringfield(L, 1, "status").value_or("ok");
    std::string error = luax_optstringfield(L, 1, "error").value_or("");
    std::string params = luax_optstringfield(L, 1, "params").value_or("{}");
    std::string method = luax_optstringfield(L, 1, "method").value_or("step");
    auto started = luax_optnumberfield(L, 1, "started_at");
    return luax_catchexcept(L, [&] {
        if (nlohmann::json::parse(params, nullptr, false).is_discarded())
            throw std::invalid_argument("record_step: params must be JSON text, got " + params.substr(0, 80));
        StepRecord r = s.beginStep(action, target);
        if (started) r.started_at = *started;
        r.status = status;
        r.error = error;
        r.params_json = params;
        r.method = method;
        lua_pushnumber(L, double(s.commitStep(r)));
        return 1;
    });
}

// wall() -> seconds since the Unix epoch
int w_wall(lua_State* L) {
    lua_pushnumber(L, wallSeconds());
    return 1;
}

const luaL_Reg kStepFunctions[] = {{"run_step", w_run_step}, {"failure", w_failure},   {"is_failure", w_is_failure},
                              {"record_step", w_record_step}, {"wall", w_wall}, {nullptr, nullptr}};

}  // namespace

void luax_addstep(lua_State* L) { luaL_register(L, nullptr, kStepFunctions); }

}  // namespace eacu

#include "wrap_Session.h"

#include "luax.h"
#include "wrap_Ocr.h"
#include "wrap_Process.h"
#include "wrap_Target.h"

namespace eacu {
namespace {

const char* kSessionKey = "eacu.session";

MouseButton checkButton(lua_State* L, const char* name) {
    std::string b = name;
    if (b == "left") return MouseButton::Left;
    if (b == "right") return MouseButton::Right;
    if (b == "middle") return MouseButton::Middle;
    luaL_error(L, "invalid button \"%s\": expected left, right or middle", name);
    return MouseButton::Left;
}

// locate(target [, timeout]) -> match table (found may be false)
int w_locate(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    double timeout = luaL_optnumber(L, 2, 0);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushmatch(L, s.locate(t, timeout));
        return 1;
    });
}

// find_all(target [, max]) -> array of match tables
int w_find_all(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    int max = int(luaL_optinteger(L, 2, 100));
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushmatches(L, s.findAll(t, max));
        return 1;
    });
}

// wait(target [, timeout [, action]]) -> match; error when absent
int w_wait(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    double timeout = luaL_optnumber(L, 2, -1);
    std::string action = luaL_optstring(L, 3, "wait");
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushmatch(L, s.wait(t, timeout, action));
        return 1;
    });
}

// wait_vanish(target [, timeout])
int w_wait_vanish(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    double timeout = luaL_optnumber(L, 2, -1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.waitVanish(t, timeout);
        return 0;
    });
}

// tap(target [, {button=, count=, hold=, timeout=, action=}]) -> match
int w_tap(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    TapOptions o;
    if (lua_istable(L, 2)) {
        if (auto b = luax_optstringfield(L, 2, "button")) o.button = checkButton(L, b->c_str());
        if (auto c = luax_optnumberfield(L, 2, "count")) o.count = int(*c);
        if (auto h = luax_optnumberfield(L, 2, "hold")) o.hold = *h;
        if (auto to = luax_optnumberfield(L, 2, "timeout")) o.timeout = *to;
        if (auto a = luax_optstringfield(L, 2, "action")) o.action = *a;
    }
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushmatch(L, s.tap(t, o));
        return 1;
    });
}

// batch({{action=, target=, text=, button=, hold=}, ...} [, timeout]) ->
//   {actions=, locate_ms=, ms=, settle_ms=, changed=, frame_id=, matches={match, ...}}
int w_batch(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    double timeout = luaL_optnumber(L, 2, -1);
    std::vector<BatchAction> actions;
    const int n = int(lua_objlen(L, 1));
    for (int i = 1; i <= n; ++i) {
        lua_rawgeti(L, 1, i);
        if (!lua_istable(L, -1)) luaL_error(L, "batch: action %d: expected a table, got %s", i, luaL_typename(L, -1));
        BatchAction b;
        if (auto a = luax_optstringfield(L, -1, "action")) b.action = *a;
        lua_getfield(L, -1, "target");
        if (!lua_isnil(L, -1)) b.target = luax_checktarget(L, -1);
        lua_pop(L, 1);
        if (auto t = luax_optstringfield(L, -1, "text")) b.text = *t;
        if (auto bt = luax_optstringfield(L, -1, "button")) b.button = checkButton(L, bt->c_str());
        if (auto h = luax_optnumberfield(L, -1, "hold")) b.hold = *h;
        lua_pop(L, 1);
        actions.push_back(std::move(b));
    }
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        BatchResult r = s.batch(actions, timeout);
        lua_createtable(L, 0, 7);
        lua_pushinteger(L, r.actions);
        lua_setfield(L, -2, "actions");
        lua_pushnumber(L, r.locate_ms);
        lua_setfield(L, -2, "locate_ms");
        lua_pushnumber(L, r.ms);
        lua_setfield(L, -2, "ms");
        lua_pushnumber(L, r.settle.ms);
        lua_setfield(L, -2, "settle_ms");
        lua_pushboolean(L, r.settle.changed);
        lua_setfield(L, -2, "changed");
        lua_pushnumber(L, double(r.frame_id));
        lua_setfield(L, -2, "frame_id");
        luax_pushmatches(L, r.matches);
        lua_setfield(L, -2, "matches");
        return 1;
    });
}

// The optional window id and focus flag of input and key (arguments 2 and 3).
std::optional<uint64_t> optWindow(lua_State* L, int idx) {
    if (lua_isnoneornil(L, idx)) return std::nullopt;
    return uint64_t(luaL_checknumber(L, idx));
}

// input(text [, window id [, focus [, secret [, check]]]])
int w_input(lua_State* L) {
    size_t n = 0;
    const char* text = luaL_checklstring(L, 1, &n);
    std::optional<uint64_t> window = optWindow(L, 2);
    bool focus = lua_isnoneornil(L, 3) ? true : lua_toboolean(L, 3) != 0;
    bool secret = lua_toboolean(L, 4) != 0;
    bool check = lua_isnoneornil(L, 5) ? true : lua_toboolean(L, 5) != 0;
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.input(std::string(text, n), window, focus, secret, check);
        return 0;
    });
}

// key(combo [, window id [, focus]])
int w_key(lua_State* L) {
    std::string combo = luaL_checkstring(L, 1);
    std::optional<uint64_t> window = optWindow(L, 2);
    bool focus = lua_isnoneornil(L, 3) ? true : lua_toboolean(L, 3) != 0;
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.key(combo, window, focus);
        return 0;
    });
}

// scroll(dx, dy [, target])
int w_scroll(lua_State* L) {
    int dx = int(luaL_checkinteger(L, 1));
    int dy = int(luaL_checkinteger(L, 2));
    std::optional<TargetSpec> at;
    if (!lua_isnoneornil(L, 3)) at = luax_checktarget(L, 3);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        lua_pushboolean(L, s.scroll(dx, dy, at));
        return 1;
    });
}

// drag(from, to [, duration])
int w_drag(lua_State* L) {
    TargetSpec from = luax_checktarget(L, 1);
    TargetSpec to = luax_checktarget(L, 2);
    double duration = luaL_optnumber(L, 3, 0.3);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.drag(from, to, duration);
        return 0;
    });
}

// screenshot([path]) -> frame id
int w_screenshot(lua_State* L) {
    std::string path = luaL_optstring(L, 1, "");
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        lua_pushnumber(L, double(s.screenshot(path)));
        return 1;
    });
}

int w_sleep(lua_State* L) {
    double seconds = luaL_checknumber(L, 1);
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        s.sleep(seconds);
        return 0;
    });
}

// launch(argv_table) -> Process
int w_launch(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    std::vector<std::string> argv;
    for (int i = 1;; ++i) {
        lua_rawgeti(L, 1, i);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            break;
        }
        if (lua_type(L, -1) != LUA_TSTRING && lua_type(L, -1) != LUA_TNUMBER)
            luaL_error(L, "launch: argv[%d] must be a string, got %s", i, luaL_typename(L, -1));
        argv.emplace_back(lua_tostring(L, -1));
        lua_pop(L, 1);
    }
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushprocess(L, s.launch(argv));
        return 1;
    });
}

// ocr([region [, langs]]) -> {text, ms, langs, lines = {...}}; region {x, y, w, h}
int w_ocr(lua_State* L) {
    std::optional<std::array<double, 4>> region;
    if (!lua_isnoneornil(L, 1)) region = luax_checkregion(L, 1, "ocr");
    std::string langs = luaL_optstring(L, 2, "eng+chi_sim");
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        luax_pushocr(L, *s.ocr(region, langs));
        return 1;
    });
}

// screen_size() -> w, h (physical pixels), scale
int w_screen_size(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        Size sz = s.device().screenSize();
        lua_pushinteger(L, sz.w);
        lua_pushinteger(L, sz.h);
        lua_pushnumber(L, s.device().scaleFactor());
        return 3;
    });
}

// resolve(target) -> {name, path, threshold, offset={dx,dy}, scale, w, h}; error if unknown
int w_resolve(lua_State* L) {
    TargetSpec t = luax_checktarget(L, 1);
    if (!t.image) luaL_error(L, "resolve: expected an image target");
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        Template tpl = s.assets().resolve(*t.image, s.options().script_dir);
        lua_createtable(L, 0, 7);
        lua_pushstring(L, tpl.name.c_str());
        lua_setfield(L, -2, "name");
        lua_pushstring(L, tpl.path.c_str());
        lua_setfield(L, -2, "path");
        lua_pushnumber(L, t.threshold.value_or(tpl.threshold));
        lua_setfield(L, -2, "threshold");
        lua_pushnumber(L, tpl.scale);
        lua_setfield(L, -2, "scale");
        lua_pushinteger(L, tpl.bgr.cols);
        lua_setfield(L, -2, "w");
        lua_pushinteger(L, tpl.bgr.rows);
        lua_setfield(L, -2, "h");
        Point off = t.offset.value_or(tpl.offset);
        lua_createtable(L, 2, 0);
        lua_pushinteger(L, off.x);
        lua_rawseti(L, -2, 1);
        lua_pushinteger(L, off.y);
        lua_rawseti(L, -2, 2);
        lua_setfield(L, -2, "offset");
        return 1;
    });
}

// assets() -> sorted array of qualified asset names
int w_assets(lua_State* L) {
    Session& s = luax_checksession(L);
    return luax_catchexcept(L, [&] {
        auto names = s.assets().names();
        lua_createtable(L, int(names.size()), 0);
        for (size_t i = 0; i < names.size(); ++i) {
            lua_pushstring(L, names[i].c_str());
            lua_rawseti(L, -2, int(i + 1));
        }
        return 1;
    });
}

// run_info() -> {run_id=, db=, device=, script_dir=}
int w_run_info(lua_State* L) {
    Session& s = luax_checksession(L);
    lua_createtable(L, 0, 4);
    lua_pushnumber(L, double(s.runId()));
    lua_setfield(L, -2, "run_id");
    lua_pushstring(L, s.log() ? s.log()->path().c_str() : "");
    lua_setfield(L, -2, "db");
    return luax_catchexcept(L, [&] {
        lua_pushstring(L, s.device().describe().c_str());
        lua_setfield(L, -2, "device");
        lua_pushstring(L, s.options().script_dir.c_str());
        lua_setfield(L, -2, "script_dir");
        return 1;
    });
}

// set_options{find_timeout=, poll_interval=, effect_timeout=, settle_interval=, settle_timeout=}
int w_set_options(lua_State* L) {
    luaL_checktype(L, 1, LUA_TTABLE);
    SessionOptions& o = luax_checksession(L).options();
    if (auto v = luax_optnumberfield(L, 1, "find_timeout")) o.find_timeout = *v;
    if (auto v = luax_optnumberfield(L, 1, "poll_interval")) o.poll_interval = *v;
    if (auto v = luax_optnumberfield(L, 1, "effect_timeout")) o.effect_timeout = *v;
    if (auto v = luax_optnumberfield(L, 1, "settle_interval")) o.settle_interval = *v;
    if (auto v = luax_optnumberfield(L, 1, "settle_timeout")) o.settle_timeout = *v;
    if (auto v = luax_optnumberfield(L, 1, "change_tolerance")) o.change_tolerance = int(*v);
    if (auto v = luax_optnumberfield(L, 1, "noise_ratio")) o.noise_ratio = *v;
    if (auto v = luax_optnumberfield(L, 1, "tap_retries")) o.tap_retries = int(*v);
    if (auto v = luax_optnumberfield(L, 1, "jitter")) o.jitter = int(*v);
    if (auto v = luax_optnumberfield(L, 1, "cursor_attempts")) o.cursor_attempts = int(*v);
    if (auto v = luax_optnumberfield(L, 1, "blocker_interval")) o.blocker_interval = *v;
    return 0;
}

// now() -> seconds on the monotonic clock
int w_now(lua_State* L) {
    lua_pushnumber(L, monotonicSeconds());
    return 1;
}

const luaL_Reg native_functions[] = {
    {"now", w_now},
    {"locate", w_locate},       {"find_all", w_find_all},     {"wait", w_wait},
    {"wait_vanish", w_wait_vanish}, {"tap", w_tap}, {"batch", w_batch},           {"input", w_input},
    {"key", w_key},             {"scroll", w_scroll},         {"drag", w_drag},
    {"screenshot", w_screenshot}, {"sleep", w_sleep},         {"launch", w_launch},
    {"screen_size", w_screen_size}, {"ocr", w_ocr}, {"resolve", w_resolve},   {"assets", w_assets},
    {"run_info", w_run_info},   {"set_options", w_set_options}, {nullptr, nullptr}};

}  // namespace

Session& luax_checksession(lua_State* L) {
    lua_getfield(L, LUA_REGISTRYINDEX, kSessionKey);
    auto* s = static_cast<Session*>(lua_touserdata(L, -1));
    lua_pop(L, 1);
    if (!s) luaL_error(L, "eacu: no device session (run the script with `eacu run`)");
    return *s;
}

void luax_setsession(lua_State* L, Session* s) {
    lua_pushlightuserdata(L, s);
    lua_setfield(L, LUA_REGISTRYINDEX, kSessionKey);
}

int luaopen_eacu_native(lua_State* L) {
    luaopen_eacu_process(L);
    lua_newtable(L);
    luaL_register(L, nullptr, native_functions);
    return 1;
}

}  // namespace eacu

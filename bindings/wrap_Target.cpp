#include "wrap_Target.h"

extern "C" {
#include <lauxlib.h>
}

#include "luax.h"

#include <algorithm>
#include <iterator>
#include <memory>

namespace eacu {
namespace {

// Reads {a, b, ...} or {k1=, k2=, ...} at the top of the stack into `out` (n values).
bool readNumbers(lua_State* L, int idx, const char* const* keys, int n, double* out) {
    idx = luax_absindex(L, idx);
    for (int i = 0; i < n; ++i) {
        lua_rawgeti(L, idx, i + 1);
        if (lua_isnil(L, -1)) {
            lua_pop(L, 1);
            lua_getfield(L, idx, keys[i]);
        }
        if (lua_type(L, -1) != LUA_TNUMBER) {
            lua_pop(L, 1);
            return false;
        }
        out[i] = lua_tonumber(L, -1);
        lua_pop(L, 1);
    }
    return true;
}

// The script line a target came from: "PATH:LINE" of the innermost Lua frame that is a file
// and not the stdlib's (embedded "@stdlib/...", or on disk under EACU_STDLIB_DIR: ".../stdlib/eacu/");
// "" when there is none (a chunk from a string: the REPL).
std::string scriptLine(lua_State* L) {
    lua_Debug ar;
    for (int level = 1; lua_getstack(L, level, &ar); ++level) {
        if (!lua_getinfo(L, "Sl", &ar) || ar.currentline <= 0 || !ar.source || ar.source[0] != '@') continue;
        const std::string src = ar.source + 1;
        if (src.rfind("stdlib/", 0) == 0 || src.find("/stdlib/eacu/") != std::string::npos) continue;
        return src + ":" + std::to_string(ar.currentline);
    }
    return "";
}

}  // namespace

std::array<double, 4> luax_checkregion(lua_State* L, int idx, const char* what) {
    static const char* const keys[] = {"x", "y", "w", "h"};
    double v[4];
    if (!lua_istable(L, idx) || !readNumbers(L, idx, keys, 4, v))
        luaL_error(L, "%s: region must be {x, y, w, h} (pixels, or fractions 0..1)", what);
    return {v[0], v[1], v[2], v[3]};
}

TargetSpec luax_checktarget(lua_State* L, int idx) {
    idx = luax_absindex(L, idx);
    TargetSpec t;
    if (lua_type(L, idx) == LUA_TSTRING) {
        std::string s = lua_tostring(L, idx);
        if (s.rfind("text:", 0) == 0) {
            t.text = s.substr(5);
            if (t.text->empty()) luaL_error(L, "empty text target: expected \"text:<phrase>\"");
        } else if (s.rfind("a11y:", 0) == 0) {
            t.a11y = A11yQuery{};
            t.a11y->name = s.substr(5);
            if (t.a11y->name->empty()) luaL_error(L, "empty a11y target: expected \"a11y:<accessible name>\"");
        } else {
            t.image = s;
        }
        t.label = "\"" + s + "\"";
        t.where = scriptLine(L);
        return t;
    }
    if (lua_type(L, idx) != LUA_TTABLE)
        luaL_error(L, "expected a target (asset name, image path, {image=...} or {x=, y=}), got %s",
                   luaL_typename(L, idx));
    static const char* const relations[] = {"right_of", "left_of", "above", "below", "near", "inside"};
    for (const char* r : relations) {
        lua_getfield(L, idx, r);
        if (!lua_isnil(L, -1)) {
            if (t.anchor) luaL_error(L, "a relative target has one of right_of, left_of, above, below, near, inside, not several");
            t.anchor = std::make_shared<const TargetSpec>(luax_checktarget(L, -1));
            t.relative.relation = *relationFromName(r);
        }
        lua_pop(L, 1);
    }
    if (auto kind = luax_optstringfield(L, idx, "kind")) {
        static const char* const kinds[] = {"field", "button", "checkbox", "text", "image", "any"};
        if (std::find(std::begin(kinds), std::end(kinds), *kind) == std::end(kinds))
            luaL_error(L, "kind must be \"field\", \"button\", \"checkbox\", \"text\", \"image\" or \"any\", got \"%s\"",
                       kind->c_str());
        t.relative.kind = *kind;
    }
    if (auto nth = luax_optnumberfield(L, idx, "nth")) {
        if (*nth < 1 || *nth != int(*nth)) luaL_error(L, "nth must be a whole number >= 1, got %f", *nth);
        t.relative.nth = int(*nth);
    }
    if (!t.anchor) {
        lua_getfield(L, idx, "kind");
        lua_getfield(L, idx, "nth");
        bool stray = !lua_isnil(L, -1) || !lua_isnil(L, -2);
        lua_pop(L, 2);
        if (stray) luaL_error(L, "kind = and nth = go with right_of, left_of, above, below, near or inside");
    }
    t.image = luax_optstringfield(L, idx, "image");
    if (!t.image && !t.anchor) {
        lua_rawgeti(L, idx, 1);
        if (lua_type(L, -1) == LUA_TSTRING) t.image = lua_tostring(L, -1);
        lua_pop(L, 1);
    }
    t.text = luax_optstringfield(L, idx, "text");
    t.lang = luax_optstringfield(L, idx, "lang");
    if (t.text && t.text->empty()) luaL_error(L, "text target: expected a phrase, got an empty string");
    auto x = luax_optnumberfield(L, idx, "x");
    auto y = luax_optnumberfield(L, idx, "y");
    if (x.has_value() != y.has_value()) luaL_error(L, "a point target needs both x and y");
    if (x) t.point = std::array<double, 2>{*x, *y};
    auto role = luax_optstringfield(L, idx, "role");
    auto name = luax_optstringfield(L, idx, "name");
    auto resource_id = luax_optstringfield(L, idx, "resource_id");
    auto value = luax_optstringfield(L, idx, "value");
    if (value && !role && !name && !resource_id)
        luaL_error(L, "a11y target: value= narrows role=, name= or resource_id=, it does not stand alone");
    if (role || name || resource_id) {
        t.a11y = A11yQuery{};
        t.a11y->role = role;
        t.a11y->name = name;
        t.a11y->id = resource_id;
        t.a11y->value = value;
        if (resource_id && resource_id->empty()) luaL_error(L, "a11y target: resource_id= must not be an empty string");
        lua_getfield(L, idx, "press");
        if (lua_type(L, -1) == LUA_TSTRING) t.a11y->press = lua_tostring(L, -1);
        else if (lua_toboolean(L, -1)) t.a11y->press = "*";
        else if (!lua_isnil(L, -1) && lua_type(L, -1) != LUA_TBOOLEAN)
            luaL_error(L, "a11y target: press must be true or an action name, got %s", luaL_typename(L, -1));
        lua_pop(L, 1);
        if ((role && role->empty()) || (name && name->empty()))
            luaL_error(L, "a11y target: role= and name= must not be empty strings");
    }
    if (int(t.image.has_value()) + int(t.text.has_value()) + int(t.point.has_value()) + int(t.a11y.has_value()) +
            int(t.anchor != nullptr) > 1)
        luaL_error(L, "a target has one of image=, text=, role=/name=, x/y or a relation (right_of=, ...), not several");
    if (!t.image && !t.point && !t.text && !t.a11y && !t.anchor)
        luaL_error(L, "expected a target table with image=..., text=..., role=/name= (accessibility tree) or x=, y= (got none)");
    t.threshold = luax_optnumberfield(L, idx, "threshold");
    if (t.threshold && (*t.threshold < 0 || *t.threshold > 1))
        luaL_error(L, "threshold must be in 0..1, got %f", *t.threshold);
    lua_getfield(L, idx, "region");
    if (!lua_isnil(L, -1)) t.region = luax_checkregion(L, -1, "target");
    lua_pop(L, 1);
    lua_getfield(L, idx, "offset");
    if (!lua_isnil(L, -1)) {
        static const char* const keys[] = {"x", "y"};
        double v[2];
        if (!lua_istable(L, -1) || !readNumbers(L, -1, keys, 2, v))
            luaL_error(L, "offset must be {dx, dy} in pixels");
        t.offset = Point{int(v[0]), int(v[1])};
    }
    lua_pop(L, 1);
    if (auto w = luax_optnumberfield(L, idx, "window")) t.window = uint64_t(*w);
    lua_getfield(L, idx, "raise");
    t.raise = lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    lua_getfield(L, idx, "focus");
    t.focus = lua_isnil(L, -1) || lua_toboolean(L, -1) != 0;
    lua_pop(L, 1);
    if ((t.raise || !t.focus) && !t.window)
        luaL_error(L, "raise = true and focus = false need a window (window = ...)");
    if (t.raise && !t.focus) luaL_error(L, "raise = true and focus = false contradict each other: pick one");
    lua_getfield(L, idx, "alt");
    if (!lua_isnil(L, -1)) {
        if (!lua_istable(L, -1) || lua_objlen(L, -1) == 0)
            luaL_error(L, "alt must be a list of targets, e.g. alt = { \"text:OK\", \"ok.png\" }, got %s",
                       lua_istable(L, -1) ? "an empty table" : luaL_typename(L, -1));
        if (t.point) luaL_error(L, "a point target {x=, y=} cannot have alternatives (alt =): a point is always found");
        const int alts = luax_absindex(L, -1);
        for (int i = 1; i <= int(lua_objlen(L, alts)); ++i) {
            lua_rawgeti(L, alts, i);
            TargetSpec a = luax_checktarget(L, -1);
            lua_pop(L, 1);
            if (a.point) luaL_error(L, "alt %d is a point {x=, y=}: an alternative must be searched for (a point is always found)", i);
            if (!a.alternatives.empty()) luaL_error(L, "alt %d has alternatives of its own: give them all in one alt list", i);
            t.alternatives.push_back(std::move(a));
        }
    }
    lua_pop(L, 1);
    if (auto label = luax_optstringfield(L, idx, "label")) t.label = *label;
    else if (t.image) t.label = "\"" + *t.image + "\"";
    else if (t.text) t.label = "{text=\"" + *t.text + "\"}";
    else if (t.a11y) t.label = describeQuery(*t.a11y);
    else if (t.anchor)
        t.label = std::string("{") + relationName(t.relative.relation) + " = " + t.anchor->label +
                  (t.relative.kind == "any" ? "" : ", kind = \"" + t.relative.kind + "\"") +
                  (t.relative.nth == 1 ? "" : ", nth = " + std::to_string(t.relative.nth)) + "}";
    t.where = scriptLine(L);
    return t;
}

void luax_pushmatches(lua_State* L, const std::vector<Match>& matches) {
    lua_createtable(L, int(matches.size()), 0);
    for (size_t i = 0; i < matches.size(); ++i) {
        luax_pushmatch(L, matches[i]);
        lua_rawseti(L, -2, int(i + 1));
    }
}

void luax_pushmatch(lua_State* L, const Match& m) {
    lua_createtable(L, 0, 13);
    lua_pushboolean(L, m.found);
    lua_setfield(L, -2, "found");
    auto num = [&](const char* k, double v) {
        lua_pushnumber(L, v);
        lua_setfield(L, -2, k);
    };
    num("x", m.box.x);
    num("y", m.box.y);
    num("w", m.box.w);
    num("h", m.box.h);
    num("cx", m.target.x);
    num("cy", m.target.y);
    num("score", m.score);
    num("color_score", m.color_score);
    num("threshold", m.threshold);
    num("scale", m.scale);
    num("ms", m.ms);
    lua_pushstring(L, m.method.c_str());
    lua_setfield(L, -2, "method");
    if (!m.veto.empty()) {
        lua_pushstring(L, m.veto.c_str());
        lua_setfield(L, -2, "veto");
    }
}

}  // namespace eacu

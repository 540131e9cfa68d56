// Conversions between Lua values and TargetSpec / Match.
#pragma once
extern "C" {
#include <lua.h>
}

#include <array>

#include "step/Target.h"
#include "vision/Match.h"

namespace eacu {

/// Reads a target at `idx`: a string (asset name, alias or image path), or a table with
/// `image` (or [1]), `x`/`y`, `threshold`, `region` ({x, y, w, h} or {x=,y=,w=,h=}),
/// `offset` ({dx, dy} or {x=,y=}) and `label`. Raises a Lua error naming what was expected.
TargetSpec luax_checktarget(lua_State* L, int idx);

/// Reads a region at `idx`: {x, y, w, h} or {x=, y=, w=, h=} (pixels, or fractions 0..1).
/// Raises a Lua error "<what>: region must be {x, y, w, h} ..." for anything else.
std::array<double, 4> luax_checkregion(lua_State* L, int idx, const char* what);

/// Pushes a match as a table {found, x, y, w, h, cx, cy, score, color_score, threshold,
/// method, scale, ms, veto (only when a confirm rejected it)}; (cx, cy) is the input point.
void luax_pushmatch(lua_State* L, const Match& m);
/// Pushes matches as an array of such tables, in order.
void luax_pushmatches(lua_State* L, const std::vector<Match>& matches);

}  // namespace eacu

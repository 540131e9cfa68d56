-- Normalizes what scripts pass as a target into what eacu._native accepts. Every verb's target
-- passes here once (init.lua's verbs, step{} through its hooks, on_blocker), so the rules hold
-- everywhere:
--   * a target table's fields are checked: a field it does not know is an error naming it;
--   * a positional string means what the same string means alone: { "text:OK" } == "text:OK",
--     { "a11y:OK" } == "a11y:OK", { "calculator.btn_1", threshold = 0.8 } an asset;
--   * the per-call options a verb takes (timeout, button, max) may be given in the target table
--     as in its options argument, with the same effect; given in both with different values is
--     an error.
local match = require("eacu.match")
local windows = require("eacu.windows")

local M = {}

-- What a target table may hold besides the verb's per-call options, in the order error
-- messages list them.
M.FIELDS = { "image", "text", "threshold", "region", "offset", "lang", "window", "raise", "focus",
  "role", "name", "resource_id", "value", "press", "right_of", "left_of", "above", "below", "near", "inside", "kind", "nth" }

-- The fields of a relative target holding its anchor (any target), as runtime/step/RelativeTarget.h.
M.RELATIONS = { "right_of", "left_of", "above", "below", "near", "inside" }
-- Fields listed after the verb's options: a point, and the label the run log shows.
M.FIELDS_TAIL = { "x", "y", "label", "alt" }

--- The per-call options each verb takes in its options argument (also accepted in its target
--- table). Verbs not listed (drag, swipe, scroll's at, resolve, on_blocker) take none there.
M.VERB_OPTIONS = {
  tap = { "timeout", "button" }, double_tap = { "timeout", "button" }, long_press = { "timeout", "button" },
  locate = { "timeout" }, exists = { "timeout" }, wait = { "timeout" }, wait_vanish = { "timeout" },
  verify = { "timeout" }, find_all = { "max" },
}

--- The fields of scroll{} and swipe{} tables (the verbs' and a step's scroll=/swipe= value;
--- a step's action table has no window options: its targets carry them).
M.SCROLL_FIELDS = { "dy", "dx", "at", "window", "raise" }
M.SWIPE_FIELDS = { "from", "to", "duration", "window", "raise" }

-- The fields of a step{} table that scripts may mistakenly put in the step's target.
local STEP_FIELDS = { timeout = true, button = true, hold = true, retry = true, verify = true, fallback = true,
  optional = true }

-- Edit distance between two short ASCII strings, counting a swap of neighbours as one edit
-- (optimal string alignment, Damerau-Levenshtein without repeated edits), for "did you mean".
local function distance(a, b)
  local d = {}
  for i = 0, #a do d[i] = { [0] = i } end
  for j = 0, #b do d[0][j] = j end
  for i = 1, #a do
    for j = 1, #b do
      local cost = a:byte(i) == b:byte(j) and 0 or 1
      d[i][j] = math.min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
      if i > 1 and j > 1 and a:byte(i) == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        d[i][j] = math.min(d[i][j], d[i - 2][j - 2] + 1)
      end
    end
  end
  return d[#a][#b]
end

local function key_text(k)
  if type(k) == "string" then return string.format("%q", k) end
  return "[" .. tostring(k) .. "]"
end

--- check_fields(t, fname, known, what [, level=3]): raises "<fname>: unknown <what> "k"
--- (did you mean "x"?) (known: ...)" for the first key of `t` not in the list `known`
--- (positional keys: only [1], and only when `known` holds 1). Keys are checked in sorted
--- order so the message does not depend on table iteration.
function M.check_fields(t, fname, known, what, level)
  local ok = {}
  for _, k in ipairs(known) do ok[k] = true end
  local bad = {}
  for k in pairs(t) do
    if not ok[k] then bad[#bad + 1] = k end
  end
  if #bad == 0 then return end
  table.sort(bad, function(a, b) return key_text(a) < key_text(b) end)
  local k = bad[1]
  local names = {}
  for _, f in ipairs(known) do if type(f) == "string" then names[#names + 1] = f end end
  local hint = ""
  if type(k) == "string" then
    local best, bestd
    for _, f in ipairs(names) do
      local d = distance(k:lower(), f)
      if d <= math.max(1, math.floor(#f / 3)) and (not bestd or d < bestd) then best, bestd = f, d end
    end
    if best then hint = string.format(' (did you mean "%s"?)', best) end
  end
  error(string.format("%s: unknown %s %s%s (known: %s)", fname, what, key_text(k), hint,
    table.concat(names, ", ")), (level or 3) + 1)
end

-- The fields a target table of `fname` may hold; `in_step`: the target of a step{} action.
local function known_fields(fname, in_step)
  local known = { 1 }
  for _, f in ipairs(M.FIELDS) do known[#known + 1] = f end
  if not in_step then
    for _, f in ipairs(M.VERB_OPTIONS[fname] or {}) do known[#known + 1] = f end
  end
  for _, f in ipairs(M.FIELDS_TAIL) do known[#known + 1] = f end
  return known
end

local with_alternatives  -- below: a target table with alt = { ... }

-- A string target's table form: {text=}, {name=} or {image} with the string form's label.
local function string_form(s, label)
  local out
  if s:sub(1, 5) == "text:" then out = { text = s:sub(6) }
  elseif s:sub(1, 5) == "a11y:" then out = { name = s:sub(6) }
  else out = { s } end
  out.label = label or ('"' .. s .. '"')
  return out
end

local function check_timeout(fname, v, level)
  if type(v) ~= "number" or v < 0 then
    error(string.format("%s: timeout must be a number of seconds >= 0, got %s", fname, tostring(v)), level + 1)
  end
end

--- plain(t, fname [, level=3 [, in_step]]) -> a target for the native module (a string, or a
--- table of target fields only), and the table of per-call options found in `t` (or nil):
---   "name" or "path.png"            -> the string (asset name/alias, then image path)
---   "text:Library Reference"        -> the string (a phrase read by OCR)
---   "a11y:OK"                       -> the string (an element of the accessibility tree by name)
---   {role=, name=, resource_id=, press=} -> the table (the accessibility tree; press = true calls
---                                      the element's action instead of clicking its centre)
---   {text=..., threshold=, region=, lang=} -> the table (OCR; fuzzy above threshold 0.8)
---   {image=..., threshold=, region=, offset=} / {"name", ...} -> the table
---   {"text:...", ...} / {"a11y:...", ...} -> as {text=...} / {name=...} (the string form's meaning)
---   {x=, y=}                        -> the table (pixels, or fractions in 0..1)
---   {right_of = T, kind=, nth=}     -> the table, T normalized (also left_of, above, below, near,
---                                      inside): a relative target, resolved natively
---   a Match                         -> its input point {x=cx, y=cy}
---   {T, alt = {A, B, ...}} / {..., alt = {...}} -> the first target's table with alt = the list,
---                                      each normalized: alternatives (docs/targets.md); T is any
---                                      target (a string, or a table as [1]); none a point
--- Raises an error naming what was expected otherwise, or the field a target table does not
--- know. `in_step`: the target of a step{} action (per-call options belong to the step).
function M.plain(t, fname, level, in_step)
  level = level or 3
  local kind = type(t)
  if kind == "table" and t.alt ~= nil and not match.is(t) then return with_alternatives(t, fname, level, in_step) end
  if kind == "string" then
    if t == "" then error(fname .. ": empty target (expected an asset name or image path)", level) end
    return t
  end
  if kind == "table" then
    if match.is(t) then
      return { x = t.cx, y = t.cy, label = string.format("match(%d,%d)", t.cx, t.cy) }
    end
    if t.dynamic then
      error(fname .. ": dynamic (model) targets work with tap, double_tap, long_press, locate, exists, wait " ..
        "and verify, not here", level)
    end
    if in_step then
      for k in pairs(t) do
        if STEP_FIELDS[k] then
          error(string.format("%s: %s is an option of the step, not of its target: step{%s = target, %s = ...}",
            fname, k, fname, k), level)
        end
      end
    end
    M.check_fields(t, fname, known_fields(fname, in_step), "target field", level)
    local out, opts = {}, nil
    local optnames = in_step and {} or (M.VERB_OPTIONS[fname] or {})
    local isopt = {}
    for _, f in ipairs(optnames) do isopt[f] = true end
    for k, v in pairs(t) do
      if isopt[k] then opts = opts or {}; opts[k] = v else out[k] = v end
    end
    local p = out[1]
    if p ~= nil and type(p) ~= "string" then
      error(string.format("%s: a target's first value must be a string (as the target's string form), got %s",
        fname, type(p)), level)
    end
    if type(p) == "string" and (p:sub(1, 5) == "text:" or p:sub(1, 5) == "a11y:") then
      local field = p:sub(1, 5) == "text:" and "text" or "name"
      if out[field] ~= nil then
        error(string.format('%s: a target gives both "%s" and %s = %q: give one', fname, p, field, tostring(out[field])), level)
      end
      if p:sub(6) == "" then
        error(string.format('%s: empty %s target: expected "%s<%s>"', fname, p:sub(1, 4), p,
          field == "text" and "phrase" or "accessible name"), level)
      end
      local s = string_form(p, out.label)
      out[1], out.label = nil, s.label
      out[field] = s[field]
    end
    for _, r in ipairs(M.RELATIONS) do
      if out[r] ~= nil then  -- a relative target: its anchor is a target too (the native side resolves it)
        out[r] = M.plain(out[r], fname .. " " .. r, level + 1, true)
        return out, opts
      end
    end
    if out.image or out.text or type(out[1]) == "string" or (out.x ~= nil and out.y ~= nil) then return out, opts end
    if out.role ~= nil or out.name ~= nil or out.resource_id ~= nil then return out, opts end
  end
  error(string.format("%s: expected a target (asset name, image path, \"text:...\", \"a11y:...\", {image=...}, {text=...}, {role=, name=}, {resource_id=}, {x=, y=} or a Match), got %s",
    fname, kind == "table" and "a table without image, text, role/name/resource_id or x/y" or kind), level)
end

local function is_point(n)
  return type(n) == "table" and n.x ~= nil and n.y ~= nil and n.image == nil and n.text == nil and n[1] == nil
end

-- with_alternatives(t, fname, level, in_step) -> plain()'s results for a target table with
-- `alt`: its first target is t[1] when that is a table (the table's other keys are then the
-- verb's options or label), else the table without `alt`; alt is a non-empty list of
-- targets, none a point or a Match (a point is always found), none with alternatives of its own.
function with_alternatives(t, fname, level, in_step)
  local alt = t.alt
  if type(alt) ~= "table" or #alt == 0 or match.is(alt) then
    error(string.format('%s: alt must be a list of targets, e.g. alt = { "text:OK", "ok.png" }, got %s', fname,
      type(alt) == "table" and "a table that is not a non-empty list" or type(alt)), level)
  end
  local first = {}
  for k, v in pairs(t) do if k ~= "alt" then first[k] = v end end
  if type(first[1]) == "table" and not match.is(first[1]) then
    local inner = first[1]
    if inner.alt ~= nil then error(fname .. ": alt is given twice (inside the first target and beside it): give it once", level) end
    first[1] = nil
    local merged = {}
    for k, v in pairs(inner) do merged[k] = v end
    local allowed = { label = true }
    for _, f in ipairs(in_step and {} or (M.VERB_OPTIONS[fname] or {})) do allowed[f] = true end
    for k, v in pairs(first) do
      if not allowed[k] then
        error(string.format("%s: with the first target given as a table { {...}, alt = ... }, its field %s goes inside that table",
          fname, key_text(k)), level)
      end
      merged[k] = v
    end
    first = merged
  end
  local out, opts = M.plain(first, fname, level + 1, in_step)
  if type(out) == "string" then out = string_form(out) end
  if is_point(out) then
    error(fname .. ": a point {x=, y=} (or a Match) cannot have alternatives (alt =): a point is always found", level)
  end
  local alts = {}
  for i, a in ipairs(alt) do
    if type(a) == "table" and not match.is(a) and a.alt ~= nil then
      error(string.format("%s: alt %d has alternatives of its own: give them all in one alt list", fname, i), level)
    end
    local n = M.plain(a, string.format("%s alt %d", fname, i), level + 1, true)
    if is_point(n) then
      error(string.format("%s: alt %d is a point (or a Match): an alternative must be searched for (a point is always found)",
        fname, i), level)
    end
    alts[i] = n
  end
  out.alt = alts
  return out, opts
end

-- The verb's options: `opts` (not changed) with the per-call options of the target table
-- added; the same option in both with different values is an error, and so is an option the
-- verb does not take in its options argument.
local function merge(fname, opts, inner, level)
  if opts ~= nil and type(opts) ~= "table" then
    error(string.format("%s: expected options as a table {timeout=, window=, ...}, got %s", fname, type(opts)), level + 1)
  end
  local own = M.VERB_OPTIONS[fname]
  if opts ~= nil and own ~= nil then
    -- The verb's own options argument (swipe's and scroll's tables hold other things too).
    local known = {}
    for _, f in ipairs(own) do known[#known + 1] = f end
    for _, f in ipairs({ "window", "raise", "focus" }) do known[#known + 1] = f end
    M.check_fields(opts, fname, known, "option", level + 1)
  end
  local out = {}
  if opts ~= nil then for k, v in pairs(opts) do out[k] = v end end
  if inner ~= nil then
    local keys = {}
    for k in pairs(inner) do keys[#keys + 1] = k end
    table.sort(keys)
    for _, k in ipairs(keys) do
      local v = inner[k]
      if out[k] ~= nil and out[k] ~= v then
        error(string.format("%s: %s is given twice, %s in the target table and %s in the options: give it once",
          fname, k, tostring(v), tostring(out[k])), level + 1)
      end
      out[k] = v
    end
  end
  if out.timeout ~= nil then check_timeout(fname, out.timeout, level + 1) end
  return out
end

--- normalize(t, fname [, opts [, in_step]]) -> the target for the native module, and the verb's
--- options (a new table: `opts` plus the per-call options given in the target table; see plain).
--- With `opts` (or the target table itself) carrying window = (a window or a query as window()
--- takes), raise = true or focus = false, the target is a table with the window's id in
--- `window` and those flags: it is then looked for in that window's own pixels. The target
--- table's window options win over those of `opts` (swipe's apply to both ends unless an end
--- gives its own).
function M.normalize(t, fname, opts, in_step)
  local n, inner = M.plain(t, fname, 4, in_step)
  local vopts = merge(fname, opts, inner, 3)
  local from = (type(t) == "table" and not match.is(t)) and t or {}
  local win, raise, focus = from.window, from.raise, from.focus
  if opts ~= nil then
    if win == nil then win = opts.window end
    if raise == nil then raise = opts.raise end
    if focus == nil then focus = opts.focus end
  end
  if raise ~= nil and type(raise) ~= "boolean" then
    error(string.format("%s: raise must be true or false, got %s", fname, type(raise)), 3)
  end
  if focus ~= nil and type(focus) ~= "boolean" then
    error(string.format("%s: focus must be true or false, got %s", fname, type(focus)), 3)
  end
  if win == nil then
    if raise or focus == false then
      error(fname .. ": raise = true and focus = false need a window (window = w or a query such as \"xcalc\")", 3)
    end
    return n, vopts
  end
  local out = type(n) == "string" and string_form(n) or n
  out.window = type(win) == "number" and win or windows.id_of(win, fname, 4)
  out.raise, out.focus = raise, focus
  return out, vopts
end

return M

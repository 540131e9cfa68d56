-- Windows of the screen (eacu._windows): windows(), window(query), frontmost() and window
-- objects with :focus(), :minimize(), :maximize(), :restore(), :close(), :move(x, y),
-- :resize(w, h), :refresh(). Each operation is a recorded step (action "window").
local native = require("eacu._windows")
local core = require("eacu._native")
local failure = require("eacu.failure")

local M = {}

local Window = {}
Window.__index = Window

function Window.__tostring(w)
  return string.format("Window{0x%x \"%s\" class=%s pid=%d at=(%d,%d) %dx%d%s%s%s}", w.id, w.title, w.class,
    w.pid, w.x, w.y, w.w, w.h, w.focused and " focused" or "", w.minimized and " minimized" or "",
    w.maximized and " maximized" or "")
end

function Window.__eq(a, b) return a.id == b.id end

local function wrap(t)
  if t == nil then return nil end
  return setmetatable(t, Window)
end

-- Copies the state `t` into the window object `w`; returns w.
local function update(w, t)
  for k, v in pairs(t) do w[k] = v end
  return w
end

local function check_self(w, name)
  if getmetatable(w) ~= Window then
    error(string.format("window:%s: expected a window (call it as w:%s()), got %s", name, name, type(w)), 3)
  end
end

local function check_int(fname, what, v)
  if type(v) ~= "number" or v ~= math.floor(v) then
    error(string.format("window:%s: %s must be a whole number of pixels, got %s", fname, what, tostring(v)), 3)
  end
end

--- Brings the window to the front with the keyboard focus (un-minimizing it); returns it.
function Window:focus() check_self(self, "focus"); return update(self, failure.call(2, native.op, "focus", self.id)) end
--- Minimizes the window (needs a window manager); returns it.
function Window:minimize() check_self(self, "minimize"); return update(self, failure.call(2, native.op, "minimize", self.id)) end
--- Maximizes the window both ways (needs a window manager); returns it.
function Window:maximize() check_self(self, "maximize"); return update(self, failure.call(2, native.op, "maximize", self.id)) end
--- Un-minimizes and un-maximizes the window; returns it.
function Window:restore() check_self(self, "restore"); return update(self, failure.call(2, native.op, "restore", self.id)) end
--- Asks the window's program to close it (WM_DELETE_WINDOW, as its title bar's button does)
--- and waits until it is gone. Errors when the window does not take that request.
function Window:close() check_self(self, "close"); failure.call(2, native.op, "close", self.id) end
--- Moves the window's client area (no frame) so its top-left corner is at (x, y), screen pixels.
function Window:move(x, y)
  check_self(self, "move"); check_int("move", "x", x); check_int("move", "y", y)
  return update(self, failure.call(2, native.op, "move", self.id, x, y))
end
--- Resizes the window's client area to w x h pixels.
function Window:resize(w, h)
  check_self(self, "resize"); check_int("resize", "w", w); check_int("resize", "h", h)
  return update(self, failure.call(2, native.op, "resize", self.id, w, h))
end
--- Reads the window's state again; returns it, or nil, "gone" when it no longer exists.
function Window:refresh()
  check_self(self, "refresh")
  local t = failure.call(2, native.info, self.id)
  if t == nil then return nil, "gone" end
  return update(self, t)
end

--- windows() -> array of windows, in stacking order (bottom first, the frontmost last).
function M.windows()
  local list = failure.call(2, native.list)
  for i, t in ipairs(list) do list[i] = wrap(t) end
  return list
end

--- frontmost() -> the focused window, or nil when none has the focus.
function M.frontmost() return wrap(failure.call(2, native.frontmost)) end

local function contains(hay, needle)
  return hay ~= nil and string.find(string.lower(hay), string.lower(needle), 1, true) ~= nil
end

local function equals(a, b) return a ~= nil and string.lower(a) == string.lower(b) end

-- How well `w` matches `q` ({title=, class=, pid=}): 0 not at all, 1 substring, 2 exact.
local function score(w, q)
  if q.pid ~= nil and w.pid ~= q.pid then return 0 end
  local s = 2
  if q.title ~= nil then
    if equals(w.title, q.title) then s = math.min(s, 2)
    elseif contains(w.title, q.title) then s = 1 else return 0 end
  end
  if q.class ~= nil then
    if equals(w.class, q.class) or equals(w.instance, q.class) then s = math.min(s, 2)
    elseif contains(w.class, q.class) or contains(w.instance, q.class) then s = 1 else return 0 end
  end
  return s
end

local find_once  -- one look for a window (below)

local function describe(w) return string.format("\"%s\" (%s)", w.title, w.class) end

--- window(query [, timeout=0]) -> window, or nil, reason. `query` is a string matched against
--- the title and the class (and instance) case-insensitively, whole or as a substring, or a
--- table {title=, class=, pid=} whose given fields must all match. An exact match beats a
--- substring match; among equal matches the frontmost wins (the focused one, else the highest
--- in the stacking order). With `timeout` (seconds) it looks again until a window matches or
--- the time is up.
function M.window(query, timeout)
  local q
  if type(query) == "string" then
    q = nil
  elseif type(query) == "table" then
    q = query
    if q.title == nil and q.class == nil and q.pid == nil then
      error("window: expected a query {title=, class=, pid=} with at least one field, got an empty table", 2)
    end
  else
    error("window: expected a title or class (a string) or {title=, class=, pid=}, got " .. type(query), 2)
  end
  if timeout ~= nil and (type(timeout) ~= "number" or timeout < 0) then
    error("window: timeout must be a number of seconds >= 0, got " .. tostring(timeout), 2)
  end
  local deadline = core.now() + (timeout or 0)
  while true do
    local w, reason = find_once(query, q)
    if w or core.now() >= deadline then return w, reason end
    core.sleep(0.05)
  end
end

-- One look for the window `query` (parsed into `q`, nil for a string); see M.window.
function find_once(query, q)
  local list = M.windows()
  local best, best_score = nil, 0
  for _, w in ipairs(list) do
    local s
    if q then s = score(w, q)
    else s = math.max(score(w, { title = query }), score(w, { class = query })) end
    if s > 0 and (s > best_score or (s == best_score and not best.focused)) then
      best, best_score = w, s
    end
  end
  if best then return best end
  local names = {}
  for _, w in ipairs(list) do names[#names + 1] = describe(w) end
  local shown = type(query) == "string" and string.format("%q", query) or "the query"
  return nil, string.format("no window matches %s (windows: %s)", shown,
    #names > 0 and table.concat(names, ", ") or "none")
end

--- id_of(w, fname) -> the window id of `w`: a window, or a query that window() takes. Raises
--- "<fname>: no window matches ..." when none does, `level` (default 3) up.
function M.id_of(w, fname, level)
  level = level or 3
  if getmetatable(w) == Window then return w.id end
  if type(w) == "string" or type(w) == "table" then
    local found, reason = M.window(w)
    if not found then error(fname .. ": " .. reason, level) end
    return found.id
  end
  error(string.format("%s: window must be a window or a query (a title or class, or {title=, class=, pid=}), got %s",
    fname, type(w)), level)
end

M.Window = Window
return M

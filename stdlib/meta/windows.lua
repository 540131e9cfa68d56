---@meta _
-- Windows of the screen (stdlib/eacu/windows.lua; also `eacu.windows`), in LuaCATS
-- annotations for lua-language-server. Editor stubs only: never loaded by eacu.
-- Each operation waits (up to 5 s) until the window reports the new state, is recorded as a
-- step (action "window") and raises a failure (code "device") saying what was expected and
-- what came when it does not.

---A top-level window. Coordinates are physical screen pixels of its client area (no frame).
---@class Window
---@field id integer the platform's window id (X11: the client window)
---@field pid integer the owning process (0 when unknown)
---@field title string
---@field class string the class (X11 WM_CLASS class, "XCalc")
---@field instance string the instance (X11 WM_CLASS instance, "xcalc")
---@field x integer
---@field y integer
---@field w integer
---@field h integer
---@field focused boolean it is the frontmost window
---@field minimized boolean
---@field maximized boolean
---@field desktop integer its virtual desktop, -1 on all or unknown
local Window = {}

---Brings the window to the front with the keyboard focus (un-minimizing it).
---@return Window self
function Window:focus() end
---Minimizes the window (needs a window manager: `--wm openbox`).
---@return Window self
function Window:minimize() end
---Maximizes the window both ways (needs a window manager).
---@return Window self
function Window:maximize() end
---Un-minimizes and un-maximizes the window.
---@return Window self
function Window:restore() end
---Asks the program to close the window (WM_DELETE_WINDOW) and waits until it is gone; an
---error when the window does not take that request (eacu never kills its program).
function Window:close() end
---Moves the client area's top-left corner to (x, y), screen pixels.
---@param x integer
---@param y integer
---@return Window self
function Window:move(x, y) end
---Resizes the client area to w x h pixels.
---@param w integer
---@param h integer
---@return Window self
function Window:resize(w, h) end
---Reads the window's state again.
---@return Window|nil self
---@return string|nil reason "gone" when it no longer exists
function Window:refresh() end

---The screen's windows in stacking order, bottom first (the frontmost last). An error on a
---device without windows (an image).
---@return Window[]
function windows() end

---A window query: the given fields must all match (title and class: case-insensitive,
---whole or substring; pid: exact).
---@class WindowQuery
---@field title? string
---@field class? string
---@field pid? integer

---The window whose title or class matches `query` (case-insensitive, whole or substring),
---looked for until `timeout` seconds pass.
---An exact match beats a substring; among equal matches the frontmost wins.
---@param query string|WindowQuery
---@param timeout? number seconds to keep looking (default 0: one look)
---@return Window|nil window
---@return string|nil reason "no window matches ... (windows: ...)"
function window(query, timeout) end

---The window with the focus, or nil.
---@return Window|nil
function frontmost() end

eacu.windows = windows
eacu.window = window
eacu.frontmost = frontmost

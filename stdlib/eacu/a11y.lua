-- The accessibility tree (eacu._a11y): a11y([window]) reads it; set_text{...} sets an
-- editable element's text through it. Targets {role=, name=} and "a11y:NAME" are found in it
-- by every verb (tap, wait, exists, verify, locate; eacu.target).
local native = require("eacu._a11y")
local failure = require("eacu.failure")
local match = require("eacu.match")
local windows = require("eacu.windows")
local target = require("eacu.target")

local M = {}

--- a11y([window]) -> the accessibility tree now: {role, name, description, value (what a field
--- holds, where the device's tree gives it: the Windows agent, browser pages), states, bounds =
--- {x, y, w, h} (screen pixels), actions, editable, path, children}. The root ("desktop frame")
--- has one child per program that exports a tree (role "application", with pid and app); with
--- `window` (a window, or a query as window() takes) only that window's program. Elements that
--- are not showing are listed without their children.
function M.a11y(window)
  local id
  if window ~= nil then id = windows.id_of(window, "a11y") end
  return failure.call(2, native.snapshot, id)
end

--- set_text{name = "Name", text = "张三" [, role =, resource_id =, timeout =]} -> Match: sets the
--- whole text of the editable element with that accessible name (or beside the label of that
--- name) or that resource_id (Android) through the accessibility tree (AT-SPI EditableText; no
--- keys are typed; on Android the field is tapped, emptied and typed into). A recorded step.
function M.set_text(opts)
  if type(opts) ~= "table" then error("set_text: expected {name=, text=} (role= optional), got " .. type(opts), 2) end
  target.check_fields(opts, "set_text", { "name", "text", "role", "resource_id", "timeout", "label" }, "field", 2)
  if type(opts.text) ~= "string" and type(opts.text) ~= "number" then
    error("set_text: expected text= (a string), got " .. type(opts.text), 2)
  end
  if opts.name == nil and opts.role == nil and opts.resource_id == nil then
    error("set_text: expected name= (the element's accessible name or its label), role= or resource_id=, got none", 2)
  end
  if opts.timeout ~= nil and (type(opts.timeout) ~= "number" or opts.timeout < 0) then
    error("set_text: timeout must be a number of seconds >= 0, got " .. tostring(opts.timeout), 2)
  end
  local t = { name = opts.name, role = opts.role, resource_id = opts.resource_id, label = opts.label }
  return match.wrap(failure.call(2, native.set_text, t, tostring(opts.text), opts.timeout or -1))
end

return M

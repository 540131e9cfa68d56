---@meta _
-- The accessibility tree (stdlib/eacu/a11y.lua; also `eacu.a11y`, `eacu.set_text`), in
-- LuaCATS annotations for lua-language-server. Editor stubs only: never loaded by eacu.
-- The tree is what programs export for screen readers (AT-SPI2 on X11: GTK2 with
-- GTK_MODULES=gail:atk-bridge, GTK3, Qt, Firefox, ...); `--display virtual` starts the buses
-- programs need to export it. Programs without a tree (xcalc) are found by image or text.

---One element of the accessibility tree.
---@class A11yElement
---@field role string the AT-SPI role name: "push button", "text", "check box", "menu item", "frame", "application", ...
---@field name string the accessible name (often the label shown)
---@field description string
---@field value? string what a field holds, where the device's tree gives it (the Windows agent's UIA or MSAA value, a web page's AX value)
---@field resource_id? string the toolkit's id when it has one (Android's resource-id)
---@field states string[] "enabled", "sensitive", "showing", "visible", "focusable", "focused", "editable", "checked", ...
---@field bounds {x: integer, y: integer, w: integer, h: integer} on the screen, physical pixels (all 0 when not on screen)
---@field actions string[] what it can do: "click", "press", "activate", "toggle", ...
---@field editable boolean its text can be set (set_text)
---@field path integer[] where it is in the tree (the application's index, then the child index at each level)
---@field pid? integer the program's process (applications only)
---@field app? string the program's name (applications only)
---@field children A11yElement[] its children (none listed for an element that is not showing)

---An element of the accessibility tree as a target: by role, accessible name, or both
---(`"a11y:OK"` is `{name = "OK"}`). Tapped at the centre of its bounds; with `press = true` its
---default action (click, press, activate, toggle, jump) is called instead, or the action named.
---@class A11yTarget: CallOptions
---@field role? string e.g. "push button" (case-insensitive)
---@field name? string the accessible name; matched exactly, then ignoring case, "_" and a trailing ":"
---@field resource_id? string Android's resource-id, whole ("com.example:id/send") or after ":id/" ("send")
---@field value? string only an element holding this value (what a field holds, where the tree gives it); with role, name or resource_id
---@field press? boolean|string call the element's action instead of clicking
---@field offset? integer[]|{x: integer, y: integer} the input point relative to the bounds' centre
---@field label? string how errors and the run log name the target

---The accessibility tree now: a root ("desktop frame") with one child per program that exports
---one (role "application", with `pid` and `app`); with `window`, that window's program only.
---An error on a device without a tree (an image) or without an accessibility bus.
---@param window? Window|string|WindowQuery
---@return A11yElement
function a11y(window) end

---@class SetTextOptions
---@field name? string the element's accessible name, or the label beside it
---@field role? string its role ("text", "password text", ...)
---@field text string the text it gets (replacing what it had)
---@field timeout? number seconds to look for it (default 5)
---@field label? string how errors and the run log name the target

---Sets the whole text of an editable element through the accessibility tree (AT-SPI
---EditableText; no keys are typed), e.g. `set_text{name = "Name", text = "张三"}`. A recorded
---step (action "set_text", method "a11y"); a failure "not_found" lists the names nearby.
---@param opts SetTextOptions
---@return Match
function set_text(opts) end

eacu.a11y = a11y
eacu.set_text = set_text

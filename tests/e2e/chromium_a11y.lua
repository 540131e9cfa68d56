-- The chromium device's accessibility tree (CDP Accessibility.getFullAXTree): a form page's
-- fields and buttons found by role and accessible name, no pixels matched. arg[1]: the page.
-- The page writes its own state into its URL's fragment (percent-encoded "k=v;k=v"), read back
-- here after each action.
local function state()
  local frag = current_url():match("#(.*)$") or ""
  return (frag:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

open_url("file://" .. arg[1])
-- The field named by its <label for>: a tap at its centre, then typing.
tap { role = "text", name = "Full name" }
input "张三"
-- The whole text of another field replaced through the tree (its label names it too).
set_text { name = "City", text = "Beijing" }
tap { role = "push button", name = "Save" }
print("after save: " .. state())
-- A button below the fold: its own action (scrolled into view, then clicked).
tap { role = "push button", name = "Far away", press = true }
print("after far: " .. state())
-- The tree itself: the page's document under the application.
local root = a11y()
local doc = root.children[1].children[1]
print("tree: " .. root.role .. " > " .. root.children[1].role .. " > " .. doc.role .. " \"" .. doc.name .. "\"")

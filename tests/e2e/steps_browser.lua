-- The browser task (issue 4): python3-doc in a real Chromium, searched with the page's own
-- Quick search box, the result opened, its heading verified by image; then a step whose target
-- is below the fold until its fallback (a scroll) runs. No fixed sleeps.
local browser = require "browser"
browser.open()
browser.search_module("json")
step { tap = "browser.pydoc_json_decoding", timeout = 0.5, fallback = { scroll = { dy = 5, at = { x = 700, y = 400 } } },
       name = "find 'Decoding JSON' below the fold" }
print("heading verified")

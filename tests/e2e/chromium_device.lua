-- The chromium device (issue 13 part 4): one script, several parts chosen by arg[1]. Run with
-- --device chromium or --device cdp:http://HOST:PORT and no X display.
--   search [MODULE]   the python3-doc search through the page's own box, by text (scripts/browser)
--   page MODULE       a module's page of python3-doc opened with open_url, its heading verified
--   blocked           open_url of a blocked domain (EACU_BLOCK_DOMAINS)
--   link PAGE         a page whose link leads to a blocked domain: the tap on it is refused
--   gone              Chromium killed under the run: the next step's error names it
--   chinese PAGE      Chinese typed into an <input> (Input.insertText), read back from the URL;
--                     then keys (ctrl+a, BackSpace, shift+c) and the wheel
local browser = require "browser"
local part = arg[1]

if part == "search" then
  local module = arg[2] or "json"
  browser.open()
  browser.search_module(module)
  print("url " .. current_url())
  print("heading verified: " .. module)
elseif part == "page" then
  local module = arg[2]
  open_url("file:///usr/share/doc/python3-doc/html/library/" .. module .. ".html")
  verify({ text = module .. " — " .. browser.summaries[module] }, 15)
  print("url " .. current_url())
  print("heading verified: " .. module)
elseif part == "blocked" then
  local ok, err = pcall(open_url, "http://example.com/")
  print("refused: " .. tostring(not ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err))
  error(err)
elseif part == "link" then
  open_url("file://" .. arg[2])
  tap("text:Visit the example site")
  -- The refusal fails the tap's step or the next one.
  wait("text:Visit the example site", 5)
  print("not refused")
elseif part == "chinese" then
  open_url("file://" .. arg[2])
  tap("text:Type here")
  local text = "张三说：你好，世界"
  input(text)
  -- The page mirrors the input's value into its URL's fragment (percent-encoded UTF-8).
  local url = current_url()
  local frag = url:match("#(.*)$") or ""
  local value = frag:gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end)
  print("typed value: " .. value)
  assert(value == text, "expected the input to hold " .. text .. ", got " .. value)
  -- Keys as DOM key events: select all, delete, a shifted letter.
  key("ctrl+a")
  key("BackSpace")
  input("Ab")
  key("shift+c")
  local after = current_url():match("#(.*)$")
  print("after the keys: " .. tostring(after))
  assert(after == "AbC", "expected AbC after ctrl+a, BackSpace, Ab, shift+c, got " .. tostring(after))
  -- The wheel: the line at the bottom of a tall page comes into view.
  scroll(30)
  wait("text:Bottom line here", 5)
  print("scrolled to the bottom")
elseif part == "gone" then
  -- Chromium killed under the run: the next step fails with code "device" naming it.
  local pid = eacu.run_info().device:match("pid (%d+)")
  os.execute("kill -9 " .. pid)
  local ok, err = pcall(screenshot, os.getenv("TMPDIR") .. "/gone.png")
  print("after the kill: " .. tostring(ok) .. " code " .. tostring(err and err.code) .. " " .. tostring(err))
else
  error("chromium_device.lua: expected search, page, blocked, link, chinese or gone, got " .. tostring(part))
end

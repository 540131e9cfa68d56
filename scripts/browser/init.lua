-- A web browser (Chromium) driven through the screen, on the Python documentation shipped by
-- Debian's python3-doc. Its controls are found by their text (OCR), so the same calls work on
-- the X11 Chromium this module launches and on the chromium device (--device chromium or
-- cdp:URL, any viewport size and device scale). The images (images/index.json, cut from
-- Chromium 1280x800 under Xvfb) stay as assets for scripts that want them. Nothing here
-- sleeps: every action waits for the screen to change and settle, and waits are on conditions.
local M = {
  name = "browser",
  keywords = { "browser", "chromium", "chrome", "web", "浏览器", "python docs", "python documentation", "文档" },
  window_class = "chromium",
  docs = "file:///usr/share/doc/python3-doc/html/index.html",
}

--- The Quick search box of a python3-doc page: its grey placeholder text.
M.quick_search = { text = "Quick search" }

--- True when the run's device is a browser page (the chromium device) rather than a screen.
function M.on_page()
  local d = eacu.run_info().device or ""
  return d:match("^chromium") ~= nil or d:match("^cdp ") ~= nil
end

--- Opens `url` (default: the python3-doc index page) and waits up to `timeout` seconds
--- (default 30) for its Quick search box. On the chromium device it is open_url in the device's
--- page (nothing is started: the result is nil); on a screen it starts Chromium (a fresh
--- profile, app mode, no infobars) and returns its process. The URL is checked first
--- (check_url: EACU_ALLOW_DOMAINS / EACU_BLOCK_DOMAINS; refused: an error with code "refused",
--- nothing started).
function M.open(url, timeout)
  url = url or M.docs
  check_url(url)
  if M.on_page() then
    open_url(url, timeout or 30)
    wait(M.quick_search, timeout or 30)
    return nil
  end
  local cmd = "d=$(mktemp -d /tmp/eacu-chromium.XXXXXX) && exec chromium --no-sandbox --test-type " ..
    "--disable-gpu --disable-quic --no-first-run --disable-background-networking " ..
    "--disable-component-update --disable-sync --disable-features=Translate " ..
    "--user-data-dir=\"$d\" --window-position=0,0 --window-size=1280,800 --app=\"$1\""
  -- The URL goes in as $1, never into the shell's text.
  local proc = launch { "/bin/sh", "-c", cmd, "eacu-chromium", url }
  wait(M.quick_search, timeout or 30)
  return proc
end

--- The search result line and the page heading of a module whose page title is
--- "MODULE — SUMMARY" (python3-doc's library pages); `summary` is known for a few modules and
--- else read from the result list.
M.summaries = { json = "JSON encoder and decoder", csv = "CSV File Reading and Writing",
                re = "Regular expression operations", os = "Miscellaneous operating system interfaces" }

--- The heading of python3-doc's search page once its search has finished (Sphinx shows
--- "Searching" while it adds results one by one, moving the lines below them).
M.search_results = { text = "Search Results" }

--- Searches the docs with the page's own Quick search box and opens the result for `module`,
--- then verifies the module page's heading ("json — JSON encoder and decoder"), all by text.
--- The result is tapped once the search has finished (`timeout`, default 30 s): before, the
--- lines still move. The module page is told from the search page, whose result line reads
--- the same as the heading, by the search page's own heading being gone.
function M.search_module(module, summary, timeout)
  summary = summary or M.summaries[module]
  if not summary then
    error("browser.search_module: no summary known for \"" .. tostring(module) .. "\" (pass it: search_module(\"" ..
      tostring(module) .. "\", \"its page title after the dash\"))", 2)
  end
  step { tap = M.quick_search, name = "focus the Quick search box" }
  input(module .. "\n")
  wait(M.search_results, timeout or 30)
  local heading = { text = module .. " — " .. summary }
  step { tap = { text = summary }, timeout = 15, name = "open the result for " .. module,
         verify = function()
           if exists(M.search_results) then return false end
           verify(heading)
           return true
         end }
end

M.templates = {
  open_docs = {
    patterns = { "open the python docs", "打开python文档" },
    run = function() return M.open() end,
  },
  search_docs = {
    patterns = { "search the python docs for {module}", "在python文档中搜索{module}" },
    params = { "module" },
    run = function(p)
      M.open()
      M.search_module(p.module)
    end,
  },
}

return M

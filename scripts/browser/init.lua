-- A web browser (Chromium) driven through the screen, on the Python documentation shipped by
-- Debian's python3-doc. Images were cut from real screenshots of Chromium 1280x800 under Xvfb
-- (images/index.json). Nothing here sleeps: every action waits for the screen to change and
-- settle, and waits are on conditions.
local M = {
  name = "browser",
  keywords = { "browser", "chromium", "chrome", "web", "浏览器", "python docs", "python documentation", "文档" },
  window_class = "chromium",
  docs = "file:///usr/share/doc/python3-doc/html/index.html",
}

--- Starts Chromium (a fresh profile, app mode, no infobars) on `url` (default: the python3-doc
--- index page) and waits up to `timeout` seconds (default 30) for its Quick search box. The URL
--- is checked first (check_url: EACU_ALLOW_DOMAINS / EACU_BLOCK_DOMAINS; refused: an error
--- with code "refused", nothing started).
function M.open(url, timeout)
  url = url or M.docs
  check_url(url)
  local cmd = "d=$(mktemp -d /tmp/eacu-chromium.XXXXXX) && exec chromium --no-sandbox --test-type " ..
    "--disable-gpu --disable-quic --no-first-run --disable-background-networking " ..
    "--disable-component-update --disable-sync --disable-features=Translate " ..
    "--user-data-dir=\"$d\" --window-position=0,0 --window-size=1280,800 --app=\"$1\""
  -- The URL goes in as $1, never into the shell's text.
  local proc = launch { "/bin/sh", "-c", cmd, "eacu-chromium", url }
  wait("browser.pydoc_quick_search", timeout or 30)
  return proc
end

--- Searches the docs with the page's own Quick search box and opens the result for
--- `module` (images exist for "json"), then verifies the module page's heading.
function M.search_module(module)
  step { tap = "browser.pydoc_quick_search", name = "focus the Quick search box" }
  input(module .. "\n")
  step { tap = "browser.pydoc_result_" .. module, timeout = 15, name = "open the result for " .. module,
         verify = "browser.pydoc_heading_" .. module }
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

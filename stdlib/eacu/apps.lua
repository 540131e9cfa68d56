-- App modules and task templates (seed 002's module routing). An app module is
-- scripts/<app>/init.lua returning a table:
--   name, keywords = {...}, package = "com.tencent.mm" or window_class = "XCalc",
--   templates = {
--     send_message = { patterns = { "给{contact}发消息说{text}" }, params = { "contact", "text" },
--                      risky = true, run = function(p) ... end },
--     go_home = function(p) ... end,            -- a template without a pattern
--   }
-- route(task) picks the module (pattern 0.5, keyword 0.4, package 0.1) and the template;
-- run_template("app.template", params) runs one; run_task(task) does both.
local steps = require("eacu._steps")

local M = {}

-- The folders package.path searches for "<name>/init.lua" (the scripts folders).
local function module_roots()
  local roots, seen = {}, {}
  for entry in package.path:gmatch("[^;]+") do
    local dir = entry:match("^(.*)/%?/init%.lua$")
    if dir and not seen[dir] then
      seen[dir] = true
      roots[#roots + 1] = dir
    end
  end
  return roots
end

local function template_list(mod)
  local out = {}
  local names = {}
  for name in pairs(mod.templates or {}) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local t = mod.templates[name]
    local patterns = {}
    if type(t) == "table" then
      if type(t.pattern) == "string" then patterns[#patterns + 1] = t.pattern end
      for _, p in ipairs(t.patterns or {}) do patterns[#patterns + 1] = p end
    end
    out[#out + 1] = { name = name, patterns = patterns, risky = type(t) == "table" and t.risky == true }
  end
  return out
end

--- modules() -> {name -> module table}, errors: every app module found on package.path that
--- declares templates or keywords (a module that fails to load is listed in `errors`).
function M.modules()
  local mods, errors = {}, {}
  for _, root in ipairs(module_roots()) do
    for _, name in ipairs(steps.list_dirs(root)) do
      if mods[name] == nil and errors[name] == nil then
        local ok, mod = pcall(require, name)
        if not ok then
          errors[name] = tostring(mod)
        elseif type(mod) == "table" and (mod.templates or mod.keywords) then
          mods[name] = mod
        end
      end
    end
  end
  return mods, errors
end

--- route(task) -> {module, template, params, score, pattern, keywords, scores}: the best
--- module for the sentence; module is "" when none scored. A template with an `accepts`
--- function takes the sentence only when accepts(params) is true; otherwise the sentence is
--- routed again without that template (its patterns do not match, its module may still score
--- by keywords).
function M.route(task)
  if type(task) ~= "string" or task == "" then error("route: expected a task sentence, got " .. type(task), 2) end
  local mods = M.modules()
  local infos = {}
  local names = {}
  for name in pairs(mods) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local m = mods[name]
    infos[#infos + 1] = { name = name, keywords = m.keywords or {}, package = m.package or m.window_class or "",
      templates = template_list(m) }
  end
  for _ = 1, 100 do
    local r = steps.route(task, infos)
    if r.module == "" or r.template == "" then return r end
    local t = mods[r.module].templates[r.template]
    if type(t) ~= "table" or type(t.accepts) ~= "function" or t.accepts(r.params) then return r end
    -- This template does not take the sentence: route again without its patterns.
    for _, info in ipairs(infos) do
      if info.name == r.module then
        for _, tl in ipairs(info.templates) do
          if tl.name == r.template then tl.patterns = {} end
        end
      end
    end
  end
  error("route: the templates' accepts functions kept refusing \"" .. task .. "\"", 2)
end

local function find_template(qualified)
  local app, tname = qualified:match("^([^%.]+)%.(.+)$")
  if not app then error("run_template: expected \"app.template\", got \"" .. qualified .. "\"", 3) end
  local ok, mod = pcall(require, app)
  if not ok then error("run_template: cannot load the app module \"" .. app .. "\": " .. tostring(mod), 3) end
  local t = type(mod) == "table" and mod.templates and mod.templates[tname]
  if not t then
    local have = {}
    for n in pairs(type(mod) == "table" and mod.templates or {}) do have[#have + 1] = n end
    table.sort(have)
    error(string.format("run_template: the module \"%s\" has no template \"%s\" (it has: %s)", app, tname,
      #have > 0 and table.concat(have, ", ") or "none"), 3)
  end
  return mod, t
end

--- template(qualified) -> the template table (with run, params, risky) of "app.template".
function M.template(qualified) local _, t = find_template(qualified); return t end

--- run_template("app.template", params) -> what the template returns. Checks the declared
--- params are given; a risky template (risky = true, or one of its risky_words in the
--- params) asks for confirmation first and fails closed without a terminal.
function M.run_template(qualified, params)
  params = params or {}
  local mod, t = find_template(qualified)
  local fn = type(t) == "function" and t or t.run
  if type(fn) ~= "function" then error("run_template: \"" .. qualified .. "\" has no run function", 2) end
  if type(t) == "table" then
    for _, p in ipairs(t.params or {}) do
      if params[p] == nil or params[p] == "" then
        error(string.format("run_template %s: expected the parameter \"%s\", got none", qualified, p), 2)
      end
    end
    local risky = t.risky == true
    if not risky and t.risky_words then
      local text = {}
      for _, v in pairs(params) do text[#text + 1] = tostring(v) end
      risky = steps.looks_risky(table.concat(text, " "), t.risky_words)
    end
    if risky then
      local ok, why = steps.confirm(qualified .. " " .. require("eacu.step").json(params))
      if not ok then error("run_template " .. qualified .. ": refused: " .. why, 2) end
    end
  end
  return fn(params, mod)
end

--- run_task(task [, {dry_run=true}]) -> the route, and what the template returned. With
--- dry_run the route is returned without running anything. Error when no module has a
--- template for the sentence.
function M.run_task(task, opts)
  opts = opts or {}
  local r = M.route(task)
  if r.module == "" or r.template == "" then
    local lines = {}
    for _, s in ipairs(r.scores) do lines[#lines + 1] = string.format("%s %.1f", s.module, s.score) end
    error("run_task: no app module has a template for \"" .. task .. "\" (scores: " ..
      (#lines > 0 and table.concat(lines, ", ") or "no modules") .. ")", 2)
  end
  if opts.dry_run then return r end
  return r, M.run_template(r.module .. "." .. r.template, r.params)
end

return M

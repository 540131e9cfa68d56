-- The editor stubs (stdlib/meta/*.lua, LuaCATS annotations for lua-language-server) against
-- the live API, run by `eacu run` on a static xcalc screenshot. Fails, naming each one, when a
-- public function, method or result field has no stub, and when a stub names something that
-- does not exist (stale). The live API is enumerated at run time: the globals the stdlib
-- defines beyond Lua's own, the `eacu` table, the user-facing eacu.* modules, the methods of
-- Match and Process, and the fields of the tables the API returns.
local spec = require "spec"
local check = spec.check

-- The globals as a script sees them, before this spec makes anything.
local live_globals = {}
for k, v in pairs(_G) do live_globals[k] = v end

-- LuaJIT's own globals (luaL_openlibs), which are not eacu's to document.
local lua_std = {}
for name in ([[_G _VERSION assert bit collectgarbage coroutine debug dofile error gcinfo getfenv
  getmetatable io ipairs jit load loadfile loadstring math module newproxy next os package pairs
  pcall print rawequal rawget rawlen rawset require select setfenv setmetatable string table
  tonumber tostring type unpack xpcall]]):gmatch("%S+") do
  lua_std[name] = true
end

-- eacu.* modules users require, whose functions need stubs (in the file `---@meta <module>`).
local stubbed_modules = { "eacu.model", "eacu.apps", "eacu.pretty", "eacu.match", "eacu.failure" }
-- eacu.* modules scripts do not use directly: each function must be reachable (the same
-- function) from a stubbed global or eacu member, or be listed here as internal.
local internal_modules = {
  ["eacu.step"] = { json = "run-log JSON for the step rows", has_apps = "launch(cmd): whether cmd is an app's package" },  -- its API is the globals step, on_blocker, ...
  ["eacu.target"] = { normalize = "target normalization for the native module", plain = "normalize without window options",
    check_fields = "the unknown-field error of target tables and set_text" },
  ["eacu.repl"] = { complete = "REPL completion", show = "REPL result printing (eacu.pretty.print)",
    record = "the REPL's global record() (eacu repl only; stub in stdlib/meta/repl.lua)",
    stop = "the REPL's global stop() (eacu repl only; stub in stdlib/meta/repl.lua)" },
  ["eacu.highlight"] = {},  -- the module is the highlight function itself
  ["eacu.batch"] = {},  -- its API is the global batch
  ["eacu.windows"] = { id_of = "a window argument (Window, query or id) to its id, for the verbs' window=" },
  ["eacu.a11y"] = {},  -- its API is the globals a11y and set_text
  ["eacu.remote"] = {},  -- its API is the globals clipboard and remote_launch
}

------------------------------------------------------------------------------------------------
-- Read the stubs.
------------------------------------------------------------------------------------------------
local root = arg[0]:match("^(.*)/tests/lua/[^/]+$") or os.getenv("EACU_HOME") or "."
local meta_dir = root .. "/stdlib/meta"

local files = {}
local ls = io.popen('ls "' .. meta_dir .. '" 2>/dev/null')
for name in ls:lines() do
  if name:match("%.lua$") then files[#files + 1] = name end
end
ls:close()
table.sort(files)
check(#files > 0, "no stub files (*.lua) in " .. meta_dir)

local stubs = {
  globals = {},  -- name -> where
  members = {},  -- owner ("eacu", "eacu.model", ...) -> name -> where
  methods = {},  -- class -> name -> where
  fields = {},   -- class -> name -> { optional = bool, where = ... }
}
local function put(map, key, name, value)
  map[key] = map[key] or {}
  map[key][name] = value
end

for _, name in ipairs(files) do
  local path = meta_dir .. "/" .. name
  local f = assert(io.open(path, "rb"))
  local text = f:read("*a")
  f:close()
  check(text:sub(1, 8) == "---@meta", name .. ": a stub file starts with ---@meta")
  local chunk, err = loadstring(text, "@" .. path)
  check(chunk ~= nil, name .. ": not valid Lua: " .. tostring(err))
  local module = text:match("^%-%-%-@meta ([%w_.]+)")
  if module == "_" then module = nil end
  local class
  local n = 0
  for line in (text .. "\n"):gmatch("([^\n]*)\n") do
    n = n + 1
    local where = name .. ":" .. n
    local c = line:match("^%-%-%-@class ([%a_][%w_.]*)")
    if c then
      class = c
      stubs.fields[c] = stubs.fields[c] or {}
    elseif class and line:match("^%-%-%-@field ") then
      local field, opt = line:match("^%-%-%-@field ([%a_][%w_]*)(%??)")
      if field then stubs.fields[class][field] = { optional = opt == "?", where = where } end
    elseif not line:match("^%-%-%-") then
      class = nil
    end
    local owner, sep, fname = line:match("^function ([%a_][%w_.]*)([.:])([%a_][%w_]*)%s*%(")
    if owner then
      if sep == ":" then
        put(stubs.methods, owner, fname, where)
      else
        put(stubs.members, owner == "M" and module or owner, fname, where)
      end
    else
      local g = line:match("^function ([%a_][%w_]*)%s*%(")
      if g then
        stubs.globals[g] = where
      else
        local o, m = line:match("^([%a_][%w_.]*)%.([%a_][%w_]*)%s*=[^=]")
        if o then
          put(stubs.members, o == "M" and module or o, m, where)
        else
          g = line:match("^([%a_][%w_]*)%s*=[^=]")
          if g then stubs.globals[g] = where end
        end
      end
    end
  end
end

------------------------------------------------------------------------------------------------
-- Compare with the live API.
------------------------------------------------------------------------------------------------
local missing, stale = {}, {}

local function sorted(t)
  local out = {}
  for k in pairs(t) do out[#out + 1] = k end
  table.sort(out, function(a, b) return tostring(a) < tostring(b) end)
  return out
end

-- Every live function (or value) must have a stub, and every stub a live counterpart.
local function compare(what, live, declared, only_functions, place)
  declared, place = declared or {}, place or "stdlib/meta"
  for _, k in ipairs(sorted(live)) do
    local v = live[k]
    if type(k) == "string" and (not only_functions or type(v) == "function") and not declared[k] then
      missing[#missing + 1] = string.format("%s%s (a %s): not declared in %s", what, k, type(v), place)
    end
  end
  for _, k in ipairs(sorted(declared)) do
    if live[k] == nil then
      stale[#stale + 1] = string.format("%s%s (declared at %s): no such thing in the live API", what, k, declared[k])
    end
  end
end

-- Globals the stdlib defines beyond Lua's own.
local eacu_globals = {}
for k, v in pairs(live_globals) do
  if not lua_std[k] then eacu_globals[k] = v end
end
check(eacu_globals.tap ~= nil and eacu_globals.eacu ~= nil, "the DSL's globals are installed")
compare("global ", eacu_globals, stubs.globals, false)

-- .luarc.json declares the same globals (diagnostics.globals) for lua-language-server.
local luarc = io.open(root .. "/.luarc.json", "rb")
check(luarc ~= nil, ".luarc.json at the repository root")
if luarc then
  local list = luarc:read("*a"):match('"globals"%s*:%s*%[(.-)%]')
  luarc:close()
  check(list ~= nil, ".luarc.json has diagnostics.globals")
  local declared = {}
  for g in (list or ""):gmatch('"([^"]+)"') do declared[g] = ".luarc.json" end
  compare("global ", eacu_globals, declared, false, ".luarc.json diagnostics.globals")
end

-- The eacu table: every member, functions and module tables alike.
compare("eacu.", eacu, stubs.members.eacu, false)

-- The user-facing modules.
for _, mod in ipairs(stubbed_modules) do
  local ok, m = pcall(require, mod)
  check(ok and type(m) == "table", "module " .. mod .. " loads: " .. tostring(m))
  if ok and type(m) == "table" then
    check(stubs.members[mod] ~= nil, "a stub file declares ---@meta " .. mod)
    compare(mod .. ".", m, stubs.members[mod], true)
  end
end
check(eacu.model == require "eacu.model", "eacu.model is the eacu.model module")
check(eacu.apps == require "eacu.apps", "eacu.apps is the eacu.apps module")

-- Every public eacu.* module is stubbed or listed internal, and the lists are not stale.
local reachable = {}
for k, v in pairs(eacu_globals) do if stubs.globals[k] then reachable[v] = true end end
for k, v in pairs(eacu) do if (stubs.members.eacu or {})[k] then reachable[v] = true end end
local known = {}
for _, mod in ipairs(stubbed_modules) do known[mod] = true end
for mod, private in pairs(internal_modules) do
  known[mod] = true
  local ok, m = pcall(require, mod)
  check(ok, "internal module " .. mod .. " listed in stubs_spec.lua loads: " .. tostring(m))
  if ok and type(m) == "table" then
    for _, k in ipairs(sorted(m)) do
      if type(m[k]) == "function" and not reachable[m[k]] and not private[k] then
        missing[#missing + 1] = string.format("%s.%s (a function of an internal module): not declared in " ..
          "stdlib/meta as a global or eacu member, nor listed as internal in stubs_spec.lua", mod, k)
      end
    end
    for k in pairs(private) do
      check(type(m[k]) == "function", "stubs_spec.lua lists " .. mod .. "." .. k .. " as internal, but it is gone")
    end
  elseif ok then
    check(reachable[m] == true, mod .. " (a function module) is reachable as a stubbed global")
  end
end
for name in pairs(package.preload) do
  if name:match("^eacu%.[%a][%w_]*$") and not known[name] then
    missing[#missing + 1] = "module " .. name .. ": no stub file (---@meta " .. name ..
      ") listed in stubs_spec.lua, nor listed as internal"
  end
  check(not name:match("^meta"), "stdlib/meta is not embedded as a module, got " .. name)
end
for mod in pairs(known) do
  check(package.preload[mod] ~= nil, "stubs_spec.lua lists module " .. mod .. ", which the stdlib no longer has")
end

-- Methods of Match (from a real match) and Process (its metatable, registered by the native
-- module as "eacu.Process").
local function methods_of(index)
  local out = {}
  for k, v in pairs(index or {}) do
    if type(v) == "function" and not k:match("^__") then out[k] = v end
  end
  return out
end
local m = locate "1"
check(m ~= nil and m.found, "locate \"1\" on the xcalc screenshot")
compare("Match:", methods_of(getmetatable(m).__index), stubs.methods.Match, true)
local process_mt = debug.getregistry()["eacu.Process"]
check(type(process_mt) == "table", "the native module registers the eacu.Process metatable")
compare("Process:", methods_of(process_mt and process_mt.__index), stubs.methods.Process, true)

-- Fields of the tables the API returns: every live field is declared (---@field) in its class,
-- and every field declared without `?` is there.
local function fields_of(class, t)
  local declared = stubs.fields[class]
  if not declared then
    missing[#missing + 1] = "class " .. class .. ": no ---@class " .. class .. " in stdlib/meta"
    return
  end
  for _, k in ipairs(sorted(t)) do
    if type(k) == "string" and not declared[k] then
      missing[#missing + 1] = string.format("field %s.%s (a %s): no ---@field in stdlib/meta", class, k, type(t[k]))
    end
  end
  for _, k in ipairs(sorted(declared)) do
    if not declared[k].optional and t[k] == nil then
      stale[#stale + 1] = string.format("field %s.%s (declared at %s) is not optional but absent from the live table", class, k, declared[k].where)
    end
  end
end
fields_of("Match", m)
fields_of("Limits", limits())
fields_of("RunInfo", eacu.run_info())
fields_of("ResolvedTarget", eacu.resolve "1")
fields_of("Settle", wait_stable(5))
fields_of("StepResult", step { call = function() end, optional = true, name = "stubs_spec probe" })
fields_of("ModelInfo", eacu.model.info())
local route = eacu.apps.route "compute 1+2"
fields_of("Route", route)
check(route.scores[1] ~= nil, "route lists the modules' scores")
if route.scores[1] then fields_of("RouteScore", route.scores[1]) end
local text = ocr { 0, 80, 226, 60 }  -- the top rows of xcalc's keypad
fields_of("OcrResult", text)
check(text.lines[1] and text.lines[1].words[1], "ocr reads a line of words on the xcalc screenshot")
if text.lines[1] and text.lines[1].words[1] then
  fields_of("OcrLine", text.lines[1])
  fields_of("OcrWord", text.lines[1].words[1])
end
-- A failure's error value is a table (eacu.failure) whose fields are declared in ---@class EacuError.
local failed, err = pcall(wait, { image = "calculator.display_5", region = { 0, 0, 226, 60 } }, 0)
check(not failed, "wait for a target that is not there fails")
check(type(err) == "table", "a failed wait raises a failure value (a table), got " .. type(err))
if type(err) == "table" then fields_of("EacuError", err) end

------------------------------------------------------------------------------------------------
for _, s in ipairs(missing) do check(false, "missing stub: " .. s) end
for _, s in ipairs(stale) do check(false, "stale stub: " .. s) end
local count = 0
for _ in pairs(stubs.globals) do count = count + 1 end
for _, t in pairs(stubs.members) do for _ in pairs(t) do count = count + 1 end end
for _, t in pairs(stubs.methods) do for _ in pairs(t) do count = count + 1 end end
io.write(string.format("stubs_spec: %d stub files, %d functions and values declared, %d missing, %d stale\n",
  #files, count, #missing, #stale))
spec.finish("stubs_spec")

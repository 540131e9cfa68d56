---@meta eacu.apps
-- App modules and task templates (stdlib/eacu/apps.lua; also `eacu.apps`), in LuaCATS
-- annotations for lua-language-server. Editor stubs only: never loaded by eacu.

---An app module: `scripts/<app>/init.lua` returning this table (found by `require "<app>"`).
---Its own functions (`calc.open()`, `calc.read_display()`, ...) are plain Lua that the
---language server reads from the module itself.
---@class AppModule
---@field name? string the module's name ("calculator")
---@field keywords? string[] words that route a task sentence here (score 0.4)
---@field package? string the Android package ("com.tencent.mm") (score 0.1)
---@field window_class? string the X11 window class ("XCalc"), used like `package`
---@field templates? table<string, Template|TemplateFunction> named task templates

---A template given as a bare function (no patterns: run by name only).
---@alias TemplateFunction fun(params: table<string, string>, mod: AppModule): any

---A task template of an app module.
---@class Template
---@field run fun(params: table<string, string>, mod: AppModule): any does the task
---@field patterns? string[] sentences with `{param}` slots, "给{contact}发消息说{text}" (score 0.5)
---@field pattern? string one pattern
---@field params? string[] parameters that must be given (non-empty)
---@field risky? boolean ask for confirmation before running (no terminal: refused)
---@field risky_words? string[] words that make it risky when they occur in the params
---@field accepts? fun(params: table<string, string>): boolean whether the template takes a sentence its pattern matched (false: routing goes on without it)

---How a task sentence routes (`route`).
---@class Route
---@field module string the best module ("" when none scored)
---@field template string its template ("" when none)
---@field params table<string, string> the values of the pattern's slots
---@field score number the best score (pattern 0.5 + keywords 0.4 + package 0.1)
---@field pattern string the pattern that matched ("" when none)
---@field keywords string[] the module's keywords found in the sentence
---@field scores RouteScore[] every module's score, best first

---@class RouteScore
---@field module string
---@field template string
---@field params table<string, string>
---@field score number
---@field pattern string
---@field keywords string[]

---@class RunTaskOptions
---@field dry_run? boolean return the route without running anything

---@class eacu.apps
local M = {}

---Every app module on package.path (scripts/<app>/init.lua) that declares templates or keywords.
---@return table<string, AppModule> modules by name
---@return table<string, string> errors modules that failed to load, with their error
function M.modules() end

---The best module and template for a task sentence (seed 002's scoring).
---@param task string the sentence, e.g. "给张三发消息说你好"
---@return Route route `module == ""` when no module scored
function M.route(task) end

---The template table of "app.template". Raises an error listing the module's templates when
---there is no such template.
---@param qualified string "app.template", e.g. "calculator.compute"
---@return Template|TemplateFunction template
function M.template(qualified) end

---Runs a template of an app module: checks its declared params are given; a risky template
---(risky = true, or one of its risky_words in the params) asks for confirmation first and
---fails closed without a terminal (EACU_CONFIRM=yes allows).
---@param qualified string "app.template", e.g. "calculator.compute"
---@param params? table<string, any> the template's parameters (default {})
---@return any ... what the template's run function returns
function M.run_template(qualified, params) end

---Routes a task sentence and runs the template it names. Raises an error (with every module's
---score) when no module has a template for it.
---@param task string the sentence
---@param opts? RunTaskOptions
---@return Route route
---@return any ... what the template returned (nothing with dry_run)
function M.run_task(task, opts) end

return M

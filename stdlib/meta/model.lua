---@meta eacu.model
-- Model-driven steps (stdlib/eacu/model.lua; also `eacu.model`), in LuaCATS annotations for
-- lua-language-server. Editor stubs only: never loaded by eacu.
-- The model is configured by the environment (EACU_MODEL_PROVIDER, EACU_MODEL,
-- EACU_MODEL_BASE_URL, EACU_MODEL_API_KEY, EACU_MODEL_FALLBACK_*, EACU_MODEL_TIMEOUT,
-- EACU_MODEL_MAX_RETRIES) or by `eacu.model.config{}`.

---@class AskOptions
---@field json? boolean ask for a JSON answer and return it decoded (an answer that is not JSON is an error showing it)
---@field provider? string which provider of the fallback chain to ask (default: the configured order)

---@class PlanOptions
---@field max_replans? integer how often a failed step may be replanned (default 2)
---@field max_steps? integer executed steps in all (default 40)
---@field provider? string which provider of the fallback chain to ask (default: the configured order)
---@field raise? boolean false: return a failed result instead of raising (default true)

---How `plan` ended.
---@class PlanResult
---@field ok boolean every step ran and the plan finished
---@field steps integer steps executed
---@field replans integer replans asked for
---@field error string the last failure ("" when ok)
---@field executed string[] one line per executed step: `1 tap "AC" ok`
---@field plans table[] each plan as the model gave it (seed 002's JSON, decoded)

---@class AutopilotOptions
---@field max_steps? integer model calls allowed (default 20)
---@field keep_images? integer screenshots kept in the conversation (default 3)
---@field max_invalid? integer answers in a row that are not a valid action before giving up (default 3)
---@field provider? string which provider of the fallback chain to ask (default: the configured order)
---@field raise? boolean false: return the result when the autopilot fails instead of raising (default true)
---@field protocol? "som"|"computer" "som" (default): numbered elements and one JSON action; "computer": Anthropic's computer tool (or the same actions as an OpenAI-compatible function) with screenshot pixels
---@field tool? "computer_20250124"|"computer_20251124" the computer tool's version (protocol "computer"; 20251124 adds zoom)
---@field click_check? boolean before each click the model checks the marked pointer and corrects it up to 4 times (r = 14 px); still off, the person is asked to click instead (default: EACU_CLICK_CHECK=1)

---How `autopilot` ended.
---@class AutopilotResult
---@field status "done"|"fail"|"needs_user"|"max_steps"
---@field message string the model's text or reason, or the last error
---@field steps integer model calls made
---@field cached integer answers served from the model cache
---@field history string[] one line per step: `Step 1: 点击了 [5] asset "AC" → 界面变化 ✓`
---@field actions table[] the parsed actions (decoded JSON)
---@field step_id integer the summary "autopilot" step in the run log

---One Set-of-Marks element.
---@class SomElement: Box
---@field id integer the number drawn on the screenshot (0-based, reading order)
---@field type "text"|"icon" OmniParser's type
---@field kind string finer: "button", "text_field", "icon", "control", "label", "asset"
---@field content string its OCR text or asset name ("" when unknown)
---@field source string what proposed it: "box_ocr_content_ocr", "box_contour", "box_asset_content_asset", ...
---@field interactivity boolean text false, icons and controls true
---@field x integer
---@field y integer
---@field w integer
---@field h integer

---The elements the model sees (`som()`); `tostring(r)` is `r.text`.
---@class SomResult
---@field elements SomElement[]
---@field text string the element list as the model gets it
---@field frame_id integer the frame in the run log
---@field ms number time taken, milliseconds

---@class ModelConfig
---@field provider? "anthropic"|"openai" the API shape (openai: any OpenAI-compatible endpoint)
---@field model? string the model name
---@field base_url? string the endpoint (for openai: ending in /v1)
---@field api_key_env? string the environment variable holding the key (keys are never logged)
---@field api_key? string the key itself (for local servers)
---@field timeout? number HTTP timeout, seconds
---@field max_retries? integer retries of 429/5xx answers

---Which model is used (`eacu.model.info()`).
---@class ModelInfo
---@field provider? string absent when no model is configured
---@field model? string absent when no model is configured
---@field cache "off"|"record"|"replay" the model cache mode
---@field calls integer model calls made so far in the run
---@field description string e.g. "openai qwen, cache record"

---@class eacu.model
local M = {}

---True when `t` is a dynamic target: a table with a `dynamic` description (not a Match).
---@param t any
---@return boolean
function M.is_dynamic(t) end

---Asks the model a question about the current screen.
---@param question string
---@param opts? AskOptions
---@return any answer the text, or with `json = true` the decoded JSON value (tables for objects and arrays)
---@return string? text with `json = true`: the raw answer
function M.ask(question, opts) end

---seed 002's planner: the model plans steps (assets or `dynamic:` targets) from the screen; they
---run with retries, fallbacks and verification; a failed step is replanned from the live screen.
---Raises an error (with the executed steps) on failure unless `raise = false`.
---@param task string what to do, in words
---@param opts? PlanOptions
---@return PlanResult
function M.plan(task, opts) end

---seed 000's Set-of-Marks loop: screenshot with numbered elements → one JSON action →
---executed → effect checked → history line, until the model says done. fail, needs_user and
---the step limit raise an error (with the history) unless `raise = false`.
---@param task string what to do, in words
---@param opts? AutopilotOptions
---@return AutopilotResult
function M.autopilot(task, opts) end

---The former name of `autopilot`.
---@deprecated
---@param task string
---@param opts? AutopilotOptions
---@return AutopilotResult
function M.agent(task, opts) end

---The Set-of-Marks elements of the current screen.
---@return SomResult
function M.som() end

---Sets the model for the rest of the run; `config(false)` removes it.
---@param cfg ModelConfig|false
---@return string description e.g. "openai qwen, cache off"
function M.config(cfg) end

---@return ModelInfo
function M.info() end

-- The dynamic-target forms of the DSL's functions: `tap{dynamic=...}` and the others call
-- these; scripts call the globals.

---`tap{dynamic=...}`: the model finds the element and it is clicked at its centre.
---@param t DynamicTarget
---@param opts? TapOptions `timeout`: seconds to keep asking (default 0: one look); button "left"|"right"
---@return Match
function M.tap(t, opts) end

---@param t DynamicTarget
---@param opts? TapOptions
---@return Match
function M.double_tap(t, opts) end

---@param t DynamicTarget
---@param seconds? number how long to hold (default 1)
---@param opts? TapOptions
---@return Match
function M.long_press(t, seconds, opts) end

---@param t DynamicTarget
---@param timeout? number seconds to keep asking (default 0: one look)
---@return Match? match
---@return string? reason why it was not found
---@return Match? best the not-found Match (with `reason`)
function M.locate(t, timeout) end

---@param t DynamicTarget
---@param timeout? number seconds to keep asking (default 0: one look)
---@return boolean found
---@return Match? match
function M.exists(t, timeout) end

---`wait`/`verify` of a dynamic target: raises unless the model finds it within `timeout`.
---@param t DynamicTarget
---@param timeout? number seconds (default 5)
---@param fname? string "wait" or "verify" (how the error names the call)
---@return Match
function M.wait(t, timeout, fname) end

return M

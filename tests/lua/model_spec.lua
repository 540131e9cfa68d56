-- Model-driven steps against a real local model server (tests/model_server/fake_model.py, on
-- 127.0.0.1, started here) on a static xcalc screenshot (--display image:...): ask() returning
-- text and JSON, a non-JSON answer giving a clear error, grounding by element id and by a
-- 0-1000 box, a description the model does not find, som(), both API shapes, a bad key.
local spec = require "spec"
local check, error_of, has, expect_has = spec.check, spec.error_of, spec.has, spec.expect_has

local home = os.getenv("EACU_HOME") or "."
local server = launch { "python3", home .. "/tests/model_server/fake_model.py", "--key", "sk-spec-key" }
local line = server:read_line(10)
check(line ~= nil and line:match("^PORT %d+$"), "the server prints its port, got " .. tostring(line))
local port = line:match("%d+")
local base = "http://127.0.0.1:" .. port

-- Without a model: a clear error (the run has no EACU_MODEL_PROVIDER).
eacu.model.config(false)
local err = error_of(ask, "what is shown?")
expect_has(err, "no model is configured", "ask without a model")
expect_has(err, "EACU_MODEL_PROVIDER", "the error says how to configure one")

-- OpenAI-compatible chat completions.
local w, h = screen_size()
eacu.model.config { provider = "openai", model = "fake-qwen", base_url = base .. "/v1", api_key = "sk-spec-key" }
local info = eacu.model.info()
check(info.provider == "openai" and info.model == "fake-qwen", "model.info: " .. tostring(info.description))

local text = ask("Describe the screen.")
check(type(text) == "string", "ask returns text")
expect_has(text, string.format("%dx%d", w, h), "the server saw the screenshot")

local v, raw = ask("How large is the screenshot?", { json = true })
check(type(v) == "table", "ask{json=true} returns a table, got " .. type(v))
check(v.width == w and v.height == h, string.format("JSON answer width/height %s/%s, screen %dx%d", tostring(v.width), tostring(v.height), w, h))
check(v.images == 1, "one image sent")
check(type(raw) == "string" and has(raw, '"width"'), "the raw text comes second")

err = error_of(function() ask("Answer in prose, not JSON please.", { json = true }) end)
expect_has(err, "expected a JSON answer from the model, got text that is not JSON", "non-JSON answer")
expect_has(err, "The screenshot shows a calculator.", "the error shows the raw answer")
expect_has(err, "model_spec.lua:", "the error points at the script line")

err = error_of(ask, "")
expect_has(err, "ask: expected a question", "empty question")

-- Set-of-Marks.
local s = som()
check(#s.elements > 0, "som() finds elements")
local eq
for _, e in ipairs(s.elements) do if e.content == "=" then eq = e end end
check(eq ~= nil, "som() lists the = key (an asset match)")
expect_has(tostring(s), '"="', "som() prints the seed 000 list")

-- Grounding: element id, then a 0-1000 box.
local m = locate { dynamic = 'the "=" key' }
check(m and m.found, "locate{dynamic} finds the = key")
check(m and m.element_id == eq.id, "by its element id")
check(m and m.cx == eq.x + math.floor(eq.w / 2) and m.cy == eq.y + math.floor(eq.h / 2), "at the element's centre")
check(m and m.method == "model-element", "method model-element, got " .. tostring(m and m.method))
local b = locate { dynamic = "the equals key (box)" }
check(b and b.method == "model-box", "a 0-1000 box answer")
check(b and math.abs(b.cx - m.cx) <= 3 and math.abs(b.cy - m.cy) <= 3,
  string.format("the box maps back to the same place: (%s,%s) vs (%s,%s)", tostring(b and b.cx), tostring(b and b.cy), m.cx, m.cy))
local t = tap { dynamic = "the seven key" }
check(t.found and t.method == "model-element", "tap{dynamic} (no input goes anywhere on an image device)")
local none, why = locate { dynamic = "the percent key" }
check(none == nil, "an element the model does not find: nil")
expect_has(tostring(why), "not found by the model", "with the reason")
check(exists { dynamic = "the percent key" } == false, "exists{dynamic} is false")
err = error_of(tap, { dynamic = "the percent key" })
expect_has(err, 'tap {dynamic="the percent key"}: the model did not find it', "tap of a missing element")
err = error_of(wait, { dynamic = "the percent key" }, 0)
expect_has(err, "not found by the model", "wait{dynamic}")
err = error_of(wait, { dynamic = "the percent key", timeout = 0 })
expect_has(err, "not found by the model within 0 s", "wait{dynamic=, timeout=} honours the timeout in the table")
err = error_of(find_all, { dynamic = "x" })
expect_has(err, "dynamic (model) targets work with tap", "find_all rejects dynamic targets")

-- The Anthropic Messages API, same answers.
eacu.model.config { provider = "anthropic", model = "claude-fake", base_url = base, api_key = "sk-spec-key" }
v = ask("How large is the screenshot?", { json = true })
check(type(v) == "table" and v.width == w, "Anthropic: JSON answer")
m = locate { dynamic = 'the "=" key' }
check(m and m.element_id == eq.id, "Anthropic: grounding")

-- A wrong key: the error names the provider and status, never the key.
eacu.model.config { provider = "openai", model = "fake-qwen", base_url = base .. "/v1", api_key = "sk-wrong-key" }
err = error_of(ask, "hello")
expect_has(err, "401", "a wrong key: HTTP 401")
check(not has(err, "sk-wrong"), "the key is not in the error")

server:stop()
spec.finish("model_spec")

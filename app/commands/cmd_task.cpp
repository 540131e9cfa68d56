// eacu run --task "SENTENCE": routes a task sentence to an app module's template (seed 002's
// module routing) and runs it as a recorded run; a sentence no template matches is handed to
// autopilot() when a model is configured. --dry-run only prints the choice.
#include <cstdio>
#include <filesystem>
#include <optional>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "commands/Commands.h"
#include "ScriptRun.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "runlog/RunLog.h"
#include "planner/ModelContext.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

// Lua that routes arg[1] and prints the choice; runs the template (or, when none matches and
// arg[3] says a model is configured, the autopilot) unless arg[2] is "dry". Returns the task's
// answer: the autopilot's done message, or the template's result (a string or a number), else
// "完成：<module.template>".
const char* kRouteChunk = R"LUA(
local task, mode, has_model = ...
local apps = require("eacu.apps")
-- Calls f(...) so that an error it raises carries no position in this chunk (eacu's own, not
-- the user's): the message starts with what failed.
local function call(f, ...)
  local ok, res = pcall(f, ...)
  if not ok then error(res, 0) end
  return res
end
local r = apps.route(task)
local keys = {}
for k in pairs(r.params) do keys[#keys + 1] = k end
table.sort(keys)
local ps = {}
for _, k in ipairs(keys) do ps[#ps + 1] = k .. "=" .. r.params[k] end
local scores = {}
for _, s in ipairs(r.scores) do scores[#scores + 1] = string.format("%s %.1f", s.module, s.score) end
if r.module == "" or r.template == "" then
  if not has_model then
    error("no app module has a template for \"" .. task .. "\" (scores: " .. table.concat(scores, ", ") ..
          "), and no model is configured to hand it to (set EACU_MODEL_PROVIDER and EACU_MODEL)", 0)
  end
  print("no app module has a template for it (scores: " .. table.concat(scores, ", ") .. "): the autopilot does it")
  if mode ~= "dry" then
    local res = call(autopilot, task)
    print("autopilot: " .. tostring(res.status) .. (res.message and res.message ~= "" and (": " .. res.message) or ""))
    return (res.message and res.message ~= "") and res.message or "完成"
  end
  return
end
local t = apps.template(r.module .. "." .. r.template)
print(string.format("module %s (score %.1f), template %s, params %s", r.module, r.score, r.template, table.concat(ps, " ")))
print("  pattern: " .. r.pattern .. (#r.keywords > 0 and ("; keywords: " .. table.concat(r.keywords, ", ")) or ""))
print("  scores: " .. table.concat(scores, ", "))
if type(t) == "table" and t.risky then print("  risky: yes (asks for confirmation; fails closed without a terminal)") end
if mode ~= "dry" then
  local out = call(apps.run_template, r.module .. "." .. r.template, r.params)
  if (type(out) == "string" and out ~= "") or type(out) == "number" then return tostring(out) end
  return "完成：" .. r.module .. "." .. r.template
end
)LUA";

// Routes `task` and runs what it chose (not when `dry`). Returns the error ("" when it passed);
// `answer`, when given, receives the task's answer.
std::string runChunk(LuaHost& host, const std::string& task, bool dry, bool has_model,
                     std::optional<std::string>* answer = nullptr) {
    // Passes the task, the mode and whether a model is there as the chunk's varargs.
    std::string code = "local f = assert(loadstring(" + nlohmann::json(std::string(kRouteChunk)).dump() +
                       ", '=route')); return f(" + nlohmann::json(task).dump() + ", " + (dry ? "'dry'" : "'run'") +
                       ", " + (has_model ? "true" : "false") + ")";
    return host.runString(code, "=eacu-task", answer);
}

}  // namespace

/// `eacu run --task SENTENCE [--dry-run] [--yes] [--display D] [--db PATH]`.
int cmdRunTask(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--task", "--max-actions", "--max-time", "--serve-fd"},
                     {"--dry-run", "--yes", "--verbose"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    std::string task = o.flag("--task").value_or("");
    if (task.empty()) {
        std::fprintf(stderr, "eacu run --task: expected a task sentence, got an empty string\n");
        return 2;
    }
    std::string home = eacuHome();
    if (o.flag("--dry-run")) {
        try {
            LuaHost host(nullptr);
            host.addPackagePath((fs::path(home) / "scripts").string());
            std::string err = runChunk(host, task, true, ModelContext::clientFromEnv() != nullptr);
            if (!err.empty()) {
                // The message only: the traceback is of eacu's own chunks, not the user's.
                std::fprintf(stderr, "eacu run --task: %s\n",
                             (o.flag("--verbose") ? err : firstLine(err)).c_str());
                return 1;
            }
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "eacu run --task: %s\n", e.what());
            return 1;
        }
    }
    RunSpec spec;
    spec.script = "--task " + task;
    spec.args = {task};
    spec.session.script_dir = fs::current_path().string();
    try {
        spec.limits = limitsFromCli(o);
        if (auto fd = o.flag("--serve-fd")) serveFdFromArg(*fd);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run --task: %s\n", e.what());
        return 2;
    }
    std::unique_ptr<OpenRun> r = startRun(o, std::move(spec), "eacu run --task");
    if (!r) return 1;
    Run& run = *r->run;
    if (o.flag("--yes")) run.session().confirmMode() = ConfirmMode::Yes;
    std::string error;
    std::optional<std::string> answer;
    std::unique_ptr<LuaHost> host;  // outlives finishRun: the watchdog may interrupt it until then
    try {
        auto client = ModelContext::clientFromEnv(nullptr, run.token());
        const bool has_model = client != nullptr;
        host = hostForRun(*r, fs::current_path().string(), std::move(client), ModelContext::cacheModeFromEnv());
        error = runChunk(*host, task, false, has_model, &answer);
    } catch (const std::exception& e) {
        error = e.what();
    }
    return finishRun(*r, error, " (task " + nlohmann::json(task).dump() + ")", o.flag("--verbose").has_value(),
                     answer.value_or(""));
}

}  // namespace eacu

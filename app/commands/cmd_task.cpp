// eacu run --task "SENTENCE": routes a task sentence to an app module's template (seed 002's
// module routing) and runs it as a recorded run; --dry-run only prints the choice.
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "commands/Commands.h"
#include "ScriptRun.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "record/RunLog.h"
#include "task/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

// Lua that routes arg[1] and prints the choice; runs the template unless arg[2] is "dry".
const char* kRouteChunk = R"LUA(
local task, mode = ...
local apps = require("eacu.apps")
local r = apps.route(task)
local keys = {}
for k in pairs(r.params) do keys[#keys + 1] = k end
table.sort(keys)
local ps = {}
for _, k in ipairs(keys) do ps[#ps + 1] = k .. "=" .. r.params[k] end
local scores = {}
for _, s in ipairs(r.scores) do scores[#scores + 1] = string.format("%s %.1f", s.module, s.score) end
if r.module == "" or r.template == "" then
  error("no app module has a template for \"" .. task .. "\" (scores: " .. table.concat(scores, ", ") .. ")", 0)
end
local t = apps.template(r.module .. "." .. r.template)
print(string.format("module %s (score %.1f), template %s, params %s", r.module, r.score, r.template, table.concat(ps, " ")))
print("  pattern: " .. r.pattern .. (#r.keywords > 0 and ("; keywords: " .. table.concat(r.keywords, ", ")) or ""))
print("  scores: " .. table.concat(scores, ", "))
if type(t) == "table" and t.risky then print("  risky: yes (asks for confirmation; fails closed without a terminal)") end
if mode ~= "dry" then apps.run_template(r.module .. "." .. r.template, r.params) end
)LUA";

std::string runChunk(LuaHost& host, const std::string& task, bool dry) {
    // Passes the task and mode as the chunk's varargs through a tiny wrapper.
    std::string code = "local f = assert(loadstring(" + nlohmann::json(std::string(kRouteChunk)).dump() +
                       ", '=route')); f(" + nlohmann::json(task).dump() + ", " + (dry ? "'dry'" : "'run'") + ")";
    return host.runString(code, "=eacu-task");
}

}  // namespace

/// `eacu run --task SENTENCE [--dry-run] [--yes] [--display D] [--db PATH]`.
int cmdRunTask(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--task"}, {"--dry-run", "--yes", "--verbose"});
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
            std::string err = runChunk(host, task, true);
            if (!err.empty()) {
                std::fprintf(stderr, "eacu run --task: %s\n", err.c_str());
                return 1;
            }
            return 0;
        } catch (const std::exception& e) {
            std::fprintf(stderr, "eacu run --task: %s\n", e.what());
            return 1;
        }
    }
    RunContext ctx;
    try {
        ctx = openRunContext(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run --task: %s\n", e.what());
        return 1;
    }
    auto& log = ctx.log;
    auto& dev = ctx.dev;
    auto& assets = ctx.assets;
    installRunSignals();
    int64_t run_id = log->beginRun(runRecordFor(*dev.device, "--task " + task, {task}));
    Locator locator;
    SessionOptions so;
    so.script_dir = fs::current_path().string();
    std::string error;
    try {
        Session session(*dev.device, assets, locator, log.get(), run_id, so);
        if (o.flag("--yes")) session.confirmMode() = ConfirmMode::Yes;
        LuaHost host(&session);
        host.addPackagePath((fs::path(home) / "scripts").string());
        error = runChunk(host, task, false);
    } catch (const std::exception& e) {
        error = e.what();
    }
    log->endRun(run_id, error.empty() ? "passed" : "failed", error);
    if (error.empty()) {
        std::fprintf(stderr, "eacu: run %lld passed (task \"%s\")\n", (long long)run_id, task.c_str());
        return 0;
    }
    std::fprintf(stderr, "eacu: run %lld failed: %s\n", (long long)run_id, firstLine(error).c_str());
    return 1;
}

}  // namespace eacu

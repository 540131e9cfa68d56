// eacu replay RUN [--mode script|actions]: plays a recorded run back as a new, linked run.
#include <csignal>
#include <unistd.h>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "ScriptRun.h"
#include "commands/Commands.h"
#include "device/Device.h"
#include "device/DeviceFactory.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "recorder/Replay.h"
#include "runlog/ReplayDiff.h"
#include "runlog/RunLog.h"
#include "base/Cancel.h"
#include "planner/ModelContext.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdReplay(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--mode", "--timeout", "--threshold", "--max-actions", "--max-time"},
                     {"--verbose", "--quiet"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 2;
    }
    std::string mode = o.flag("--mode").value_or("script");
    if (mode != "script" && mode != "actions") {
        std::fprintf(stderr, "eacu replay: --mode expects script or actions, got \"%s\"\n", mode.c_str());
        return 2;
    }
    if (o.positional.size() > 1) {
        std::fprintf(stderr, "eacu replay: expected at most one RUN, got %zu (see eacu replay --help)\n",
                     o.positional.size());
        return 2;
    }
    std::unique_ptr<RunLog> log;
    std::optional<RunRecord> orig;
    ReplayOptions ro;
    RunSpec spec;
    try {
        if (auto t = o.flag("--timeout")) ro.timeout = numberFlag("--timeout", *t, 0, 3600, "[0, 3600] (seconds)");
        if (auto t = o.flag("--threshold")) ro.threshold = numberFlag("--threshold", *t, 0, 1, "[0, 1]");
        spec.limits = limitsFromCli(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 2;
    }
    try {
        log = std::make_unique<RunLog>(runLogPath(o));
        int64_t id = o.positional.empty() ? log->latestRunId() : parseRunId(o.positional[0]);
        orig = log->run(id);
        if (!orig) {
            std::fprintf(stderr, "eacu replay: no run %lld in %s\n", (long long)id, log->path().c_str());
            return 1;
        }
        if (mode == "script" && !fs::is_regular_file(orig->script)) {
            std::fprintf(stderr, "eacu replay: run %lld's script \"%s\" is gone; --mode actions replays "
                                 "its recorded inputs without it\n", (long long)id, orig->script.c_str());
            return 1;
        }
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 1;
    }
    // A run recorded on the chromium device replays on one again unless --device says otherwise.
    if (o.display.empty()) {
        o.display = specForRecordedDevice(orig->device);
        if (!o.display.empty() && !o.flag("--quiet"))
            std::fprintf(stderr, "eacu replay: on --device %s, as run %lld was recorded\n", o.display.c_str(),
                         (long long)orig->id);
    }
    spec.script = orig->script;
    spec.args = nlohmann::json::parse(orig->args_json).get<std::vector<std::string>>();
    spec.replay_of = orig->id;
    spec.replay_mode = mode;
    spec.db = log->path();
    spec.session.script_dir = fs::path(orig->script).parent_path().string();
    std::unique_ptr<OpenRun> r = startRun(o, spec, "eacu replay");
    if (!r) return 1;
    Run& run = *r->run;
    Size size = run.device().screenSize();
    if (!o.flag("--quiet"))
        std::fprintf(stderr, "eacu: run %lld replays run %lld (%s mode) on %s\n", (long long)run.id(),
                     (long long)orig->id, mode.c_str(), run.device().describe().c_str());
    if (mode == "actions" && (size.w != orig->screen_w || size.h != orig->screen_h))
        std::fprintf(stderr, "eacu replay: note: the screen is %dx%d, the recording %dx%d; targets are "
                             "re-located where they moved\n", size.w, size.h, orig->screen_w, orig->screen_h);

    std::string error;
    double t0 = monotonicSeconds();
    std::unique_ptr<LuaHost> host;  // outlives finishRun: the watchdog may interrupt it until then
    try {
        if (mode == "actions") {
            run.watch(nullptr, [id = run.id()](const RunOutcome& out) {
                std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)id, out.status.c_str(), firstLine(out.error).c_str());
                Process::killAllChildren();
                _exit(runExitCode(out.status));
            });
            if (o.flag("--verbose")) ro.on_step = [](const std::string& l) { std::fprintf(stderr, "  %s\n", l.c_str()); };
            ReplayResult res = replayActions(*log, orig->id, run.session(), r->locator, ro);
            if (!res.ok) error = res.error;
        } else {
            // Model answers come from the recorded calls (the model cache): no network needed.
            // A configured model (EACU_MODEL_*) answers only what was never recorded.
            host = hostForRun(*r, spec.session.script_dir, ModelContext::clientFromEnv(nullptr, run.token()),
                              model::CacheMode::Replay);
            error = host->runFile(orig->script, spec.args);
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    double secs = monotonicSeconds() - t0;
    auto diffs = diffSteps(log->steps(orig->id), log->steps(run.id()));
    size_t steps = log->steps(run.id()).size();
    char what[200];
    std::snprintf(what, sizeof what, ": replay of run %lld (%s mode), %zu steps, %.1f s, %zu difference%s from the original%s",
                  (long long)orig->id, mode.c_str(), steps, secs, diffs.size(), diffs.size() == 1 ? "" : "s",
                  diffs.empty() ? "" : " (eacu show for where)");
    return finishRun(*r, error, what, o.flag("--verbose").has_value());
}

}  // namespace eacu

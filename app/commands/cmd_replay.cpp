// eacu replay RUN [--mode script|actions]: plays a recorded run back as a new, linked run.
#include <csignal>
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
#include "process/Process.h"
#include "record/Replay.h"
#include "record/ReplayDiff.h"
#include "record/RunLog.h"
#include "base/Cancel.h"
#include "task/ModelContext.h"
#include "task/Session.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdReplay(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--mode", "--timeout", "--threshold"}, {"--verbose", "--quiet"});
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
    OpenDevice dev;
    AssetLibrary assets;
    ReplayOptions ro;
    try {
        if (auto t = o.flag("--timeout")) ro.timeout = numberFlag("--timeout", *t, 0, 3600, "[0, 3600] (seconds)");
        if (auto t = o.flag("--threshold")) ro.threshold = numberFlag("--threshold", *t, 0, 1, "[0, 1]");
        log = std::make_unique<RunLog>(o.db.empty() ? RunLog::defaultPath() : o.db);
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
        assets = AssetLibrary::loadFrom(eacuHome());
        dev = openDevice(o.display);
    } catch (const UsageError& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 2;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu replay: %s\n", e.what());
        return 1;
    }
    installRunSignals();
    std::vector<std::string> args = nlohmann::json::parse(orig->args_json).get<std::vector<std::string>>();
    RunRecord rec = runRecordFor(*dev.device, orig->script, args);
    Size size = dev.device->screenSize();
    rec.replay_of = orig->id;
    rec.replay_mode = mode;
    int64_t run_id = log->beginRun(rec);
    if (!o.flag("--quiet"))
        std::fprintf(stderr, "eacu: run %lld replays run %lld (%s mode) on %s\n", (long long)run_id,
                     (long long)orig->id, mode.c_str(), rec.device.c_str());
    if (mode == "actions" && (size.w != orig->screen_w || size.h != orig->screen_h))
        std::fprintf(stderr, "eacu replay: note: the screen is %dx%d, the recording %dx%d; targets are "
                             "re-located where they moved\n", size.w, size.h, orig->screen_w, orig->screen_h);

    Locator locator;
    SessionOptions so;
    so.script_dir = fs::path(orig->script).parent_path().string();
    std::string error;
    double t0 = monotonicSeconds();
    try {
        if (mode == "actions") {
            Session helper(*dev.device, assets, locator, nullptr, 0, so);
            if (o.flag("--verbose")) ro.on_step = [](const std::string& l) { std::fprintf(stderr, "  %s\n", l.c_str()); };
            ReplayResult r = replayActions(*log, orig->id, run_id, *dev.device, locator, helper, ro);
            if (!r.ok) error = r.error;
        } else {
            // Model answers come from the recorded calls (the model cache): no network needed.
            // A configured model (EACU_MODEL_*) answers only what was never recorded.
            error = runScript(*dev.device, assets, locator, *log, run_id, orig->script, args,
                              ModelContext::clientFromEnv(), model::CacheMode::Replay);
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    double secs = monotonicSeconds() - t0;
    bool interrupted = !error.empty() && pendingSignal() != 0;
    log->endRun(run_id, error.empty() ? "passed" : interrupted ? "interrupted" : "failed", error);
    auto diffs = diffSteps(log->steps(orig->id), log->steps(run_id));
    size_t steps = log->steps(run_id).size();
    if (error.empty()) {
        std::fprintf(stderr, "eacu: run %lld passed: replay of run %lld (%s mode), %zu steps, %.1f s, %zu "
                             "difference%s from the original%s\n",
                     (long long)run_id, (long long)orig->id, mode.c_str(), steps, secs, diffs.size(),
                     diffs.size() == 1 ? "" : "s", diffs.empty() ? "" : " (eacu show for where)");
        return 0;
    }
    std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)run_id, interrupted ? "interrupted" : "failed",
                 firstLine(error).c_str());
    if (o.flag("--verbose")) std::fprintf(stderr, "%s\n", error.c_str());
    return interrupted ? 130 : 1;
}

}  // namespace eacu

// eacu run SCRIPT: runs a task script on a device and records the run.
#include <cstdio>
#include <filesystem>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "commands/Commands.h"
#include "ScriptRun.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "record/RunLog.h"
#include "base/Cancel.h"
#include "task/ModelContext.h"
#include "vision/Locator.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdRun(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--model-cache", "--max-actions", "--max-time"}, {"--verbose"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    if (o.positional.size() != 1) {
        std::fprintf(stderr, "eacu run: expected one SCRIPT, got %zu (see eacu run --help)\n", o.positional.size());
        return 2;
    }
    fs::path script = o.positional[0];
    if (!fs::is_regular_file(script)) {
        std::fprintf(stderr, "eacu run: no such script \"%s\"\n", script.c_str());
        return 2;
    }
    script = fs::absolute(script);
    // The run's limits (seed 001: 80 actions, 8 minutes; 0 = none).
    RunLimits limits{kDefaultMaxActions, kDefaultMaxSeconds};
    try {
        if (auto v = o.flag("--max-actions")) limits.max_actions = integerFlag("--max-actions", *v, 0, 1000000);
        if (auto v = o.flag("--max-time"))
            limits.max_seconds = numberFlag("--max-time", *v, 0, 1e7, "[0, 1e7] (seconds; 0 = no limit)");
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    // The model for model-driven steps (ask, plan, agent, dynamic targets): EACU_MODEL_* from
    // the environment (none is fine: then only cached answers can be replayed).
    model::CacheMode cache_mode;
    std::unique_ptr<model::ModelClient> model_client;
    try {
        auto mc = o.flag("--model-cache");
        cache_mode = mc ? model::parseCacheMode(*mc) : ModelContext::cacheModeFromEnv();
        model_client = ModelContext::clientFromEnv();
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    RunContext ctx;
    try {
        ctx = openRunContext(o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 1;
    }
    auto& log = ctx.log;
    auto& dev = ctx.dev;
    auto& assets = ctx.assets;
    installRunSignals();
    int64_t run_id = log->beginRun(runRecordFor(*dev.device, script.string(), o.passthrough));
    Locator locator;
    double t0 = monotonicSeconds();
    std::string error = runScript(*dev.device, assets, locator, *log, run_id, script.string(),
                                  o.passthrough, std::move(model_client), cache_mode, limits);
    double secs = monotonicSeconds() - t0;
    size_t steps = log->steps(run_id).size();
    if (error.empty()) {
        log->endRun(run_id, "passed", "");
        std::fprintf(stderr, "eacu: run %lld passed (%zu steps, %.1f s, %s)\n", (long long)run_id,
                     steps, secs, log->path().c_str());
        return 0;
    }
    bool interrupted = pendingSignal() != 0;
    log->endRun(run_id, interrupted ? "interrupted" : "failed", error);
    std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)run_id,
                 interrupted ? "interrupted" : "failed", firstLine(error).c_str());
    if (o.flag("--verbose")) std::fprintf(stderr, "%s\n", error.c_str());
    return interrupted ? 130 : 1;
}

}  // namespace eacu

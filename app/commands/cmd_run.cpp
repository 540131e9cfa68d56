// eacu run SCRIPT: runs a task script on a device and records the run.
#include <cstdio>
#include <filesystem>
#include <optional>

#include "Cli.h"
#include "ScriptRun.h"
#include "commands/Commands.h"
#include "host/LuaHost.h"
#include "planner/ModelContext.h"

namespace fs = std::filesystem;

namespace eacu {

int cmdRun(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--model-cache", "--max-actions", "--max-time", "--serve-fd"}, {"--verbose", "--heal"});
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
    RunSpec spec;
    spec.script = script.string();
    spec.args = o.passthrough;
    spec.session.script_dir = script.parent_path().string();
    spec.session.heal = o.flag("--heal").has_value();
    // The model for model-driven steps (ask, plan, autopilot, dynamic targets): EACU_MODEL_* from
    // the environment (none is fine: then only cached answers can be replayed).
    model::CacheMode cache_mode;
    try {
        spec.limits = limitsFromCli(o);
        if (auto fd = o.flag("--serve-fd")) serveFdFromArg(*fd);
        auto mc = o.flag("--model-cache");
        cache_mode = mc ? model::parseCacheMode(*mc) : ModelContext::cacheModeFromEnv();
        ModelContext::clientFromEnv();  // a bad configuration is a usage error, before the run
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    std::unique_ptr<OpenRun> r = startRun(o, std::move(spec), "eacu run");
    if (!r) return 1;
    Run& run = *r->run;
    double t0 = monotonicSeconds();
    std::string error;
    std::optional<std::string> returned;
    std::unique_ptr<LuaHost> host;  // outlives finishRun: the watchdog may interrupt it until then
    try {
        host = hostForRun(*r, script.parent_path().string(),
                               ModelContext::clientFromEnv(nullptr, run.token()), cache_mode);
        error = host->runFile(script.string(), o.passthrough, &returned);
    } catch (const std::exception& e) {
        error = e.what();
    }
    // The answer (eacu serve): what the script returned (a string or a number), else what the
    // last autopilot said when it was done.
    const std::string answer = returned ? *returned : run.session().answer();
    char what[160];
    std::snprintf(what, sizeof what, " (%zu steps, %.1f s, %s)", run.log().steps(run.id()).size(),
                  monotonicSeconds() - t0, run.log().path().c_str());
    return finishRun(*r, error, what, o.flag("--verbose").has_value(), answer);
}

}  // namespace eacu

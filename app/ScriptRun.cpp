#include "ScriptRun.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "base/Cancel.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "task/ModelContext.h"
#include "wrap_Model.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

volatile std::sig_atomic_t g_signals = 0;

void onSignal(int sig) {
    g_signals = g_signals + 1;
    if (g_signals == 1) {
        cancelAllFromSignal(sig);
        return;
    }
    Process::killAllChildren();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

}  // namespace

std::unique_ptr<OpenRun> openRun(const CliOptions& o, RunSpec spec) {
    auto r = std::make_unique<OpenRun>();
    r->assets = AssetLibrary::loadFrom(eacuHome());
    if (spec.db.empty()) spec.db = runLogPath(o);
    r->run = std::make_unique<Run>(openDevice(o.display), r->assets, r->locator, std::move(spec));
    return r;
}

RunLimits limitsFromCli(const CliOptions& o) {
    RunLimits limits{kDefaultMaxActions, kDefaultMaxSeconds};
    if (auto v = o.flag("--max-actions")) limits.max_actions = integerFlag("--max-actions", *v, 0, 1000000);
    if (auto v = o.flag("--max-time"))
        limits.max_seconds = numberFlag("--max-time", *v, 0, 1e7, "[0, 1e7] (seconds; 0 = no limit)");
    return limits;
}

void installRunSignals() {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

std::unique_ptr<OpenRun> startRun(const CliOptions& o, RunSpec spec, const char* who) {
    installRunSignals();
    try {
        return openRun(o, std::move(spec));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        return nullptr;
    }
}

int runExitCode(const std::string& status) {
    if (status == "passed") return 0;
    if (status == "interrupted") return pendingSignal() ? 128 + pendingSignal() : 130;
    return 1;
}

std::unique_ptr<LuaHost> hostForRun(OpenRun& r, const std::string& script_dir,
                                    std::unique_ptr<model::ModelClient> client, model::CacheMode cache_mode) {
    Run& run = *r.run;
    auto host = std::make_unique<LuaHost>(&run.session());
    luax_setmodel(host->state(), std::make_unique<ModelContext>(run.session(), std::move(client), cache_mode));
    // App modules (scripts/<app>/init.lua) come first, then modules beside the script.
    host->addPackagePath(script_dir);
    host->addPackagePath((fs::path(eacuHome()) / "scripts").string());
    LuaHost* h = host.get();
    int64_t id = run.id();
    run.watch([h] { h->interrupt(); },
              [id](const RunOutcome& o) {
                  std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)id,
                               o.status == "timed_out" ? "timed out" : o.status.c_str(), firstLine(o.error).c_str());
                  std::fflush(stderr);
                  Process::killAllChildren();
                  _exit(runExitCode(o.status));
              });
    return host;
}

int finishRun(Run& run, const std::string& error, const std::string& what, bool verbose) {
    RunOutcome o = run.finish(error);
    if (o.status == "passed") {
        std::fprintf(stderr, "eacu: run %lld passed%s\n", (long long)run.id(), what.c_str());
        return 0;
    }
    std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)run.id(),
                 o.status == "timed_out" ? "timed out" : o.status.c_str(), firstLine(o.error).c_str());
    if (verbose) std::fprintf(stderr, "%s\n", o.error.c_str());
    return runExitCode(o.status);
}

}  // namespace eacu

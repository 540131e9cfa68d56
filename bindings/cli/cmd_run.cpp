// eacu run SCRIPT: runs a task script on a device and records the run.
#include <csignal>
#include <cstdio>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "cli/Cli.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "record/RunLog.h"
#include "task/Cancel.h"
#include "task/ModelContext.h"
#include "task/Session.h"
#include "vision/Locator.h"
#include "wrap_Model.h"

namespace fs = std::filesystem;

namespace eacu {
namespace {

volatile std::sig_atomic_t g_signals = 0;

// First SIGINT/SIGTERM: cancel the running wait/locate so the run ends cleanly and is recorded
// as interrupted. Second: stop children and die with the signal.
void onSignal(int sig) {
    g_signals = g_signals + 1;
    if (g_signals == 1) {
        requestCancel();
        return;
    }
    Process::killAllChildren();
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

std::string firstLine(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

int cmdRun(int argc, char** argv) {
    CliOptions o;
    try {
        o = parseCli(argc, argv, 2, {"--model-cache"}, {"--verbose"});
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 2;
    }
    if (o.positional.size() != 1) {
        std::fprintf(stderr, "eacu run: expected one SCRIPT, got %zu (usage: eacu run SCRIPT "
                             "[--display ...] [--db PATH] [-- args...])\n", o.positional.size());
        return 2;
    }
    fs::path script = o.positional[0];
    if (!fs::is_regular_file(script)) {
        std::fprintf(stderr, "eacu run: no such script \"%s\"\n", script.c_str());
        return 2;
    }
    script = fs::absolute(script);
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
    std::unique_ptr<RunLog> log;
    OpenDevice dev;
    AssetLibrary assets;
    try {
        log = std::make_unique<RunLog>(o.db.empty() ? RunLog::defaultPath() : o.db);
        assets = AssetLibrary::loadFrom(eacuHome());
        dev = openDevice(o.display);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu run: %s\n", e.what());
        return 1;
    }
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);

    RunRecord rec;
    rec.script = script.string();
    rec.args_json = nlohmann::json(o.passthrough).dump();
    rec.device = dev.device->describe();
    Size size = dev.device->screenSize();
    rec.screen_w = size.w;
    rec.screen_h = size.h;
    rec.scale = dev.device->scaleFactor();
    int64_t run_id = log->beginRun(rec);

    Locator matcher;
    SessionOptions so;
    so.script_dir = script.parent_path().string();
    std::string error;
    double t0 = monotonicSeconds();
    try {
        Session session(*dev.device, assets, matcher, log.get(), run_id, so);
        LuaHost host(&session);
        luax_setmodel(host.state(), std::make_unique<ModelContext>(session, std::move(model_client), cache_mode));
        // App modules (scripts/<app>/init.lua) come first, then modules beside the script.
        host.addPackagePath(so.script_dir);
        host.addPackagePath((fs::path(eacuHome()) / "scripts").string());
        error = host.runFile(script.string(), o.passthrough);
    } catch (const std::exception& e) {
        error = e.what();
    }
    double secs = monotonicSeconds() - t0;
    size_t steps = log->steps(run_id).size();
    if (error.empty()) {
        log->endRun(run_id, "passed", "");
        std::fprintf(stderr, "eacu: run %lld passed (%zu steps, %.1f s, %s)\n", (long long)run_id,
                     steps, secs, log->path().c_str());
        return 0;
    }
    bool interrupted = cancelRequested();
    log->endRun(run_id, interrupted ? "interrupted" : "failed", error);
    std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)run_id,
                 interrupted ? "interrupted" : "failed", firstLine(error).c_str());
    if (o.flag("--verbose")) std::fprintf(stderr, "%s\n", error.c_str());
    return interrupted ? 130 : 1;
}

}  // namespace eacu

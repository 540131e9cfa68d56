#include "ScriptRun.h"

#include <csignal>
#include <cstdio>
#include <filesystem>
#include <unistd.h>

#include "base/Cancel.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "heal/ModelHealer.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "server/LiveLine.h"
#include "planner/ModelContext.h"
#include "run/UserInput.h"
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
    // The run log first: a read-only or locked one fails before an Xvfb is started.
    auto log = std::make_unique<RunLog>(spec.db);
    DeviceHandle device = openDevice(o.display, o.wm);
    r->run = std::make_unique<Run>(std::move(device), r->assets, r->locator, std::move(spec), std::move(log));
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
    std::shared_ptr<ServeChannel> serve;
    try {
        if (auto fd = o.flag("--serve-fd")) {
            std::signal(SIGPIPE, SIG_IGN);  // a server that went away must not end the run
            serve = std::make_shared<ServeChannel>(serveFdFromArg(*fd));
        }
        std::unique_ptr<OpenRun> r = openRun(o, std::move(spec));
        if (serve) {
            Session& s = r->run->session();
            serve->run(r->run->id());
            s.setUserChannel(serve);
            s.setStepObserver([serve](const StepRecord& st) { serve->step(st); });
            s.setIntentObserver([serve](const std::string& text) { serve->intent(text); });
            // The person's input from the page, performed by the run's thread while it waits
            // for them or is paused at a step boundary (docs/serve-protocol.md §5.2).
            serve->setInputHandler([&s](const nlohmann::json& e) { return stepJson(performUserInput(s, e)); });
            s.setCheckpoint([&s, raw = serve.get()] { return raw->checkpoint(s.cancel()); });
            serve->setStopHandler([](const std::string&) { cancelAllFromSignal(SIGTERM); });
            // An X display's live screen is captured by the worker (X11 devices say false here);
            // any other device's by the run, which alone holds it (docs/serve-protocol.md §5.1).
            if (r->run->device().concurrentCapture())
                r->live = std::make_unique<server::LiveScreen>(
                    r->run->id(), r->run->device(), [raw = serve.get()](server::LiveFrame f) { raw->send(server::liveLine(f)); },
                    r->run->device().liveInterval());
            r->serve = std::move(serve);
        }
        return r;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "%s: %s\n", who, e.what());
        if (serve) serve->end("failed", std::string(who) + ": " + e.what());
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
    auto model = std::make_unique<ModelContext>(run.session(), std::move(client), cache_mode);
    // Healing (eacu run --heal, step{heal = true}): the similarity search, then the run's model
    // when it has one; the context lives with the host, which outlives the script's steps.
    auto healer = std::make_shared<ModelHealer>(model.get());
    // With --heal, the OCR engines a heal reads with are loaded while the script runs (a heal
    // would otherwise wait ~2 s for their models; docs/healing.md "Numbers").
    if (run.session().options().heal) healer->warmUp();
    run.session().setHealer(std::move(healer));
    luax_setmodel(host->state(), std::move(model));
    // App modules (scripts/<app>/init.lua) come first, then modules beside the script.
    host->addPackagePath(script_dir);
    host->addPackagePath((fs::path(eacuHome()) / "scripts").string());
    LuaHost* h = host.get();
    int64_t id = run.id();
    std::shared_ptr<ServeChannel> serve = r.serve;
    run.watch([h] { h->interrupt(); },
              [id, serve](const RunOutcome& o) {
                  std::fprintf(stderr, "eacu: run %lld %s: %s\n", (long long)id,
                               o.status == "timed_out" ? "timed out" : o.status.c_str(), firstLine(o.error).c_str());
                  std::fflush(stderr);
                  if (serve) serve->end(o.status, o.error);
                  Process::killAllChildren();
                  _exit(runExitCode(o.status));
              });
    return host;
}

int finishRun(OpenRun& r, const std::string& error, const std::string& what, bool verbose, const std::string& answer) {
    Run& run = *r.run;
    // The live screen first: it captures through the device the run's end closes.
    if (r.live) r.live->stop();
    RunOutcome o = run.finish(error);
    if (r.serve) {
        if (o.status == "passed" && !answer.empty()) r.serve->answer(answer);
        r.serve->end(o.status, o.error);
    }
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

#include "ScriptRun.h"

#include <csignal>
#include <filesystem>

#include <nlohmann/json.hpp>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "device/Device.h"
#include "device/virtual/VirtualDisplay.h"
#include "host/LuaHost.h"
#include "process/Process.h"
#include "base/Cancel.h"
#include "task/ModelContext.h"
#include "task/Session.h"
#include "vision/Locator.h"
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

RunContext openRunContext(const CliOptions& o) {
    RunContext c;
    c.log = std::make_unique<RunLog>(o.db.empty() ? RunLog::defaultPath() : o.db);
    c.assets = AssetLibrary::loadFrom(eacuHome());
    c.dev = openDevice(o.display);
    return c;
}

void installRunSignals() {
    std::signal(SIGINT, onSignal);
    std::signal(SIGTERM, onSignal);
}

RunRecord runRecordFor(const Device& device, const std::string& script,
                       const std::vector<std::string>& args) {
    RunRecord rec;
    rec.script = script;
    rec.args_json = nlohmann::json(args).dump();
    rec.device = device.describe();
    Size size = device.screenSize();
    rec.screen_w = size.w;
    rec.screen_h = size.h;
    rec.scale = device.scaleFactor();
    return rec;
}

std::string runScript(Device& device, const AssetLibrary& assets, const Locator& locator,
                      RunLog& log, int64_t run_id, const std::string& script,
                      const std::vector<std::string>& args,
                      std::unique_ptr<model::ModelClient> client, model::CacheMode cache_mode,
                      RunLimits limits) {
    SessionOptions so;
    so.script_dir = fs::path(script).parent_path().string();
    so.limits = limits;
    try {
        Session session(device, assets, locator, &log, run_id, so);
        LuaHost host(&session);
        luax_setmodel(host.state(), std::make_unique<ModelContext>(session, std::move(client), cache_mode));
        // App modules (scripts/<app>/init.lua) come first, then modules beside the script.
        host.addPackagePath(so.script_dir);
        host.addPackagePath((fs::path(eacuHome()) / "scripts").string());
        return host.runFile(script, args);
    } catch (const std::exception& e) {
        return e.what();
    }
}

}  // namespace eacu

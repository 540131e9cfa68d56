// What eacu run and eacu replay --mode script share: running a script as a recorded run.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "model/ModelClient.h"
#include "model/ResponseCache.h"
#include "record/RunLog.h"
#include "task/Limits.h"

#include "assets/AssetLibrary.h"
#include "Cli.h"

namespace eacu {

class Device;
class Locator;

/// What a command that drives a screen opens first: the run log (--db), the asset library
/// (EACU_HOME) and the device (--display).
struct RunContext {
    std::unique_ptr<RunLog> log;
    AssetLibrary assets;
    OpenDevice dev;
};

/// Opens a RunContext from a command's options. Throws what RunLog, AssetLibrary::loadFrom and
/// openDevice throw (each names what failed).
RunContext openRunContext(const CliOptions& o);

/// Installs SIGINT/SIGTERM handlers for a run: the first signal cancels the wait or locate in
/// flight (the run ends as "interrupted"); a second stops every child process and dies.
void installRunSignals();

/// A `runs` row for `script` (absolute path) with `args` run on `device`.
RunRecord runRecordFor(const Device& device, const std::string& script,
                       const std::vector<std::string>& args);

/// Runs `script` with `args` as run `run_id` of `log`: a Session on `device`, a LuaHost with
/// the model context (`client` may be null: then only cached answers can be served, per
/// `cache_mode`), app modules and the script's folder on package.path, and the run's `limits`.
/// Returns "" on success, else the error with its traceback.
std::string runScript(Device& device, const AssetLibrary& assets, const Locator& locator,
                      RunLog& log, int64_t run_id, const std::string& script,
                      const std::vector<std::string>& args,
                      std::unique_ptr<model::ModelClient> client, model::CacheMode cache_mode,
                      RunLimits limits = {kDefaultMaxActions, kDefaultMaxSeconds});

}  // namespace eacu

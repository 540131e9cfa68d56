// The one run set-up that run, run --task, repl, replay and bench share: the assets, the device
// named by --display, the Run (its log, limits, cancel token, deadline), the signals, the
// watchdog and the one-line outcome.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "assets/AssetLibrary.h"
#include "Cli.h"
#include "model/ModelClient.h"
#include "model/ResponseCache.h"
#include "server/LiveScreen.h"
#include "run/Run.h"
#include "run/ServeChannel.h"
#include "vision/Locator.h"

namespace eacu {

class LuaHost;

/// A run opened by a command, with what it uses (the assets and the locator outlive it), and
/// with --serve-fd the channel to `eacu serve` (docs/serve-protocol.md §1; null without it).
struct OpenRun {
    AssetLibrary assets;
    Locator locator;
    std::unique_ptr<Run> run;
    std::shared_ptr<ServeChannel> serve;
    /// Under --serve-fd, on a device that is not an X display and allows it
    /// (Device::concurrentCapture): the live screen sent as live lines. Destroyed first.
    std::unique_ptr<server::LiveScreen> live;
};

/// Opens the asset library (EACU_HOME), the device (--display) and the run log (--db), and
/// begins the run `spec` (its `db` defaults to --db). Throws what AssetLibrary::loadFrom,
/// openDevice and RunLog throw (each names what failed).
std::unique_ptr<OpenRun> openRun(const CliOptions& o, RunSpec spec);

/// The run's limits from --max-actions and --max-time (defaults: 80 actions, 480 s; 0 = none).
/// Throws std::invalid_argument for a bad value.
RunLimits limitsFromCli(const CliOptions& o);

/// Installs SIGINT/SIGTERM handlers for runs: the first signal cancels every run in the process
/// (waits stop, each run's watchdog interrupts its script; the run ends as "interrupted"); a
/// second one stops every child process and dies.
void installRunSignals();

/// installRunSignals, then openRun; when the run cannot be opened, prints "<who>: <why>" on
/// stderr and returns null (the command exits 1). For run, run --task and replay.
/// With --serve-fd N (checked by the command first, serveFdFromArg) the run speaks the worker
/// protocol on N: SIGPIPE is ignored, the run line goes out as soon as the run is open, the
/// channel becomes the session's user channel (confirm, ask_user, needs_user, click become
/// awaiting_user) and every committed step and intent is sent; the person's input lines are
/// performed on the session (run/UserInput.h), a take_over pauses it at its next step
/// boundary (Session::checkpoint) and a stop line ends it as SIGTERM does. When the run cannot be opened
/// the only line is {"type":"end","status":"failed","error":...}.
std::unique_ptr<OpenRun> startRun(const CliOptions& o, RunSpec spec, const char* who);

/// A LuaHost bound to `r`'s session, with the model context (`client` may be null: then only
/// cached answers are served, per `cache_mode`), `script_dir` and the app modules on
/// package.path. Starts the run's watchdog: on a cancellation (a signal, the deadline) it
/// interrupts the script, and if the script has not stopped 0.5 s later it ends the run
/// (interrupted or timed_out, launched programs and Xvfb stopped) and exits the process with
/// runExitCode(). Returns the host; run it with runFile/runString.
std::unique_ptr<LuaHost> hostForRun(OpenRun& r, const std::string& script_dir,
                                    std::unique_ptr<model::ModelClient> client, model::CacheMode cache_mode);

/// Ends the run with `error` ("" = passed), prints "eacu: run N passed (...)" or
/// "eacu: run N failed|interrupted|timed out: <first line>" (the whole error with `verbose`)
/// and returns the exit code: 0 passed, 1 failed or timed out, 128 + signal when a signal
/// interrupted it (130 for Ctrl-C, 143 for SIGTERM), 130 for another stop. `what` follows
/// "passed" in the passed line (" (12 steps, 3.1 s)"). With a serve channel: the answer line
/// (`answer`, when the run passed and it is not empty), then the end line.
int finishRun(OpenRun& r, const std::string& error, const std::string& what, bool verbose,
              const std::string& answer = "");

/// The exit code for a run's status (see finishRun).
int runExitCode(const std::string& status);

}  // namespace eacu

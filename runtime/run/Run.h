// A run as an object: its device, its run log, its limits, its cancel token and deadline, its
// session and the watchdog that finishes it from outside when it does not stop by itself.
// Nothing here is process-wide: two runs in one process, on two displays, go side by side and
// cancelling one leaves the other running.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "assets/AssetLibrary.h"
#include "base/Cancel.h"
#include "device/Device.h"
#include "device/DeviceFactory.h"
#include "runlog/RunLog.h"
#include "step/Session.h"
#include "vision/Locator.h"

namespace eacu {

/// What a run is: what it runs (`script`, an absolute path or a label such as "repl";
/// `args`), where it is recorded (`db`: the run log's path), its `limits` (0 = none), its
/// session settings (`session`; its `limits` and `cancel` are replaced by the run's own), and
/// for a replay the run it replays (`replay_of`, `replay_mode`).
struct RunSpec {
    std::string script;
    std::vector<std::string> args;
    std::string db;
    RunLimits limits;
    SessionOptions session;
    std::optional<int64_t> replay_of;
    std::string replay_mode;
};

/// How a run ended: `status` passed | failed | interrupted (a stop or a signal) | timed_out
/// (its deadline); `error` as recorded ("" when passed).
struct RunOutcome {
    std::string status;
    std::string error;
};

/// One run. Construction opens its run log (its own SQLite connection, so runs in several
/// threads do not share one), begins the `runs` row (status "running") and makes the session
/// on `device` with the run's limits and cancel token. Destruction ends the run ("failed" when
/// finish() was not called), stops the programs it launched, the watchdog, then the device
/// (and its Xvfb). Throws what RunLog throws (an unusable db path).
class Run {
public:
    /// `device`: from openDevice (device/DeviceFactory.h); the run owns it from now on.
    /// `log`: the run log already opened on spec.db (so that an unusable one fails before the
    /// device is opened, see openRun), or null to open it here.
    Run(DeviceHandle device, const AssetLibrary& assets, const Locator& locator, RunSpec spec,
        std::unique_ptr<RunLog> log = nullptr);
    ~Run();
    Run(const Run&) = delete;
    Run& operator=(const Run&) = delete;

    int64_t id() const { return id_; }
    RunLog& log() { return *log_; }
    Device& device() { return *device_.device; }
    Session& session() { return *session_; }
    /// The run's cancel token (shared with HTTP callbacks that may outlive a call).
    const std::shared_ptr<CancelToken>& token() const { return token_; }
    /// The X display's name (":99") programs the run launches are given; "" for an image device.
    std::string displayName() const;

    /// Cancels the run from any thread: every wait, sleep, locate loop and model call it is in
    /// stops with Cancelled; the watchdog interrupts its script. First reason wins.
    void cancel(const std::string& reason = "stopped");

    /// Ends the run: the status follows from `error` ("" = passed) and the token (cancelled:
    /// interrupted; past the deadline: timed_out; else failed). Writes it to the run log once
    /// (later calls return the first outcome). Thread-safe.
    RunOutcome finish(const std::string& error);
    /// True once finish() was called.
    bool finished() const { return finished_.load(); }

    /// Starts the watchdog (a thread of this run). Once the token is cancelled (a stop, a
    /// signal, the deadline), it calls `interrupt` (from the watchdog's thread: it must only
    /// ask the script to stop, e.g. set a Lua hook) and then, if the run has not finished
    /// within `grace` seconds, `stuck` with the outcome it recorded: the run is finished as
    /// interrupted or timed_out and its launched programs are stopped before `stuck` is called
    /// (which may end the process). Either callback may be empty.
    void watch(std::function<void()> interrupt, std::function<void(const RunOutcome&)> stuck, double grace = 0.5);

private:
    void watchdog(std::function<void()> interrupt, std::function<void(const RunOutcome&)> stuck, double grace);

    DeviceHandle device_;
    std::unique_ptr<RunLog> log_;
    std::shared_ptr<CancelToken> token_;
    int64_t id_ = 0;
    std::unique_ptr<Session> session_;
    std::atomic<bool> finished_{false};
    std::mutex finish_mu_;
    RunOutcome outcome_;
    std::mutex watch_mu_;
    std::condition_variable watch_cv_;
    bool stop_watch_ = false;
    std::thread watch_thread_;
};

/// A `runs` row for `script` with `args` run on `device`.
RunRecord runRecordFor(const Device& device, const std::string& script, const std::vector<std::string>& args);

}  // namespace eacu

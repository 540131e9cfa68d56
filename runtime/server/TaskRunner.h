// One task on one worker: its display (a private Xvfb, or the configured one), the programs
// launched on it, the worker process that runs the task as a run (`eacu run --task ...
// --serve-fd 3`) and the live screen. What they produce goes to a TaskSink: this server's
// store (a local worker) or Redis (`eacu worker` on another machine); the runner itself does
// not know which.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "server/ServeConfig.h"
#include "server/ServiceStore.h"
#include "server/TaskSink.h"

namespace eacu::server {

/// Runs one task to its end, reporting to `sink`. run() on the worker's thread; stop(), abort()
/// and sendLine() from any thread.
class TaskRunner {
public:
    TaskRunner(const ServeConfig& config, TaskRecord task, TaskSink& sink);
    ~TaskRunner();
    TaskRunner(const TaskRunner&) = delete;
    TaskRunner& operator=(const TaskRunner&) = delete;

    /// Runs the task and returns when it has ended and everything it started is stopped (its
    /// worker, its launched programs, its Xvfb). Reports running(), every worker line, the live
    /// frames and, last, ended() with the status (completed, failed, stopped, interrupted),
    /// answer and error. Never throws: a display that cannot start or a worker that cannot run
    /// fails the task with that reason.
    void run();
    /// Seconds a worker has to end after the stop line before it gets SIGTERM.
    static constexpr double kStopGrace = 5.0;

    /// Stops the task: the worker gets the stop line {"type":"stop","reason"} and, if it has
    /// not ended kStopGrace seconds later, SIGTERM (either way its run ends "interrupted");
    /// then run() stops the rest and records the task as stopped (task.stopped), or, with a `reason` (the server
    /// is shutting down), as interrupted (task.failed "interrupted: <reason>"). Idempotent.
    void stop(const std::string& reason = "");
    /// Ends the run at once (SIGKILL to the worker's process group: no further input), e.g.
    /// when this machine lost its lease on the task. The task ends as `interrupted: <reason>`.
    void abort(const std::string& reason);
    /// Sends one protocol line (a JSON object, no '\n') to the worker: an ack, take_over,
    /// hand_back, input (docs/serve-protocol.md §5.2). A line sent before the worker process
    /// runs (its display and programs may still be starting) is kept and written, in order, as
    /// soon as it does; one sent after the run ended is dropped.
    void sendLine(const std::string& line);
    /// Sends `line` only when the run process runs now; dropped otherwise (a lease line must
    /// not be kept for later: the seconds it names would be stale).
    void sendNow(const std::string& line);
    /// The X display the task runs on ("" before it started).
    std::string display() const;

private:
    struct Exec;
    void execute(Exec& x);
    void onWorkerLine(Exec& x, const std::string& line);
    // Writes `line` ('\n'-terminated) to fd_; mu_ held.
    void writeLocked(const std::string& line);

    const ServeConfig& config_;
    TaskRecord task_;
    TaskSink& sink_;
    std::atomic<bool> stopped_{false};
    std::string interrupt_reason_;  // guarded by mu_
    mutable std::mutex mu_;  // guards fd_, worker_pid_, display_, pending_, closed_, stop_sent_at_
    int fd_ = -1;            // our end of the worker's socketpair
    std::vector<std::string> pending_;  // lines sent before the worker ran
    bool closed_ = false;    // the run has ended: lines are dropped
    int worker_pid_ = 0;
    double stop_sent_at_ = 0;  // monotonic seconds the stop line went to the worker; 0: not yet
    std::string display_;
};

}  // namespace eacu::server

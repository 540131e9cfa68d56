// One task on one worker: its display (a private Xvfb, or the configured one), the programs
// launched on it, the worker process that runs the task as a run (`eacu run --task ...
// --serve-fd 3`), the live screen, and the events the task's stream gets from all of them.
#pragma once
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ServeConfig.h"
#include "server/ServiceStore.h"

namespace eacu::server {

/// Runs one task (a TaskRecord of the store) to its end. run() on the worker's thread;
/// stop() and ack() from any thread.
class TaskRunner {
public:
    TaskRunner(ServiceStore& store, const ServeConfig& config, TaskRecord task);
    ~TaskRunner();
    TaskRunner(const TaskRunner&) = delete;
    TaskRunner& operator=(const TaskRunner&) = delete;

    /// Runs the task and returns when it has ended and everything it started is stopped (its
    /// worker, its launched programs, its Xvfb). Records the task's status (completed, failed,
    /// stopped), answer and error, the assistant's message and the final event. Never throws:
    /// a display that cannot start or a worker that cannot run fails the task with that reason.
    void run();
    /// Stops the task: the worker gets SIGTERM (its run ends "interrupted"), then run() stops
    /// the rest and records the task as stopped (task.stopped), or, with a `reason` (the server
    /// is shutting down), as interrupted (task.failed "interrupted: <reason>"). Idempotent.
    void stop(const std::string& reason = "");
    /// Answers the task's awaiting_user with `text` ("我已经操作" for the ack button). Returns
    /// false (nothing sent) when the task is not waiting for the person.
    bool ack(const std::string& text);
    /// The X display the task runs on ("" before it started).
    std::string display() const;

private:
    struct Exec;
    void execute(Exec& x);
    void onWorkerLine(Exec& x, const std::string& line);
    void progress(Exec& x, const nlohmann::json& step);
    void finish(const std::string& status, const std::string& answer, const std::string& error);
    void send(const nlohmann::json& msg);

    ServiceStore& store_;
    const ServeConfig& config_;
    TaskRecord task_;
    std::atomic<bool> stopped_{false};
    std::string interrupt_reason_;  // guarded by mu_
    std::atomic<bool> awaiting_{false};
    mutable std::mutex mu_;  // guards fd_, worker_pid_, display_
    int fd_ = -1;            // our end of the worker's socketpair
    int worker_pid_ = 0;
    std::string display_;
};

}  // namespace eacu::server

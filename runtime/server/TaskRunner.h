// One task on one worker: its display (a private Xvfb, or the configured one), the programs
// launched on it, the worker process that runs the task as a run (`eacu run --task ...
// --serve-fd 3`), the live screen, and the events the task's stream gets from all of them.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ServeConfig.h"
#include "server/ServiceStore.h"

namespace eacu::server {

/// What the worker did with one input event of the person (docs/serve-protocol.md §5.2):
/// `done` with the step it recorded (stepJson), or refused with `reason`; `seq` the number the
/// input line carried (0 when none was sent).
struct InputOutcome {
    bool done = false;
    int64_t seq = 0;
    nlohmann::json step;
    std::string reason;
};

/// Runs one task (a TaskRecord of the store) to its end. run() on the worker's thread;
/// stop(), ack(), takeOver(), handBack() and input() from any thread. The per-task operations
/// only send §5.2 lines to the worker and read its answers, so a remote runner implements them
/// by forwarding the same lines.
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
    /// The person takes the screen: sends take_over (at once, or as soon as the worker has
    /// started); the run pauses at its next step boundary (then task.paused is published).
    /// False (nothing sent) when the task is stopped, awaits the person, or is taken over
    /// already.
    bool takeOver();
    /// Gives the screen back after takeOver(): sends hand_back (the run resumes: task.resumed).
    /// False when the task is not taken over.
    bool handBack();
    /// Sends the person's input `event` ({kind, x, y, ...}) and waits up to `timeout` seconds
    /// for the worker to inject and record it. Refused at once (`reason` says why) when the
    /// task neither awaits the person nor is paused by a take-over, or when the worker is gone.
    InputOutcome input(const nlohmann::json& event, double timeout = 15.0);
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
    std::atomic<bool> taking_over_{false};  // take_over sent, paused not yet seen
    std::atomic<bool> paused_{false};       // the worker said paused
    std::mutex input_mu_;                   // guards inputs_, next_seq_, ended_
    std::condition_variable input_cv_;
    std::map<int64_t, std::optional<InputOutcome>> inputs_;  // seq -> its answer, once it came
    int64_t next_seq_ = 0;
    bool ended_ = false;                    // the worker closed its end
    mutable std::mutex mu_;  // guards fd_, worker_pid_, display_
    int fd_ = -1;            // our end of the worker's socketpair
    int worker_pid_ = 0;
    std::string display_;
};

}  // namespace eacu::server

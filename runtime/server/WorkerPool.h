// N workers taking tasks from a TaskQueue, each running one task at a time (a TaskRunner), and
// the registry of the running tasks that stop and ack reach.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "server/ServeConfig.h"
#include "server/ServiceStore.h"
#include "server/TaskEvents.h"
#include "server/TaskQueue.h"

namespace eacu::server {

class TaskRunner;

/// The workers of one server. Threads start in the constructor and end in shutdown() or the
/// destructor (running tasks are stopped first).
class WorkerPool {
public:
    /// `config.workers` threads popping `queue` (none for 0: every task runs on a remote worker).
    WorkerPool(ServiceStore& store, const ServeConfig& config, TaskQueue& queue);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Stops the task: a queued one leaves the queue (status stopped, task.stopped), a running
    /// one is stopped by its runner. Returns false when the task is neither queued nor running.
    bool stop(int64_t task_id);
    /// Passes the person's answer to a task that awaits it (or is paused by a take-over).
    /// False when it does not. The person's operations (ack, takeOver, handBack, input) are
    /// TaskEvents' (the same for remote tasks), sending their lines through the task's
    /// TaskRunner::sendLine.
    bool ack(int64_t task_id, const std::string& text);
    /// The person takes the screen of a running task (TaskEvents::takeOver). False when it is
    /// not running here, awaits the person or is taken over already.
    bool takeOver(int64_t task_id);
    /// Gives it back (TaskEvents::handBack). False when the task is not taken over.
    bool handBack(int64_t task_id);
    /// Passes one input event of the person to the task's run and waits up to `timeout` s for
    /// its answer (TaskEvents::input). Refused with a reason when the task is not running here.
    InputOutcome input(int64_t task_id, const nlohmann::json& event, double timeout = 15.0);
    /// True when the task runs on one of this pool's workers.
    bool runs(int64_t task_id) const;
    /// The display a running task uses ("" when it is not running).
    std::string displayOf(int64_t task_id);
    /// How many tasks run now.
    size_t running() const;
    /// Stops every running task, closes the queue and joins the threads (idempotent).
    void shutdown();

private:
    void work();
    struct Running;
    // The running task `task_id` (false when it is not running here).
    bool find(int64_t task_id, Running& out) const;

    ServiceStore& store_;
    const ServeConfig& config_;
    TaskQueue& queue_;
    std::atomic<bool> stopping_{false};
    mutable std::mutex mu_;
    struct Running {
        std::shared_ptr<TaskEvents> events;
        std::shared_ptr<TaskRunner> runner;
    };
    std::map<int64_t, Running> running_;
    std::set<int64_t> stop_requested_;  // popped but not yet registered when the stop came
    std::vector<std::thread> threads_;
};

}  // namespace eacu::server

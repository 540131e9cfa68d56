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
#include "server/TaskQueue.h"
#include "server/TaskRunner.h"

namespace eacu::server {


/// The workers of one server. Threads start in the constructor and end in shutdown() or the
/// destructor (running tasks are stopped first).
class WorkerPool {
public:
    /// `config.workers` threads (at least 1) popping `queue`.
    WorkerPool(ServiceStore& store, const ServeConfig& config, TaskQueue& queue);
    ~WorkerPool();
    WorkerPool(const WorkerPool&) = delete;
    WorkerPool& operator=(const WorkerPool&) = delete;

    /// Stops the task: a queued one leaves the queue (status stopped, task.stopped), a running
    /// one is stopped by its runner. Returns false when the task is neither queued nor running.
    bool stop(int64_t task_id);
    /// Passes the person's answer to a task that awaits it. False when it does not.
    bool ack(int64_t task_id, const std::string& text);
    /// The person takes the screen of a running task (TaskRunner::takeOver). False when it is
    /// not running, awaits the person or is taken over already.
    bool takeOver(int64_t task_id);
    /// Gives it back (TaskRunner::handBack). False when the task is not taken over.
    bool handBack(int64_t task_id);
    /// Passes one input event of the person to the task's run and waits for its answer
    /// (TaskRunner::input). Refused with a reason when the task is not running.
    InputOutcome input(int64_t task_id, const nlohmann::json& event);
    /// The display a running task uses ("" when it is not running).
    std::string displayOf(int64_t task_id);
    /// How many tasks run now.
    size_t running() const;
    /// Stops every running task, closes the queue and joins the threads (idempotent).
    void shutdown();

private:
    void work();
    // The runner of a running task (null when it is not running).
    std::shared_ptr<TaskRunner> runnerOf(int64_t task_id) const;

    ServiceStore& store_;
    const ServeConfig& config_;
    TaskQueue& queue_;
    std::atomic<bool> stopping_{false};
    mutable std::mutex mu_;
    std::map<int64_t, std::shared_ptr<TaskRunner>> running_;
    std::set<int64_t> stop_requested_;  // popped but not yet registered when the stop came
    std::vector<std::thread> threads_;
};

}  // namespace eacu::server

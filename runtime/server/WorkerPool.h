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

namespace eacu::server {

class TaskEvents;
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
    /// Passes the person's answer to a task that awaits it. False when it does not.
    bool ack(int64_t task_id, const std::string& text);
    /// The display a running task uses ("" when it is not running).
    std::string displayOf(int64_t task_id);
    /// How many tasks run now.
    size_t running() const;
    /// Stops every running task, closes the queue and joins the threads (idempotent).
    void shutdown();

private:
    void work();

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

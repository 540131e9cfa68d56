// The queue of tasks waiting for a worker. An interface, so that workers on other machines can
// take tasks from a shared queue (e.g. Redis Streams) instead of this process's memory.
#pragma once
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>

namespace eacu::server {

/// Task ids waiting for a worker, first in first out.
class TaskQueue {
public:
    virtual ~TaskQueue() = default;
    /// Appends a task id.
    virtual void push(int64_t task_id) = 0;
    /// Waits up to `timeout` seconds for a task id; nullopt on timeout or once closed.
    virtual std::optional<int64_t> pop(double timeout) = 0;
    /// Removes a task that is still waiting (a stop before it started). True if it was there.
    virtual bool remove(int64_t task_id) = 0;
    /// How many tasks wait.
    virtual size_t size() const = 0;
    /// Wakes every pop() for good.
    virtual void close() = 0;
};

/// The queue in this process's memory (one machine).
class LocalTaskQueue : public TaskQueue {
public:
    void push(int64_t task_id) override;
    std::optional<int64_t> pop(double timeout) override;
    bool remove(int64_t task_id) override;
    size_t size() const override;
    void close() override;

private:
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::deque<int64_t> q_;
    bool closed_ = false;
};

}  // namespace eacu::server

// The TaskQueue of a server whose tasks run on other machines (`eacu serve --queue redis://`):
// push() puts the task on the Redis task stream. TaskQueue's pop() hands a task to a local
// thread with no commit point and no lease, which does not fit a task that any machine may
// take: so no local worker pops this queue (--workers 0); workers are `eacu worker`
// processes, which take, commit and run tasks themselves (RemoteWorker).
#pragma once
#include "server/RemoteTasks.h"
#include "server/TaskQueue.h"

namespace eacu::server {

class RedisTaskQueue : public TaskQueue {
public:
    explicit RedisTaskQueue(RemoteTasks& remote) : remote_(remote) {}
    /// RemoteTasks::enqueue.
    void push(int64_t task_id) override { remote_.enqueue(task_id); }
    /// Never hands out a task (no local worker takes from Redis): waits `timeout` or until
    /// close(), then nullopt.
    std::optional<int64_t> pop(double timeout) override;
    /// RemoteTasks::stopQueued.
    bool remove(int64_t task_id) override { return remote_.stopQueued(task_id); }
    /// RemoteTasks::queued (0 when Redis cannot be reached).
    size_t size() const override;
    void close() override;

private:
    RemoteTasks& remote_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    bool closed_ = false;
};

}  // namespace eacu::server

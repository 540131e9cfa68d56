#include "server/TaskQueue.h"

#include <algorithm>
#include <chrono>

namespace eacu::server {

void LocalTaskQueue::push(int64_t task_id) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        q_.push_back(task_id);
    }
    cv_.notify_one();
}

std::optional<int64_t> LocalTaskQueue::pop(double timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return closed_ || !q_.empty(); });
    if (closed_ || q_.empty()) return std::nullopt;
    int64_t id = q_.front();
    q_.pop_front();
    return id;
}

bool LocalTaskQueue::remove(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = std::find(q_.begin(), q_.end(), task_id);
    if (it == q_.end()) return false;
    q_.erase(it);
    return true;
}

size_t LocalTaskQueue::size() const {
    std::lock_guard<std::mutex> lock(mu_);
    return q_.size();
}

void LocalTaskQueue::close() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
    }
    cv_.notify_all();
}

}  // namespace eacu::server

#include "server/RedisTaskQueue.h"

#include <chrono>

namespace eacu::server {

std::optional<int64_t> RedisTaskQueue::pop(double timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, std::chrono::duration<double>(timeout), [&] { return closed_; });
    return std::nullopt;
}

size_t RedisTaskQueue::size() const {
    try {
        return remote_.queued();
    } catch (const std::exception&) {
        return 0;
    }
}

void RedisTaskQueue::close() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
    }
    cv_.notify_all();
}

}  // namespace eacu::server

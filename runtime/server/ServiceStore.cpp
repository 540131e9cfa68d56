#include "server/ServiceStore.h"

#include <chrono>

#include "base/Clock.h"

namespace eacu::server {

ServiceStore::ServiceStore(const std::string& db_path) : path_(db_path), log_(std::make_unique<ServiceLog>(db_path)) {}

int64_t ServiceStore::publish(const TaskRecord& task, const std::string& type, nlohmann::json data) {
    const double now = wallSeconds();
    data["task_id"] = task.id;
    data["time"] = now;
    int64_t id;
    {
        std::lock_guard<std::mutex> lock(mu_);
        EventRecord e;
        e.session_id = task.session_id;
        e.task_id = task.id;
        e.type = type;
        e.data = data.dump();
        e.created_at = now;
        id = log_->addEvent(e);
        last_event_[task.session_id] = id;
    }
    cv_.notify_all();
    return id;
}

void ServiceStore::setLive(int64_t session_id, LiveFrame frame) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = live_.find(frame.task_id);
        frame.seq = it == live_.end() ? 1 : it->second->seq + 1;
        const int64_t task = frame.task_id;
        live_[task] = std::make_shared<const LiveFrame>(std::move(frame));
        live_session_[task] = session_id;
    }
    cv_.notify_all();
}

std::shared_ptr<const LiveFrame> ServiceStore::live(int64_t task_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = live_.find(task_id);
    return it == live_.end() ? nullptr : it->second;
}

void ServiceStore::dropLive(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    live_.erase(task_id);
    live_session_.erase(task_id);
}

StreamBatch ServiceStore::collect(int64_t session_id, int64_t after_id, std::map<int64_t, int64_t>& live_seen) {
    StreamBatch b;
    auto last = last_event_.find(session_id);
    // The newest id is known for sessions that published since the start; older history is
    // read from the file once (after_id 0 or a resumed stream).
    if (last == last_event_.end() || last->second > after_id) {
        b.events = log_->eventsOf(session_id, after_id);
        int64_t newest = b.events.empty() ? after_id : b.events.back().id;
        if (last == last_event_.end() || last->second < newest) last_event_[session_id] = newest;
    }
    for (auto& [task, session] : live_session_) {
        if (session != session_id) continue;
        auto& f = live_.at(task);
        int64_t& seen = live_seen[task];
        if (f->seq > seen) {
            seen = f->seq;
            b.live.push_back(f);
        }
    }
    return b;
}

StreamBatch ServiceStore::waitForSession(int64_t session_id, int64_t after_id, std::map<int64_t, int64_t>& live_seen,
                                         double timeout) {
    std::unique_lock<std::mutex> lock(mu_);
    auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout);
    for (;;) {
        StreamBatch b = collect(session_id, after_id, live_seen);
        if (!b.events.empty() || !b.live.empty() || closed_) return b;
        if (cv_.wait_until(lock, deadline) == std::cv_status::timeout) return collect(session_id, after_id, live_seen);
    }
}

void ServiceStore::close() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        closed_ = true;
    }
    cv_.notify_all();
}

bool ServiceStore::closed() const {
    std::lock_guard<std::mutex> lock(mu_);
    return closed_;
}

}  // namespace eacu::server

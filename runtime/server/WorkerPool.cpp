#include "server/WorkerPool.h"

#include "server/TaskRunner.h"

namespace eacu::server {

WorkerPool::WorkerPool(ServiceStore& store, const ServeConfig& config, TaskQueue& queue)
    : store_(store), config_(config), queue_(queue) {
    for (int i = 0; i < std::max(1, config.workers); ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::work() {
    while (!stopping_) {
        auto id = queue_.pop(0.5);
        if (!id) continue;
        auto task = store_.with([&](ServiceLog& log) { return log.task(*id); });
        if (!task || task->status != "queued") continue;  // stopped while it waited
        auto runner = std::make_shared<TaskRunner>(store_, config_, *task);
        bool stop_now;
        {
            std::lock_guard<std::mutex> lock(mu_);
            running_[*id] = runner;
            stop_now = stop_requested_.erase(*id) > 0;
        }
        if (stop_now) runner->stop();
        if (stopping_) runner->stop("the server was stopped");
        runner->run();
        std::lock_guard<std::mutex> lock(mu_);
        running_.erase(*id);
    }
}

bool WorkerPool::stop(int64_t task_id) {
    if (queue_.remove(task_id)) {
        auto task = store_.with([&](ServiceLog& log) {
            log.endTask(task_id, "stopped", "", "");
            return log.task(task_id);
        });
        if (task) store_.publish(*task, "task.stopped", nlohmann::json::object());
        return true;
    }
    std::shared_ptr<TaskRunner> r;
    {
        std::lock_guard<std::mutex> lock(mu_);
        auto it = running_.find(task_id);
        if (it == running_.end()) {
            // Taken from the queue by a worker that has not registered it yet: it stops on start.
            auto t = store_.with([&](ServiceLog& log) { return log.task(task_id); });
            if (!t || t->status != "queued") return false;
            stop_requested_.insert(task_id);
            return true;
        }
        r = it->second;
    }
    r->stop();
    return true;
}

std::shared_ptr<TaskRunner> WorkerPool::runnerOf(int64_t task_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(task_id);
    return it == running_.end() ? nullptr : it->second;
}

bool WorkerPool::ack(int64_t task_id, const std::string& text) {
    auto r = runnerOf(task_id);
    return r && r->ack(text);
}

bool WorkerPool::takeOver(int64_t task_id) {
    auto r = runnerOf(task_id);
    return r && r->takeOver();
}

bool WorkerPool::handBack(int64_t task_id) {
    auto r = runnerOf(task_id);
    return r && r->handBack();
}

InputOutcome WorkerPool::input(int64_t task_id, const nlohmann::json& event) {
    auto r = runnerOf(task_id);
    if (!r) return InputOutcome{false, 0, nlohmann::json(), "the task is not running"};
    return r->input(event);
}

std::string WorkerPool::displayOf(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(task_id);
    return it == running_.end() ? std::string() : it->second->display();
}

size_t WorkerPool::running() const {
    std::lock_guard<std::mutex> lock(mu_);
    return running_.size();
}

void WorkerPool::shutdown() {
    if (stopping_.exchange(true)) {
        for (auto& t : threads_)
            if (t.joinable()) t.join();
        return;
    }
    queue_.close();
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, r] : running_) r->stop("the server was stopped");
    }
    for (auto& t : threads_)
        if (t.joinable()) t.join();
}

}  // namespace eacu::server

#include "server/WorkerPool.h"

#include "server/TaskEvents.h"
#include "server/TaskRunner.h"

namespace eacu::server {

WorkerPool::WorkerPool(ServiceStore& store, const ServeConfig& config, TaskQueue& queue)
    : store_(store), config_(config), queue_(queue) {
    for (int i = 0; i < config.workers; ++i) threads_.emplace_back([this] { work(); });
}

WorkerPool::~WorkerPool() { shutdown(); }

void WorkerPool::work() {
    while (!stopping_) {
        auto id = queue_.pop(0.5);
        if (!id) continue;
        auto task = store_.with([&](ServiceLog& log) { return log.task(*id); });
        if (!task || task->status != "queued") continue;  // stopped while it waited
        auto events = std::make_shared<TaskEvents>(store_, *task);
        auto runner = std::make_shared<TaskRunner>(config_, *task, *events);
        bool stop_now;
        {
            std::lock_guard<std::mutex> lock(mu_);
            running_[*id] = {events, runner};
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
        r = it->second.runner;
    }
    r->stop();
    return true;
}

bool WorkerPool::find(int64_t task_id, Running& out) const {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(task_id);
    if (it == running_.end()) return false;
    out = it->second;
    return true;
}

namespace {

// How the person's lines reach a local task: its runner's socketpair (kept until it runs).
TaskEvents::SendLine sendTo(const std::shared_ptr<TaskRunner>& runner) {
    return [runner](const std::string& line) { runner->sendLine(line); };
}

}  // namespace

bool WorkerPool::ack(int64_t task_id, const std::string& text) {
    Running r;
    return find(task_id, r) && r.events->ack(text, sendTo(r.runner));
}

bool WorkerPool::takeOver(int64_t task_id) {
    Running r;
    return find(task_id, r) && r.events->takeOver(sendTo(r.runner));
}

bool WorkerPool::handBack(int64_t task_id) {
    Running r;
    return find(task_id, r) && r.events->handBack(sendTo(r.runner));
}

InputOutcome WorkerPool::input(int64_t task_id, const nlohmann::json& event, double timeout) {
    Running r;
    if (!find(task_id, r)) return InputOutcome{false, 0, nlohmann::json(), "the task is not running"};
    return r.events->input(event, timeout, sendTo(r.runner));
}

bool WorkerPool::runs(int64_t task_id) const {
    std::lock_guard<std::mutex> lock(mu_);
    return running_.count(task_id) > 0;
}

std::string WorkerPool::displayOf(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = running_.find(task_id);
    return it == running_.end() ? std::string() : it->second.runner->display();
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
        for (auto& [id, r] : running_) r.runner->stop("the server was stopped");
    }
    for (auto& t : threads_)
        if (t.joinable()) t.join();
}

}  // namespace eacu::server

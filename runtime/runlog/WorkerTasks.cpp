#include "runlog/WorkerTasks.h"

#include "base/Clock.h"
#include "runlog/Statement.h"

namespace eacu {

WorkerTasks::WorkerTasks(const std::string& path) : RunReader(path, true) {}

void WorkerTasks::started(const std::string& queue, int64_t task_id, int64_t run_id, const std::string& worker) {
    try {
        Statement q(db(),
                    "INSERT OR REPLACE INTO worker_tasks(queue, task_id, run_id, worker, state, updated_at) "
                    "VALUES(?, ?, ?, ?, 'running', ?)");
        q.bind(1, queue).bind(2, task_id).bind(3, run_id).bind(4, worker).bind(5, wallSeconds());
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void WorkerTasks::setState(const std::string& queue, int64_t task_id, const std::string& state) {
    try {
        Statement q(db(), "UPDATE worker_tasks SET state = ?, updated_at = ? WHERE queue = ? AND task_id = ?");
        q.bind(1, state).bind(2, wallSeconds()).bind(3, queue).bind(4, task_id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<WorkerTaskRecord> WorkerTasks::undelivered(const std::string& queue) const {
    std::vector<WorkerTaskRecord> out;
    try {
        Statement q(db(),
                    "SELECT queue, task_id, run_id, worker, state, updated_at FROM worker_tasks "
                    "WHERE queue = ? AND state = 'running' ORDER BY updated_at, task_id");
        q.bind(1, queue);
        while (q.step()) out.push_back({q.text(0), q.integer(1), q.integer(2), q.text(3), q.text(4), q.real(5)});
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return out;
}

}  // namespace eacu

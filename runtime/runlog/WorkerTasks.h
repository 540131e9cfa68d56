// The worker's own record of the tasks it ran from a Redis queue (`eacu worker`, issue 36 item 4):
// for each task its run in this run log and whether that run reached the server, so a worker
// restarted on the same run log sends the runs it never delivered (those of tasks the server
// declared lost) once, and never twice.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "runlog/RunReader.h"

namespace eacu {

/// One row of `worker_tasks`. `state`: running (the run is not delivered yet) | delivered (the
/// task's end and run were recorded by the server) | sent_home (the run of a lost task was sent)
/// | unsendable (the run could not be exported; `why` in no column: the worker says it).
struct WorkerTaskRecord {
    std::string queue;  // HOST:PORT/DB of the Redis
    int64_t task_id = 0;
    int64_t run_id = 0;
    std::string worker;
    std::string state;
    double updated_at = 0;
};

/// The worker_tasks table of a run log, on a connection of its own (one per thread).
/// Throws std::runtime_error("run log <path>: ...") as RunReader does.
class WorkerTasks : public RunReader {
public:
    explicit WorkerTasks(const std::string& path);

    /// Records that task `task_id` of `queue` runs as run `run_id` here, not delivered yet
    /// (state running). A row of the same task (a task run again after its keys expired) is
    /// replaced.
    void started(const std::string& queue, int64_t task_id, int64_t run_id, const std::string& worker);
    /// Sets the state of the task's row (delivered, sent_home, unsendable); no row: nothing.
    void setState(const std::string& queue, int64_t task_id, const std::string& state);
    /// The rows of `queue` in state running, oldest first: runs this run log holds that the
    /// server has not got.
    std::vector<WorkerTaskRecord> undelivered(const std::string& queue) const;
};

}  // namespace eacu

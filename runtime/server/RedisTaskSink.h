// The TaskSink of a task run by `eacu worker`: everything the task's TaskRunner reports goes to
// the task's Redis events stream (docs/serve-protocol.md §5.1, §6), for the server to relay:
// worker lines unchanged, live frames by reference (a JPEG under a key with a time-to-live),
// and the end through the end script (recorded only while the task is still this worker's).
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>

#include "runlog/RunReader.h"
#include "server/RedisClient.h"
#include "server/TaskSink.h"

namespace eacu::server {

/// Thread-safe (line/running/ended from the runner's thread, live from the live screen's).
class RedisTaskSink : public TaskSink {
public:
    /// `leased()` tells whether the worker still holds its lease: while Redis cannot be
    /// reached, writes are retried (with backoff) only as long as it does; afterwards they are
    /// dropped (the run is being aborted and the server ends the task `lost`).
    /// `run_log`: the worker's run log, from which a step line's frames are put on Redis
    /// before the line (frameKey, for the events TTL).
    RedisTaskSink(const RedisUrl& url, int64_t task_id, std::string worker, double events_ttl,
                  std::function<bool()> leased, std::string run_log);

    void running() override;
    void line(const std::string& line) override;
    void live(LiveFrame frame) override;
    void ended(const std::string& status, const std::string& answer, const std::string& error) override;

    /// The sink of a task an earlier process of this worker ran as run `run_id` of `run_log` and
    /// never delivered (runlog/WorkerTasks): nothing to report, its run to be sent home
    /// (homePending() is true).
    static std::unique_ptr<RedisTaskSink> leftOver(const RedisUrl& url, int64_t task_id, int64_t run_id,
                                                   std::string worker, double events_ttl,
                                                   std::function<bool()> leased, std::string run_log);

    /// True after ended() when the end was not recorded because the task is no longer this
    /// worker's (the server declared it lost) or Redis could not be reached before the lease
    /// ran out, and the task had a run: that run is to be sent home (sendHome).
    bool homePending() const { return home_pending_; }
    /// Sends the run once: its copy under runKey and an entry on kRunsHome for the server to
    /// import it marked lost, and records it as sent in the run log (WorkerTasks), so a restarted
    /// worker does not send it again. Nothing of the task's input is resumed. Returns true when sent (or
    /// nothing is pending), false when Redis could not be reached while the lease held (try
    /// again later).
    bool sendHome();
    int64_t taskId() const { return task_id_; }

private:
    // Runs `args` until it succeeds or the lease is gone (then false); the reply in `out`.
    bool write(const std::vector<std::string>& args, RedisReply* out = nullptr);
    // Exports the run and puts it under runKey; the key, or "" when it could not.
    std::string putRun(std::string* error);
    // Puts the frames a step line names on Redis; at the run line, records the run (WorkerTasks).
    void copyFrames(const std::string& line);
    // Sets the task's state in the run log's worker_tasks (a failure is said, not thrown).
    void record(const std::string& state);

    RedisUrl url_;
    int64_t task_id_;
    std::string worker_;
    double events_ttl_;
    std::function<bool()> leased_;
    std::string run_log_;
    std::unique_ptr<RunReader> reader_;  // opened at the first step with a frame
    std::mutex mu_;
    std::unique_ptr<RedisClient> client_;  // null while disconnected
    int64_t live_seq_ = 0;
    int64_t run_id_ = 0;  // from the run line: the run copied at the end
    bool home_pending_ = false;
};

}  // namespace eacu::server

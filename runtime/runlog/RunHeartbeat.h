// The heartbeat of an open run: a thread that refreshes runs.heartbeat_at every
// kRunHeartbeatSeconds, so that readers on another host can tell a run that still runs from
// one whose process died (RunLiveness.h).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

struct sqlite3;

namespace eacu {

/// Refreshes heartbeat_at of run `run_id` in the run log at `path` every `period` seconds
/// from a thread of its own, on a connection of its own (so the run's connection stays
/// single-threaded), until destroyed or the run's status is no longer "running". One beat is
/// one small UPDATE transaction (microseconds; it waits at most 1 s for another writer's lock).
/// A beat that fails (a locked or full disk) is skipped and the next one tries again: the
/// heartbeat never ends a run. Never throws from the thread.
class RunHeartbeat {
public:
    /// Throws std::runtime_error("run log <path>: heartbeat: <sqlite message>") when the file
    /// cannot be opened.
    RunHeartbeat(const std::string& path, int64_t run_id, double period);
    /// Stops the thread (waits for a beat in flight) and closes its connection.
    ~RunHeartbeat();
    RunHeartbeat(const RunHeartbeat&) = delete;
    RunHeartbeat& operator=(const RunHeartbeat&) = delete;

    int64_t runId() const { return run_id_; }

private:
    void loop();

    sqlite3* db_ = nullptr;
    int64_t run_id_;
    double period_;
    std::mutex mu_;
    std::condition_variable cv_;
    bool stop_ = false;
    std::thread thread_;
};

}  // namespace eacu

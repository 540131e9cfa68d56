// The service's state as the HTTP handlers and the workers share it: the run log's sessions,
// tasks, messages and events behind one lock, a condition that wakes event streams, and the
// latest live frame of each running task (kept in memory only).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runlog/ServiceLog.h"

namespace eacu::server {

/// The newest screen.live frame of a task: a JPEG of the screen with the pointer marked, and the
/// same bytes in base64 (encoded once, for every stream that sends it).
/// `width`, `height`: physical pixels; cursor: physical pixels (-1 when unknown); `time`:
/// Unix seconds; `seq` counts the task's frames from 1. `marked`: the pointer is drawn in the
/// JPEG (encodeLiveFrame); false for a device's own JPEG passed on undecoded (passLiveFrame),
/// on which the page draws its ring at the cursor itself.
struct LiveFrame {
    int64_t task_id = 0;
    int64_t seq = 0;
    std::vector<unsigned char> jpeg;
    std::string jpeg_base64;
    int width = 0, height = 0;
    int cursor_x = -1, cursor_y = -1;
    double time = 0;
    bool marked = true;
};

/// What a stream gets when it wakes: the persisted events after its last id, and live frames
/// newer than those it has sent.
struct StreamBatch {
    std::vector<EventRecord> events;
    std::vector<std::shared_ptr<const LiveFrame>> live;
};

/// Thread-safe access to the service's part of the run log. Every method may throw what
/// ServiceLog throws.
class ServiceStore {
public:
    /// Opens (creating or migrating) the run log at `db_path`.
    explicit ServiceStore(const std::string& db_path);

    const std::string& path() const { return path_; }

    /// Runs `f(ServiceLog&)` under the lock and returns its result (reads and plain writes).
    template <class F>
    auto with(F&& f) {
        std::lock_guard<std::mutex> lock(mu_);
        return f(*log_);
    }

    /// Persists an event of `type` for `task` with `data` (task_id and time are added), wakes
    /// the streams and returns its id.
    int64_t publish(const TaskRecord& task, const std::string& type, nlohmann::json data);

    /// Replaces the task's live frame (its seq is set here) and wakes the streams.
    void setLive(int64_t session_id, LiveFrame frame);
    /// The task's newest live frame, or null.
    std::shared_ptr<const LiveFrame> live(int64_t task_id) const;
    /// Forgets the task's live frame (its run ended).
    void dropLive(int64_t task_id);

    /// Waits until `session_id` has events with id > `after_id` or live frames newer than
    /// `live_seen` (task id → seq; updated here), or `timeout` seconds pass, or close() is
    /// called. Returns what is new (possibly nothing).
    StreamBatch waitForSession(int64_t session_id, int64_t after_id, std::map<int64_t, int64_t>& live_seen,
                               double timeout);

    /// Wakes every waiting stream for good (the server is stopping).
    void close();
    bool closed() const;

private:
    StreamBatch collect(int64_t session_id, int64_t after_id, std::map<int64_t, int64_t>& live_seen);

    std::string path_;
    mutable std::mutex mu_;
    std::condition_variable cv_;
    std::unique_ptr<ServiceLog> log_;
    std::map<int64_t, std::shared_ptr<const LiveFrame>> live_;   // task id → frame
    std::map<int64_t, int64_t> live_session_;                    // task id → session id
    std::map<int64_t, int64_t> last_event_;                      // session id → newest event id
    bool closed_ = false;
};

}  // namespace eacu::server

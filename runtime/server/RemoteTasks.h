// The server's side of tasks that run on other machines (`eacu serve --queue redis://...`):
// it puts each task on the Redis task stream, relays each task's events from its Redis stream
// into this server's run log and SSE streams (through TaskEvents, as for a local worker),
// sends the person's acks and stops on the task's control stream, declares a committed task
// `lost` when its worker's lease is gone (never re-running it), and lists the workers.
#pragma once
#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include <nlohmann/json.hpp>

#include "server/RedisClient.h"
#include "server/ServeConfig.h"
#include "server/ServiceStore.h"
#include "server/TaskEvents.h"

namespace eacu::server {

/// Thread-safe. The relay thread starts in the constructor and ends in shutdown().
class RemoteTasks {
public:
    /// Connects (twice: commands and the relay's blocking reads), checks the server
    /// (RedisClient::checkServer), creates the task stream's consumer group and records the
    /// protocol version. Throws RedisError with the reason (no password in it).
    RemoteTasks(ServiceStore& store, const ServeConfig& config, const RedisUrl& url);
    ~RemoteTasks();

    /// Puts a queued task on the task stream (state queued).
    void enqueue(int64_t task_id);
    /// Stops a task no worker committed yet: true when it was queued (it is then stopped in the
    /// run log, with task.stopped). False when it is not queued (committed, ended, unknown).
    bool stopQueued(int64_t task_id);
    /// Stops a committed task: sends {"type":"stop"} on its control stream. False when no
    /// worker holds it.
    bool stopRunning(int64_t task_id);
    /// Sends the person's answer to a task that awaits it, or is paused by a take-over (false
    /// when it does not). The person's operations (ack, takeOver, handBack, input) are
    /// TaskEvents' (the same for local tasks), sending their lines on the task's control
    /// stream, which its worker writes to the run unchanged.
    bool ack(int64_t task_id, const std::string& text);
    /// The person takes the screen of a task running on a worker (TaskEvents::takeOver).
    /// False when it is not relayed here, awaits the person or is taken over already.
    bool takeOver(int64_t task_id);
    /// Gives it back (TaskEvents::handBack). False when the task is not taken over.
    bool handBack(int64_t task_id);
    /// Sends one input event of the person to the task's run and waits up to `timeout` s for
    /// its input_done / input_refused, relayed from its events stream (TaskEvents::input).
    InputOutcome input(int64_t task_id, const nlohmann::json& event, double timeout = 15.0);
    /// GET /api/tasks/{id}/frames/{frame}: a step's PNG of a remote task, which its worker put
    /// on Redis (nullopt when it is not, or no longer, there).
    std::optional<std::string> framePng(int64_t task_id, int64_t frame_id);
    /// Tasks no worker has started yet (queued in the run log).
    size_t queued();
    /// GET /api/workers: {"workers":[{name, host, slots, busy, device, version, protocol,
    /// last_heartbeat (Unix s), age (s)}]}, workers whose lease is held.
    nlohmann::json workers();
    /// At the server's start: tasks of the run log still open whose state Redis does not have
    /// are queued again (queued ones: the server died before it put them on the stream) or
    /// ended interrupted (running ones: Redis lost them). The others run on; the relay goes on
    /// from the last entry it relayed.
    void recover();
    /// The queue's URL without its password.
    std::string where() const { return url_.redacted(); }
    /// Stops the relay thread (idempotent).
    void shutdown();

private:
    struct Active {
        std::shared_ptr<TaskEvents> events;
        std::string cursor = "0-0";  // the last entry of its events stream relayed
        std::string worker;
    };
    void relayLoop();
    void refreshActive();
    void relayBatch();
    bool relayEntry(int64_t task_id, Active& a, const RedisReply& fields);
    void reap();
    void finishTask(int64_t task_id);
    // Imports the run the worker put under `key` into this server's run log; the task's run.
    // Returns its id here (0 when there was nothing to import or it failed, said on stderr).
    int64_t copyRun(int64_t task_id, const std::string& key);
    // Imports the runs of lost tasks their workers sent home (kRunsHome), each once, marked lost.
    void bringRunsHome();
    std::shared_ptr<TaskEvents> eventsFor(const TaskRecord& t);
    // The task's TaskEvents (null when it is not relayed here).
    std::shared_ptr<TaskEvents> activeEvents(int64_t task_id);
    // Sends a line on the task's control stream.
    TaskEvents::SendLine controlOf(int64_t task_id);

    ServiceStore& store_;
    const ServeConfig& config_;
    RedisUrl url_;
    std::mutex mu_;             // guards client_ and active_
    RedisClient client_;        // commands from any thread
    RedisClient reader_;        // the relay thread's blocking reads
    std::map<int64_t, Active> active_;
    std::atomic<bool> stopping_{false};
    double last_refresh_ = 0, last_reap_ = 0;
    std::thread thread_;
};

}  // namespace eacu::server

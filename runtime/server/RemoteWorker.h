// `eacu worker`: one machine's worker of a server's Redis queue. It registers itself (a hash
// that expires after its lease, renewed by its heartbeat), takes tasks from the task stream's
// consumer group (new ones, and ones another worker read but never committed), commits each to
// itself with one atomic script before any input, runs it with the same TaskRunner as a local
// worker (its own display, programs, `eacu run --serve-fd 3`), and forwards the run's lines and
// live screen through Redis (RedisTaskSink) and the server's control lines to the run.
// docs/many-machines.md.
#pragma once
#include <atomic>
#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "server/RedisClient.h"
#include "server/ServeConfig.h"

namespace eacu::server {

class RedisTaskSink;

/// The worker's settings: `config` as for `eacu serve` (display, wm, launch, db, eacu, lease,
/// heartbeat, events_ttl), its `name` (unique among the queue's workers), `slots` (tasks at once)
/// and `device` (the kind of device it runs tasks on, for the registry: "virtual", "x11", or
/// WorkerDevice::kind(): "chromium", "cdp", "adb", "agent").
/// Lua source tasks run only with `config.allow_scripts` (anyone who may write to the Redis
/// could otherwise run any program on the worker); without it they end failed, saying so.
struct WorkerOptions {
    RedisUrl url;
    std::string name;
    int slots = 1;
    std::string device = "virtual";
    ServeConfig config;
    /// After a drain is asked for (run's `drain`): how long the running tasks may go on before
    /// they are stopped (seconds).
    double drain_seconds = 0;
};

class RemoteWorker {
public:
    /// Connects, checks the server (RedisClient::checkServer) and the protocol version the
    /// server recorded (a different one is refused), registers, and looks in its run log for
    /// runs an earlier process of this worker never delivered (runlog/WorkerTasks: a task the
    /// server declared lost, or one whose end was never recorded): run() sends each one home once. Throws RedisError or
    /// std::runtime_error with the reason.
    explicit RemoteWorker(WorkerOptions options);
    ~RemoteWorker();

    /// Takes and runs tasks until `stop` is set; then stops its running tasks (they end
    /// interrupted) and unregisters. Returns 0.
    /// Once `drain` (if given) is set, it takes no new task (a task it has not committed stays
    /// in the stream for another worker; a committed one is never handed to another) and says
    /// so in its registry entry ("draining"), lets the running tasks end by themselves for up
    /// to `drain_seconds`, then stops those still running, and returns as for `stop`.
    int run(const std::atomic<bool>& stop, const std::atomic<bool>* drain = nullptr);

private:
    struct Slot;
    // The runs an earlier process of this worker left in its run log undelivered (killed, or
    // restarted before the server got them): each goes to homeless_, to be sent home once.
    void findUndelivered();
    void heartbeatLoop();
    bool heartbeat();
    bool leased() const;
    void abortAll(const std::string& reason);
    bool takeOne(RedisClient& c);
    void startTask(const std::string& payload);
    void controlLoop(Slot& s);
    size_t busy();

    WorkerOptions o_;
    std::string instance_;  // host:pid, to tell two workers of one name apart
    std::unique_ptr<RedisClient> hb_client_;  // the heartbeat thread's
    std::atomic<double> last_lease_ok_{0};    // monotonic time of the last renewed lease
    std::atomic<bool> stopping_{false};
    std::atomic<bool> draining_{false};  // no new task: shown in the registry
    std::mutex mu_;  // guards slots_
    std::list<std::unique_ptr<Slot>> slots_;
    // Sinks of ended tasks whose run is still to be sent home (run's thread only).
    std::list<std::unique_ptr<RedisTaskSink>> homeless_;
    std::thread heartbeat_thread_;
};

}  // namespace eacu::server

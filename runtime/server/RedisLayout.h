// The keys, streams and scripts eacu keeps in Redis (docs/serve-protocol.md §6): shared by the
// server (`eacu serve --queue`) and its workers (`eacu worker`), which must agree on them.
#pragma once
#include <cstdint>
#include <string>

namespace eacu::server::redis {

/// The protocol between a server and its workers through Redis. A worker of another version
/// is refused (it would read the keys differently).
inline constexpr int kProtocol = 1;

/// The task stream, read by the consumer group of the workers. Entry: task = {task_id,
/// session_id, kind, text, max_actions, max_seconds}.
inline const std::string kTasks = "eacu:tasks";
inline const std::string kGroup = "eacu-workers";
/// The protocol version the server wrote (a string), and the set of worker names.
inline const std::string kProtocolKey = "eacu:protocol";
inline const std::string kWorkers = "eacu:workers";

/// A task's state (a hash): state queued|committed|ended|stopped|lost, worker, committed_at,
/// ended_at, status, relayed (the last events entry the server has relayed).
inline std::string taskKey(int64_t id) { return "eacu:task:" + std::to_string(id); }
/// The task's events (worker → server): fields `line` (a worker protocol line, unchanged) or
/// `ev` (started|live|ended) with `data` (JSON).
inline std::string eventsKey(int64_t id) { return taskKey(id) + ":events"; }
/// The task's control stream (server → worker): field `line` (an ack, a stop, any line).
inline std::string controlKey(int64_t id) { return taskKey(id) + ":control"; }
/// The task's newest live JPEG (expires after kLiveTtlMs).
inline std::string liveKey(int64_t id) { return taskKey(id) + ":live"; }
/// A step's frame (PNG) of the task, from the worker's run log, until the task's keys expire
/// (docs/serve-protocol.md §5.3: screenshots by reference).
inline std::string frameKey(int64_t id, int64_t frame_id) { return taskKey(id) + ":frame:" + std::to_string(frame_id); }
/// The task's run as an SQLite file (runlog/RunCopy exportRun), put by the worker at its end,
/// for the server's run log.
inline std::string runKey(int64_t id) { return taskKey(id) + ":run"; }
/// A worker's lease and registry entry (a hash expiring after the lease).
/// Runs coming home: a stream of the runs of tasks the server declared lost, each sent once by
/// its worker when it holds a lease again (fields task_id, run_key: runKey(task_id), worker).
/// The server imports each into its run log once, marked lost, and deletes the entry.
inline const std::string kRunsHome = "eacu:runs_home";
inline std::string workerKey(const std::string& name) { return "eacu:worker:" + name; }

/// The events stream keeps about this many entries (XADD MAXLEN ~).
inline constexpr int kEventsMaxLen = 10000;
inline constexpr int kLiveTtlMs = 10000;

/// Commits a read task to a worker: the commit point before any input. KEYS: task hash, worker
/// key, task stream. ARGV: worker name, group, entry id, now, the worker's instance (host:pid).
/// Returns "ok", "nolease" (the worker's lease is gone: not committed, not acknowledged) or the
/// task's other state (stopped, committed, ...; acknowledged, not run). An acknowledged entry is
/// deleted from the stream (its task is in the task hash and the server's run log).
inline const char* kCommitScript = R"(
if redis.call('EXISTS', KEYS[2]) == 0 then return 'nolease' end
local state = redis.call('HGET', KEYS[1], 'state')
redis.call('XACK', KEYS[3], ARGV[2], ARGV[3])
redis.call('XDEL', KEYS[3], ARGV[3])
if state ~= 'queued' then return state or 'missing' end
redis.call('HSET', KEYS[1], 'state', 'committed', 'worker', ARGV[1], 'committed_at', ARGV[4], 'instance', ARGV[5])
return 'ok'
)";

/// A worker's end of a task: only while the task is still committed to it. KEYS: task hash,
/// events stream, control stream. ARGV: worker, status, now, event data, ttl seconds.
/// Returns 1 when the end was recorded, 0 when the task was no longer this worker's (lost).
inline const char* kEndScript = R"(
if redis.call('HGET', KEYS[1], 'state') ~= 'committed' or redis.call('HGET', KEYS[1], 'worker') ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'ended', 'status', ARGV[2], 'ended_at', ARGV[3])
redis.call('XADD', KEYS[2], '*', 'ev', 'ended', 'data', ARGV[4])
for i = 1, 3 do redis.call('EXPIRE', KEYS[i], ARGV[5]) end
return 1
)";

/// The reaper's verdict on a committed task whose worker's lease is gone (its key expired, or
/// holds another process of the same name: the committing one died). KEYS: task hash, worker
/// key. ARGV: now. Returns 1 when the task is now lost.
inline const char* kLostScript = R"(
if redis.call('HGET', KEYS[1], 'state') ~= 'committed' then return 0 end
if redis.call('HGET', KEYS[2], 'instance') == redis.call('HGET', KEYS[1], 'instance') then return 0 end
redis.call('HSET', KEYS[1], 'state', 'lost', 'ended_at', ARGV[1])
return 1
)";

/// A stop of a task nobody committed yet. KEYS: task hash. Returns 1 when it was queued.
inline const char* kStopQueuedScript = R"(
if redis.call('HGET', KEYS[1], 'state') ~= 'queued' then return 0 end
redis.call('HSET', KEYS[1], 'state', 'stopped')
return 1
)";

/// A worker's heartbeat: refreshes its registry entry and its lease. KEYS: worker key,
/// workers set. ARGV: lease ms, name, then field/value pairs. Returns 1 when the lease was
/// still held (0: it had expired, or this is the first heartbeat).
inline const char* kHeartbeatScript = R"(
local had = redis.call('EXISTS', KEYS[1])
redis.call('HSET', KEYS[1], unpack(ARGV, 3))
redis.call('PEXPIRE', KEYS[1], ARGV[1])
redis.call('SADD', KEYS[2], ARGV[2])
return had
)";

}  // namespace eacu::server::redis

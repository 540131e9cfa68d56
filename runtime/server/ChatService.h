// What the HTTP API does, without HTTP: seed 001's chat (send, stop, ack, the stream's
// history), seed 000's task API (POST /task, GET /task/{id}), and the restart rule (tasks that
// were running when the server died are interrupted; queued ones are queued again).
#pragma once
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

#include <nlohmann/json.hpp>

#include "server/ApiError.h"
#include "server/ServeConfig.h"
#include "server/RemoteTasks.h"
#include "server/ServiceStore.h"
#include "server/TaskQueue.h"
#include "server/WorkerPool.h"

namespace eacu::server {

/// The chat service. Thread-safe (the store and the pool are).
class ChatService {
public:
    /// Recovers the log (see recover()), then starts `config.workers` workers on `queue`.
    /// With `remote` (a Redis queue), `queue` is its RedisTaskQueue, stop and ack also reach the
    /// tasks on other machines, and a restart leaves the remote tasks running.
    ChatService(ServiceStore& store, const ServeConfig& config, TaskQueue& queue, RemoteTasks* remote = nullptr);
    ~ChatService();

    /// POST /api/chat/send: `text` in session `session_id` (nullopt: a new session titled by
    /// the text). When the session's latest task awaits the person, the text answers it (same
    /// task id). `kind` "script" sends Lua source (needs config.allow_scripts; else ApiError
    /// 403). Returns {session_id, task_id}. ApiError 400 for an empty text, 404 for an unknown
    /// session.
    nlohmann::json send(std::optional<int64_t> session_id, const std::string& text, const std::string& kind = "task");
    /// POST /api/chat/stop. Returns {task_id, status}. ApiError 404 unknown task, 409 when it
    /// has already ended.
    nlohmann::json stop(int64_t task_id);
    /// POST /api/chat/ack-user-action: "我已经操作" to a task that awaits the person. Returns
    /// {task_id}. ApiError 404 unknown task, 409 when it does not wait.
    nlohmann::json ack(int64_t task_id, const std::string& text = "我已经操作");
    /// POST /api/tasks/{id}/take-over: the person takes the screen; the run pauses at its next
    /// step boundary (task.paused). Returns {task_id}. ApiError 404 unknown task, 409 when it is
    /// not running (or awaits the person, or is taken over already).
    nlohmann::json takeOver(int64_t task_id);
    /// POST /api/tasks/{id}/hand-back: the run goes on (task.resumed). Returns {task_id}.
    /// ApiError 404 unknown task, 409 when it is not taken over.
    nlohmann::json handBack(int64_t task_id);
    /// POST /api/tasks/{id}/input {event}: one input of the person (docs/serve-protocol.md §5.2)
    /// injected by the task's run. Returns {seq (of the input line), step_id, step (stepJson)}
    /// once it is recorded. ApiError 400 when `event` is not an object, 404 unknown task, 409
    /// {error: reason} when the task neither awaits the person nor is taken over, or the run
    /// refused the event (a point off the screen, an unknown key: the reason says).
    nlohmann::json input(int64_t task_id, const nlohmann::json& event);
    /// GET /task/{id}: {task_id, session_id, status, text, result, error, run_id, display (the X
    /// display while it runs, else null), steps:[{index, text, screenshot, frame_id, cursor_x,
    /// cursor_y, status}]}. ApiError 404 unknown task.
    nlohmann::json taskView(int64_t task_id);
    /// GET /api/sessions: {sessions:[{id, title, created_at}]}, newest first.
    nlohmann::json sessions();
    /// GET /api/sessions/{id}: {session, messages, tasks}. ApiError 404 unknown session.
    nlohmann::json sessionView(int64_t session_id);
    /// GET /healthz: {ok, workers, running, queued, db}.
    nlohmann::json health();
    /// GET /api/workers: the remote workers (RemoteTasks::workers); {"workers": []} without a
    /// Redis queue.
    nlohmann::json workers();
    /// GET /api/tasks/{id}/frames/{frame}: a remote task's step frame (PNG bytes). ApiError 404
    /// when there is none (or no Redis queue).
    std::string remoteFrame(int64_t task_id, int64_t frame_id);
    /// True when the session exists.
    bool hasSession(int64_t session_id);
    /// Stops every task and the workers (idempotent).
    void shutdown();

    ServiceStore& store() { return store_; }

private:
    /// The task `task_id`; ApiError 404 when there is none.
    TaskRecord knownTask(int64_t task_id);
    /// Tasks left running or awaiting_user by a server that died are marked interrupted (and
    /// get task.failed "interrupted: ..."); queued tasks go back on the queue. With a Redis
    /// queue, RemoteTasks::recover() instead (the tasks run on, elsewhere).
    void recover();

    ServiceStore& store_;
    const ServeConfig& config_;
    TaskQueue& queue_;
    RemoteTasks* remote_;
    WorkerPool pool_;
};

}  // namespace eacu::server

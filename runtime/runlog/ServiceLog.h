// The service's part of the run log (`eacu serve`): chat sessions, their messages, the tasks
// sent in them and the events their streams carried. Same SQLite file as the runs, so a task's
// run, steps and frames are one join away and a restart keeps the whole history.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runlog/RunReader.h"

namespace eacu {

/// One row of `sessions`. Times are seconds since the Unix epoch.
struct SessionRecord {
    int64_t id = 0;
    std::string title;  // the first message, shortened
    double created_at = 0;
};

/// One row of `tasks`. `kind` is "task" (a sentence) or "script" (Lua source in `text`).
/// `status`: queued | running | awaiting_user | completed | failed | stopped | interrupted.
struct TaskRecord {
    int64_t id = 0;
    int64_t session_id = 0;
    std::string kind = "task";
    std::string text;
    std::string status;
    std::optional<int64_t> run_id;
    std::string answer, error;
    double created_at = 0, started_at = 0, ended_at = 0;
};

/// One row of `messages`. `role`: user | assistant; `kind`: user_text | assistant_answer |
/// assistant_error.
struct MessageRecord {
    int64_t id = 0;
    int64_t session_id = 0;
    std::optional<int64_t> task_id;
    std::string role, kind, text;
    double created_at = 0;
};

/// A message of `task`'s session about it (created now).
MessageRecord taskMessage(const TaskRecord& task, const std::string& role, const std::string& kind,
                          const std::string& text);

/// One row of `task_events`: an event a session's stream sent (`data` is its JSON).
struct EventRecord {
    int64_t id = 0;
    int64_t session_id = 0;
    int64_t task_id = 0;
    std::string type;
    std::string data = "{}";
    double created_at = 0;
};

/// Reads and writes sessions, tasks, messages and events (and, as a RunReader, the runs, steps
/// and frames of the tasks). Each write is its own transaction. Not thread-safe: one per thread,
/// or guarded by the caller. All methods throw std::runtime_error("run log <path>: ...") on
/// SQLite errors.
class ServiceLog : public RunReader {
public:
    /// Opens (creating or migrating) the run log at `path` as a writer: a read-only or locked
    /// file is refused at once, as for RunLog (see RunReader(path, writer)).
    explicit ServiceLog(const std::string& path);

    /// A new session titled `title`; returns its id.
    int64_t createSession(const std::string& title);
    std::optional<SessionRecord> session(int64_t id) const;
    /// The newest sessions first, at most `limit`.
    std::vector<SessionRecord> listSessions(int limit = 50) const;

    /// A new task (status "queued", created now); returns its id.
    int64_t createTask(int64_t session_id, const std::string& kind, const std::string& text);
    std::optional<TaskRecord> task(int64_t id) const;
    /// The tasks of a session in the order they were sent.
    std::vector<TaskRecord> tasksOf(int64_t session_id) const;
    /// Tasks whose status is one of `statuses`, oldest first.
    std::vector<TaskRecord> tasksWithStatus(const std::vector<std::string>& statuses) const;
    /// Sets the status; "running" also sets started_at the first time.
    void setTaskStatus(int64_t id, const std::string& status);
    /// Links the task to the run its worker opened (a run this log holds: see hasRun).
    void setTaskRun(int64_t id, int64_t run_id);
    /// True when the run log holds run `run_id`. Throws RunLogError on a database error.
    bool hasRun(int64_t run_id);
    /// Ends the task: status, answer, error and ended_at.
    void endTask(int64_t id, const std::string& status, const std::string& answer, const std::string& error);
    /// Closes run `run_id` as "crashed" (status, `error`, ended_at = its last heartbeat, else
    /// its start) when it is stored "running" and its writer is gone (shownRunStatus says
    /// "crashed"); a run still written by a live process, or already ended, is left as it is.
    /// True when it was closed.
    bool closeCrashedRun(int64_t run_id, const std::string& error);
    /// Marks run `run_id` (a lost task's run that came home from its worker) as status "lost"
    /// with `error`; its end time is its last step's (else its heartbeat, else its start)
    /// when it has none. Throws RunLogError on a database error.
    void markRunLost(int64_t run_id, const std::string& error);

    /// Inserts a message (created_at 0 = now); returns its id.
    int64_t addMessage(const MessageRecord& m);
    /// The messages of a session in order.
    std::vector<MessageRecord> messagesOf(int64_t session_id) const;

    /// Inserts an event (created_at 0 = now); returns its id (the SSE id).
    int64_t addEvent(const EventRecord& e);
    /// The events of a session with id > `after_id`, in order.
    std::vector<EventRecord> eventsOf(int64_t session_id, int64_t after_id = 0) const;
    /// The events of one task, in order.
    std::vector<EventRecord> eventsOfTask(int64_t task_id) const;
};

}  // namespace eacu

#include "runlog/ServiceLog.h"

#include <stdexcept>

#include "base/Clock.h"
#include "runlog/RunLiveness.h"
#include "runlog/Statement.h"

namespace eacu {
namespace {

const char* kTaskColumns =
    "id, session_id, kind, text, status, run_id, COALESCE(answer,''), COALESCE(error,''), created_at, "
    "COALESCE(started_at,0), COALESCE(ended_at,0)";

TaskRecord taskRow(const Statement& q) {
    TaskRecord t;
    t.id = q.integer(0);
    t.session_id = q.integer(1);
    t.kind = q.text(2);
    t.text = q.text(3);
    t.status = q.text(4);
    t.run_id = q.optInteger(5);
    t.answer = q.text(6);
    t.error = q.text(7);
    t.created_at = q.real(8);
    t.started_at = q.real(9);
    t.ended_at = q.real(10);
    return t;
}

EventRecord eventRow(const Statement& q) {
    EventRecord e;
    e.id = q.integer(0);
    e.session_id = q.integer(1);
    e.task_id = q.integer(2);
    e.type = q.text(3);
    e.data = q.text(4);
    e.created_at = q.real(5);
    return e;
}

const char* kEventColumns = "id, session_id, task_id, type, data, created_at";

}  // namespace

MessageRecord taskMessage(const TaskRecord& task, const std::string& role, const std::string& kind,
                          const std::string& text) {
    MessageRecord m;
    m.session_id = task.session_id;
    m.task_id = task.id;
    m.role = role;
    m.kind = kind;
    m.text = text;
    return m;
}

ServiceLog::ServiceLog(const std::string& path) : RunReader(path, true) {}

int64_t ServiceLog::createSession(const std::string& title) {
    try {
        Statement q(db(), "INSERT INTO sessions(title, created_at) VALUES(?, ?) RETURNING id");
        q.bind(1, title).bind(2, wallSeconds());
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::optional<SessionRecord> ServiceLog::session(int64_t id) const {
    try {
        Statement q(db(), "SELECT id, title, created_at FROM sessions WHERE id=?");
        q.bind(1, id);
        if (!q.step()) return std::nullopt;
        return SessionRecord{q.integer(0), q.text(1), q.real(2)};
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<SessionRecord> ServiceLog::listSessions(int limit) const {
    try {
        Statement q(db(), "SELECT id, title, created_at FROM sessions ORDER BY id DESC LIMIT ?");
        q.bind(1, limit);
        std::vector<SessionRecord> out;
        while (q.step()) out.push_back({q.integer(0), q.text(1), q.real(2)});
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t ServiceLog::createTask(int64_t session_id, const std::string& kind, const std::string& text) {
    try {
        Statement q(db(),
                    "INSERT INTO tasks(session_id, kind, text, status, created_at) VALUES(?,?,?, 'queued', ?) "
                    "RETURNING id");
        q.bind(1, session_id).bind(2, kind).bind(3, text).bind(4, wallSeconds());
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::optional<TaskRecord> ServiceLog::task(int64_t id) const {
    try {
        Statement q(db(), std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE id=?");
        q.bind(1, id);
        if (!q.step()) return std::nullopt;
        return taskRow(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<TaskRecord> ServiceLog::tasksOf(int64_t session_id) const {
    try {
        Statement q(db(), std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE session_id=? ORDER BY id");
        q.bind(1, session_id);
        std::vector<TaskRecord> out;
        while (q.step()) out.push_back(taskRow(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<TaskRecord> ServiceLog::tasksWithStatus(const std::vector<std::string>& statuses) const {
    try {
        std::string in;
        for (size_t i = 0; i < statuses.size(); ++i) in += i ? ",?" : "?";
        if (in.empty()) return {};
        Statement q(db(), std::string("SELECT ") + kTaskColumns + " FROM tasks WHERE status IN (" + in + ") ORDER BY id");
        for (size_t i = 0; i < statuses.size(); ++i) q.bind(int(i + 1), statuses[i]);
        std::vector<TaskRecord> out;
        while (q.step()) out.push_back(taskRow(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void ServiceLog::setTaskStatus(int64_t id, const std::string& status) {
    try {
        Statement q(db(),
                    "UPDATE tasks SET status=?, started_at=CASE WHEN ?='running' AND started_at IS NULL THEN ? "
                    "ELSE started_at END WHERE id=?");
        q.bind(1, status).bind(2, status).bind(3, wallSeconds()).bind(4, id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

bool ServiceLog::hasRun(int64_t run_id) {
    try {
        Statement q(db(), "SELECT 1 FROM runs WHERE id=?");
        q.bind(1, run_id);
        return q.step();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return false;
}

void ServiceLog::setTaskRun(int64_t id, int64_t run_id) {
    try {
        Statement q(db(), "UPDATE tasks SET run_id=? WHERE id=?");
        q.bind(1, run_id).bind(2, id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

void ServiceLog::endTask(int64_t id, const std::string& status, const std::string& answer, const std::string& error) {
    try {
        Statement q(db(), "UPDATE tasks SET status=?, answer=?, error=?, ended_at=? WHERE id=?");
        q.bind(1, status).bind(2, answer).bind(3, error).bind(4, wallSeconds()).bind(5, id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

bool ServiceLog::closeCrashedRun(int64_t run_id, const std::string& error) {
    auto r = run(run_id);
    if (!r || shownRunStatus(*r, wallSeconds()) != "crashed") return false;
    try {
        Statement q(db(),
                    "UPDATE runs SET status='crashed', error=?, ended_at=COALESCE(heartbeat_at, started_at) "
                    "WHERE id=? AND status='running'");
        q.bind(1, error).bind(2, run_id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
    return true;
}

void ServiceLog::markRunLost(int64_t run_id, const std::string& error) {
    try {
        Statement q(db(),
                    "UPDATE runs SET status='lost', error=?, ended_at=COALESCE(NULLIF(ended_at, 0), "
                    "(SELECT MAX(ended_at) FROM steps WHERE run_id=runs.id), NULLIF(heartbeat_at, 0), started_at) "
                    "WHERE id=?");
        q.bind(1, error).bind(2, run_id);
        q.run();
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t ServiceLog::addMessage(const MessageRecord& m) {
    try {
        Statement q(db(),
                    "INSERT INTO messages(session_id, task_id, role, kind, text, created_at) VALUES(?,?,?,?,?,?) "
                    "RETURNING id");
        q.bind(1, m.session_id).bind(2, m.task_id).bind(3, m.role).bind(4, m.kind).bind(5, m.text)
            .bind(6, m.created_at > 0 ? m.created_at : wallSeconds());
        return insertedId(q);
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<MessageRecord> ServiceLog::messagesOf(int64_t session_id) const {
    try {
        Statement q(db(),
                    "SELECT id, session_id, task_id, role, kind, text, created_at FROM messages WHERE session_id=? "
                    "ORDER BY id");
        q.bind(1, session_id);
        std::vector<MessageRecord> out;
        while (q.step()) {
            MessageRecord m;
            m.id = q.integer(0);
            m.session_id = q.integer(1);
            m.task_id = q.optInteger(2);
            m.role = q.text(3);
            m.kind = q.text(4);
            m.text = q.text(5);
            m.created_at = q.real(6);
            out.push_back(std::move(m));
        }
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

int64_t ServiceLog::addEvent(const EventRecord& e) {
    try {
        Statement q(db(),
                    "INSERT INTO task_events(session_id, task_id, type, data, created_at) VALUES(?,?,?,?,?) "
                    "RETURNING id");
        q.bind(1, e.session_id).bind(2, e.task_id).bind(3, e.type).bind(4, e.data)
            .bind(5, e.created_at > 0 ? e.created_at : wallSeconds());
        return insertedId(q);
    } catch (const std::exception& ex) {
        fail(ex.what());
    }
}

std::vector<EventRecord> ServiceLog::eventsOf(int64_t session_id, int64_t after_id) const {
    try {
        Statement q(db(), std::string("SELECT ") + kEventColumns +
                              " FROM task_events WHERE session_id=? AND id>? ORDER BY id");
        q.bind(1, session_id).bind(2, after_id);
        std::vector<EventRecord> out;
        while (q.step()) out.push_back(eventRow(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

std::vector<EventRecord> ServiceLog::eventsOfTask(int64_t task_id) const {
    try {
        Statement q(db(), std::string("SELECT ") + kEventColumns + " FROM task_events WHERE task_id=? ORDER BY id");
        q.bind(1, task_id);
        std::vector<EventRecord> out;
        while (q.step()) out.push_back(eventRow(q));
        return out;
    } catch (const std::exception& e) {
        fail(e.what());
    }
}

}  // namespace eacu

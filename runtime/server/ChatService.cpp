#include "server/ChatService.h"

#include <map>

#include "base/Utf8.h"

using nlohmann::json;

namespace eacu::server {
namespace {

json taskJson(const TaskRecord& t) {
    return {{"task_id", t.id},
            {"session_id", t.session_id},
            {"kind", t.kind},
            {"text", t.text},
            {"status", t.status},
            {"result", t.answer},
            {"error", t.error},
            {"run_id", t.run_id ? json(*t.run_id) : json()},
            {"created_at", t.created_at},
            {"started_at", t.started_at > 0 ? json(t.started_at) : json()},
            {"ended_at", t.ended_at > 0 ? json(t.ended_at) : json()}};
}

bool ended(const std::string& status) {
    return status == "completed" || status == "failed" || status == "stopped" || status == "interrupted" ||
           status == "lost";
}

// The first line of a message, at most 80 bytes, for a session's title.
std::string titleOf(const std::string& text) { return clipUtf8(text.substr(0, text.find('\n')), 80); }

}  // namespace

ChatService::ChatService(ServiceStore& store, const ServeConfig& config, TaskQueue& queue, RemoteTasks* remote)
    : store_(store), config_(config), queue_(queue), remote_(remote), pool_(store, config, queue) {
    recover();
}

ChatService::~ChatService() { shutdown(); }

void ChatService::shutdown() { pool_.shutdown(); }

void ChatService::recover() {
    if (remote_) {
        remote_->recover();
        return;
    }
    auto left = store_.with([](ServiceLog& log) { return log.tasksWithStatus({"running", "awaiting_user"}); });
    const std::string why = "interrupted: the server stopped while the task ran";
    for (const auto& t : left) {
        store_.with([&](ServiceLog& log) {
            log.endTask(t.id, "interrupted", "", why);
            // Its worker went with the server (DescendantGuard): the server closes the run.
            if (t.run_id) log.closeCrashedRun(*t.run_id, "crashed: the server stopped while task " + std::to_string(t.id) + " ran");
            return log.addMessage(taskMessage(t, "assistant", "assistant_error", why));
        });
        store_.publish(t, "task.failed", {{"error", why}});
    }
    auto queued = store_.with([](ServiceLog& log) { return log.tasksWithStatus({"queued"}); });
    for (const auto& t : queued) queue_.push(t.id);
}

bool ChatService::hasSession(int64_t session_id) {
    return store_.with([&](ServiceLog& log) { return log.session(session_id).has_value(); });
}

json ChatService::send(std::optional<int64_t> session_id, const std::string& text, const std::string& kind) {
    if (text.find_first_not_of(" \t\r\n") == std::string::npos)
        throw ApiError(400, "expected a non-empty \"text\"");
    if (kind == "script" && !config_.allow_scripts)
        throw ApiError(403, "Lua source is accepted as a task only when the server runs with --allow-scripts and --token");
    int64_t sid;
    if (session_id) {
        auto tasks = store_.with([&](ServiceLog& log) {
            if (!log.session(*session_id)) throw ApiError(404, "no session " + std::to_string(*session_id));
            return log.tasksOf(*session_id);
        });
        sid = *session_id;
        // The person's answer to a task that waits for them.
        if (!tasks.empty() && tasks.back().status == "awaiting_user" && kind == "task" &&
            (pool_.ack(tasks.back().id, text) || (remote_ && remote_->ack(tasks.back().id, text))))
            return {{"session_id", sid}, {"task_id", tasks.back().id}};
    } else {
        sid = store_.with([&](ServiceLog& log) { return log.createSession(titleOf(text)); });
    }
    TaskRecord task = store_.with([&](ServiceLog& log) {
        TaskRecord t = *log.task(log.createTask(sid, kind, text));
        log.addMessage(taskMessage(t, "user", "user_text", text));
        return t;
    });
    store_.publish(task, "task.started", {{"session_id", sid}, {"text", text}, {"status", "queued"}});
    queue_.push(task.id);
    return {{"session_id", sid}, {"task_id", task.id}};
}

json ChatService::stop(int64_t task_id) {
    auto t = store_.with([&](ServiceLog& log) { return log.task(task_id); });
    if (!t) throw ApiError(404, "no task " + std::to_string(task_id));
    if (ended(t->status)) throw ApiError(409, "task " + std::to_string(task_id) + " has already ended (" + t->status + ")");
    if (remote_ ? !remote_->stopQueued(task_id) && !remote_->stopRunning(task_id) : !pool_.stop(task_id))
        throw ApiError(409, "task " + std::to_string(task_id) + " is neither queued nor running here (" + t->status + ")");
    return {{"task_id", task_id}, {"status", "stopping"}};
}

json ChatService::ack(int64_t task_id, const std::string& text) {
    auto t = store_.with([&](ServiceLog& log) { return log.task(task_id); });
    if (!t) throw ApiError(404, "no task " + std::to_string(task_id));
    if (!pool_.ack(task_id, text) && !(remote_ && remote_->ack(task_id, text)))
        throw ApiError(409, "task " + std::to_string(task_id) + " is not waiting for the user (" + t->status + ")");
    return {{"task_id", task_id}};
}

TaskRecord ChatService::knownTask(int64_t task_id) {
    auto t = store_.with([&](ServiceLog& log) { return log.task(task_id); });
    if (!t) throw ApiError(404, "no task " + std::to_string(task_id));
    return *t;
}

json ChatService::takeOver(int64_t task_id) {
    TaskRecord t = knownTask(task_id);
    // A queued task (here or on Redis) is not running yet: nothing to take over.
    const bool taken = t.status == "running" &&
                       (pool_.runs(task_id) ? pool_.takeOver(task_id) : remote_ && remote_->takeOver(task_id));
    if (!taken)
        throw ApiError(409, "task " + std::to_string(task_id) + " cannot be taken over: it is not running (" + t.status +
                                (t.status == "awaiting_user" ? ", the screen is the person's already" : "") +
                                "), or is taken over already");
    return {{"task_id", task_id}};
}

json ChatService::handBack(int64_t task_id) {
    TaskRecord t = knownTask(task_id);
    if (!(pool_.runs(task_id) ? pool_.handBack(task_id) : remote_ && remote_->handBack(task_id)))
        throw ApiError(409, "task " + std::to_string(task_id) + " is not taken over (" + t.status + ")");
    return {{"task_id", task_id}};
}

json ChatService::input(int64_t task_id, const json& event) {
    TaskRecord t = knownTask(task_id);
    if (!event.is_object()) throw ApiError(400, "expected \"event\" to be an object {kind, x, y, ...}, got " + event.dump());
    InputOutcome o = remote_ && !pool_.runs(task_id) ? remote_->input(task_id, event) : pool_.input(task_id, event);
    if (!o.done)
        throw ApiError(409, "task " + std::to_string(task_id) + " (" + t.status + ") refused the input: " + o.reason);
    return {{"seq", o.seq}, {"step_id", o.step.value("id", 0)}, {"step", o.step}};
}

json ChatService::taskView(int64_t task_id) {
    auto [t, events] = store_.with([&](ServiceLog& log) {
        auto task = log.task(task_id);
        if (!task) throw ApiError(404, "no task " + std::to_string(task_id));
        return std::make_pair(*task, log.eventsOfTask(task_id));
    });
    // The progress items as the stream left them: appends, overwritten by their updates.
    std::map<int64_t, json> steps;
    for (const auto& e : events) {
        if (e.type != "progress.append" && e.type != "progress.update") continue;
        json d = json::parse(e.data, nullptr, false);
        if (!d.is_object() || !d.contains("index")) continue;
        d.erase("task_id");
        d.erase("time");
        steps[d["index"].get<int64_t>()] = d;
    }
    json out = taskJson(t);
    std::string display = pool_.displayOf(task_id);
    out["display"] = display.empty() ? json() : json(display);
    out["steps"] = json::array();
    for (auto& [i, s] : steps) out["steps"].push_back(s);
    return out;
}

json ChatService::sessions() {
    auto list = store_.with([](ServiceLog& log) { return log.listSessions(); });
    json out = json::array();
    for (const auto& s : list) out.push_back({{"id", s.id}, {"title", s.title}, {"created_at", s.created_at}});
    return {{"sessions", out}};
}

json ChatService::sessionView(int64_t session_id) {
    return store_.with([&](ServiceLog& log) {
        auto s = log.session(session_id);
        if (!s) throw ApiError(404, "no session " + std::to_string(session_id));
        json msgs = json::array();
        for (const auto& m : log.messagesOf(session_id))
            msgs.push_back({{"id", m.id},
                            {"role", m.role},
                            {"kind", m.kind},
                            {"text", m.text},
                            {"task_id", m.task_id ? json(*m.task_id) : json()},
                            {"created_at", m.created_at}});
        json tasks = json::array();
        for (const auto& t : log.tasksOf(session_id)) tasks.push_back(taskJson(t));
        return json{{"session", {{"id", s->id}, {"title", s->title}, {"created_at", s->created_at}}},
                    {"messages", msgs},
                    {"tasks", tasks}};
    });
}

json ChatService::health() {
    return {{"ok", true},
            {"workers", config_.workers},
            {"queue", remote_ ? json(remote_->where()) : json("local")},
            {"running", pool_.running()},
            {"queued", queue_.size()},
            {"db", store_.path()}};
}

std::string ChatService::remoteFrame(int64_t task_id, int64_t frame_id) {
    std::optional<std::string> png = remote_ ? remote_->framePng(task_id, frame_id) : std::nullopt;
    if (!png) throw ApiError(404, "no frame " + std::to_string(frame_id) + " of task " + std::to_string(task_id));
    return *png;
}

json ChatService::workers() { return remote_ ? remote_->workers() : json{{"workers", json::array()}}; }

}  // namespace eacu::server

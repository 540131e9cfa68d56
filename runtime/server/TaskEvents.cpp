#include "server/TaskEvents.h"

#include <algorithm>
#include <chrono>

#include "server/ProgressText.h"

using nlohmann::json;

namespace eacu::server {
namespace {

std::string firstLineOf(const std::string& s) {
    auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

}  // namespace

TaskEvents::TaskEvents(ServiceStore& store, TaskRecord task, std::string frame_url, bool own_runs)
    : store_(store), task_(std::move(task)), frame_url_(std::move(frame_url)), own_runs_(own_runs) {}

void TaskEvents::running() {
    store_.with([&](ServiceLog& log) {
        log.setTaskStatus(task_.id, "running");
        return 0;
    });
}

void TaskEvents::restore() {
    auto [task, events] = store_.with([&](ServiceLog& log) { return std::make_pair(log.task(task_.id), log.eventsOfTask(task_.id)); });
    bool paused = false;
    for (const auto& e : events) {
        // A take-over's pause: from task.paused until task.resumed or an ack (task.started).
        if (e.type == "task.paused") paused = true;
        if (e.type == "task.resumed" || e.type == "task.started") paused = false;
        if (e.type != "progress.append" && e.type != "progress.update") continue;
        json d = json::parse(e.data, nullptr, false);
        if (!d.is_object() || !d.contains("index") || !d["index"].is_number_integer()) continue;
        const int index = d["index"].get<int>();
        progress_count_ = std::max(progress_count_, index);
        // An intent's append (status running) is open until its update.
        if (e.type == "progress.append" && d.value("status", "") == "running") {
            pending_intent_ = index;
            pending_text_ = d.value("text", "");
        } else if (index == pending_intent_) {
            pending_intent_ = 0;
        }
    }
    std::lock_guard<std::mutex> lock(ctl_mu_);
    if (task) awaiting_ = task->status == "awaiting_user";
    paused_ = paused && task && task->status == "running";
}

bool TaskEvents::ack(const std::string& text, const SendLine& send) {
    std::lock_guard<std::mutex> one(send_mu_);
    {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        // "我已经操作" also ends a take-over (the run resumes on an ack while paused).
        if (!awaiting_ && !paused_) return false;
    }
    send(json{{"type", "ack"}, {"text", text}}.dump());
    {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        awaiting_ = paused_ = taking_over_ = false;
    }
    store_.with([&](ServiceLog& log) {
        log.setTaskStatus(task_.id, "running");
        return log.addMessage(taskMessage(task_, "user", "user_text", text));
    });
    store_.publish(task_, "task.started",
                   {{"session_id", task_.session_id},
                    {"text", task_.text},
                    {"status", "running"},
                    {"resumed", true},
                    {"reply", text}});
    return true;
}

bool TaskEvents::takeOver(const SendLine& send) {
    std::lock_guard<std::mutex> one(send_mu_);
    {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        if (run_ended_ || awaiting_ || paused_ || taking_over_) return false;
    }
    send(json{{"type", "take_over"}}.dump());
    std::lock_guard<std::mutex> lock(ctl_mu_);
    // Unless the run paused (or ended) before we got here.
    if (!paused_ && !run_ended_) taking_over_ = true;
    return true;
}

bool TaskEvents::handBack(const SendLine& send) {
    std::lock_guard<std::mutex> one(send_mu_);
    {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        if (!taking_over_ && !paused_) return false;
    }
    send(json{{"type", "hand_back"}}.dump());
    std::lock_guard<std::mutex> lock(ctl_mu_);
    taking_over_ = paused_ = false;
    return true;
}

InputOutcome TaskEvents::input(const json& event, double timeout, const SendLine& send) {
    int64_t seq;
    {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        if (run_ended_) return InputOutcome{false, 0, json(), "the task's run has ended"};
        if (!awaiting_ && !paused_)
            return InputOutcome{false, 0, json(),
                                taking_over_ ? "the task is being taken over: its run has not reached a step boundary yet"
                                             : "the task neither awaits the person nor is taken over"};
        seq = ++next_seq_;
        inputs_[seq];
    }
    try {
        std::lock_guard<std::mutex> one(send_mu_);
        send(json{{"type", "input"}, {"seq", seq}, {"event", event}}.dump());
    } catch (...) {
        std::lock_guard<std::mutex> lock(ctl_mu_);
        inputs_.erase(seq);
        throw;
    }
    std::unique_lock<std::mutex> lock(ctl_mu_);
    const bool answered = input_cv_.wait_for(lock, std::chrono::duration<double>(timeout),
                                             [&] { return inputs_[seq].has_value() || run_ended_; });
    InputOutcome out;
    if (answered && inputs_[seq]) out = *inputs_[seq];
    else out.reason = run_ended_ ? "the task's run ended before it took the input"
                                 : "the run did not take the input within " + std::to_string(int(timeout)) + " s";
    out.seq = seq;
    inputs_.erase(seq);
    return out;
}

void TaskEvents::runEnded() {
    std::lock_guard<std::mutex> lock(ctl_mu_);
    awaiting_ = taking_over_ = paused_ = false;
    run_ended_ = true;
    input_cv_.notify_all();
}

std::string TaskEvents::lastStep() const {
    std::lock_guard<std::mutex> lock(mu_);
    return last_step_;
}

void TaskEvents::live(LiveFrame frame) { store_.setLive(task_.session_id, std::move(frame)); }

void TaskEvents::progress(const json& step) {
    const std::string action = step.value("action", "");
    const std::string status = step.value("status", "ok");
    if (status == "ok") {
        std::lock_guard<std::mutex> lock(mu_);
        last_step_ = "#" + (step.contains("idx") ? step["idx"].dump() : std::string("?")) + " " + action;
        if (step.contains("target") && step["target"].is_string() && !step["target"].get<std::string>().empty())
            last_step_ += " " + step["target"].get<std::string>();
    }
    if (isLookOnlyStep(action) && status == "ok") return;
    json item;
    json frame = step.contains("frame_after") && !step["frame_after"].is_null() ? step["frame_after"]
                                                                               : step.value("frame_before", json());
    item["frame_id"] = frame.is_number_integer() ? frame : json();
    item["screenshot"] = frame.is_number_integer() ? json(frame_url_ + std::to_string(frame.get<int64_t>())) : json();
    item["cursor_x"] = json();
    item["cursor_y"] = json();
    if (auto in = step.find("input"); in != step.end() && in->is_array() && in->size() == 2) {
        item["cursor_x"] = (*in)[0];
        item["cursor_y"] = (*in)[1];
    } else if (auto f = store_.live(task_.id)) {
        item["cursor_x"] = f->cursor_x;
        item["cursor_y"] = f->cursor_y;
    }
    item["status"] = status;
    item["actor"] = step.value("actor", std::string("script"));
    // The person's steps get items of their own: they never complete an intent's item.
    if (pending_intent_ && item["actor"] != "user") {
        item["index"] = pending_intent_;
        item["text"] = status == "failed" ? pending_text_ + "（失败：" + firstLineOf(step.value("error", "")) + "）"
                                          : pending_text_;
        pending_intent_ = 0;
        store_.publish(task_, "progress.update", item);
        return;
    }
    item["index"] = ++progress_count_;
    item["text"] = progressText(step);
    store_.publish(task_, "progress.append", item);
}

void TaskEvents::line(const std::string& line) {
    json m = json::parse(line, nullptr, false);
    if (!m.is_object()) return;  // not a protocol line (the worker's protocol is JSON only); ignored
    try {
        const std::string type = m.value("type", "");
        if (type == "run" && own_runs_ && m.contains("run_id") && m["run_id"].is_number_integer()) {
            int64_t run_id = m["run_id"].get<int64_t>();
            store_.with([&](ServiceLog& log) {
                // A run the run log does not hold (the tasks row's foreign key refuses it) is the
                // worker's mistake, not the server's: the line is skipped and the task goes on
                // without a run (found by fuzz_serve_lines).
                if (!log.hasRun(run_id)) return 0;
                log.setTaskRun(task_.id, run_id);
                return 0;
            });
        } else if (type == "intent") {
            // An intent that ended without a step (the model only thought) stays as it is.
            pending_intent_ = 0;
            json item{{"index", ++progress_count_}, {"text", m.value("text", "")}, {"screenshot", json()},
                      {"frame_id", json()}, {"status", "running"}, {"cursor_x", json()}, {"cursor_y", json()}};
            if (auto f = store_.live(task_.id)) {
                item["cursor_x"] = f->cursor_x;
                item["cursor_y"] = f->cursor_y;
            }
            pending_intent_ = progress_count_;
            pending_text_ = item["text"];
            store_.publish(task_, "progress.append", item);
        } else if (type == "step" && m.contains("step") && m["step"].is_object()) {
            progress(m["step"]);
        } else if (type == "awaiting_user") {
            const std::string text = m.value("text", "");
            {
                // Before the status: whoever sees awaiting_user in the run log can ack at once.
                std::lock_guard<std::mutex> lock(ctl_mu_);
                awaiting_ = true;
            }
            store_.with([&](ServiceLog& log) {
                log.setTaskStatus(task_.id, "awaiting_user");
                return log.addMessage(taskMessage(task_, "assistant", "assistant_answer", text));
            });
            store_.publish(task_, "task.awaiting_user",
                           {{"text", text}, {"kind", m.value("kind", "ask")}, {"show_ack_button", true}});
        } else if (type == "paused") {
            {
                std::lock_guard<std::mutex> lock(ctl_mu_);
                taking_over_ = false;
                paused_ = true;
            }
            store_.publish(task_, "task.paused", json::object());
        } else if (type == "resumed") {
            {
                std::lock_guard<std::mutex> lock(ctl_mu_);
                paused_ = false;
            }
            store_.publish(task_, "task.resumed", json::object());
        } else if (type == "input_done" || type == "input_refused") {
            if (!m.contains("seq") || !m["seq"].is_number_integer()) return;
            std::lock_guard<std::mutex> lock(ctl_mu_);
            auto it = inputs_.find(m["seq"].get<int64_t>());
            if (it == inputs_.end()) return;  // its request gave up waiting (or another server's)
            it->second = InputOutcome{type == "input_done", it->first, m.value("step", json()),
                                      m.value("reason", std::string())};
            input_cv_.notify_all();
        } else if (type == "end") {
            runEnded();
        }
    } catch (const json::exception&) {
        // A field of an unexpected type: the line is skipped, the task goes on.
    }
}

void TaskEvents::ended(const std::string& status, const std::string& answer, const std::string& error) {
    runEnded();
    store_.with([&](ServiceLog& log) {
        log.endTask(task_.id, status, answer, error);
        // stopped, failed, interrupted and lost tasks end with an assistant_error message
        return log.addMessage(taskMessage(task_, "assistant",
                                          status == "completed" ? "assistant_answer" : "assistant_error",
                                          status == "completed" ? answer : status == "stopped" ? "已停止" : error));
    });
    store_.dropLive(task_.id);
    if (status == "completed")
        store_.publish(task_, "task.completed", {{"answer", answer}});
    else if (status == "stopped")
        store_.publish(task_, "task.stopped", json::object());
    else
        store_.publish(task_, "task.failed", {{"error", error}});
}

}  // namespace eacu::server

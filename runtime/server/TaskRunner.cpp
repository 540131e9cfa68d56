#include "server/TaskRunner.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <stdexcept>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "device/DeviceFactory.h"
#include "device/virtual/VirtualDisplay.h"
#include "process/Process.h"
#include "server/LiveScreen.h"
#include "server/ProgressText.h"
#include "vision/ScreenDiff.h"

namespace fs = std::filesystem;
using nlohmann::json;

namespace eacu::server {

struct TaskRunner::Exec {
    std::unique_ptr<VirtualDisplay> xvfb;
    std::vector<std::unique_ptr<Process>> programs;
    std::unique_ptr<Process> worker;
    std::unique_ptr<LiveScreen> live;
    std::string script_file;  // a Lua source task, written for the worker
    std::string answer, end_error;  // from the worker's answer and end lines
    int progress_count = 0;
    int pending_intent = 0;   // the progress item an intent opened, completed by the next step
    std::string pending_text;
    std::string buffer;       // worker output not yet ending in '\n'
};

namespace {

std::string firstLineOf(const std::string& s) {
    auto nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl);
}

// The last non-empty line of a worker's stderr (its one-line outcome).
std::string lastLine(const std::string& text) {
    size_t end = text.find_last_not_of("\r\n ");
    if (end == std::string::npos) return "";
    size_t start = text.rfind('\n', end);
    return text.substr(start == std::string::npos ? 0 : start + 1, end - (start == std::string::npos ? 0 : start + 1) + 1);
}

// Waits until the programs just launched have drawn something (the screen differs from `before`)
// and the screen has stopped changing, at most `timeout` seconds, or until the task is stopped.
void waitForDesktop(Device& device, const cv::Mat& before, double timeout, const std::atomic<bool>& stopped) {
    const double deadline = monotonicSeconds() + timeout;
    cv::Mat last;
    bool changed = false;
    while (monotonicSeconds() < deadline && !stopped) {
        Frame f = device.capture();
        if (!changed) changed = changeRatio(before, f.bgr, 15) > 0.001;
        if (changed && !last.empty() && changeRatio(last, f.bgr, 0) == 0) return;
        last = f.bgr;
        CancelToken().sleep(0.1);
    }
}

}  // namespace

TaskRunner::TaskRunner(ServiceStore& store, const ServeConfig& config, TaskRecord task)
    : store_(store), config_(config), task_(std::move(task)) {}

TaskRunner::~TaskRunner() {
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ >= 0) ::close(fd_);
}

std::string TaskRunner::display() const {
    std::lock_guard<std::mutex> lock(mu_);
    return display_;
}

void TaskRunner::stop(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_ && !reason.empty()) interrupt_reason_ = reason;
    stopped_ = true;
    if (worker_pid_ > 0) ::kill(-worker_pid_, SIGTERM);  // its process group, as Process::stop does
}

void TaskRunner::send(const json& msg) {
    std::string line = msg.dump() + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    if (fd_ < 0) return;
    const char* p = line.data();
    size_t left = line.size();
    while (left > 0) {
        ssize_t n = ::send(fd_, p, left, MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return;  // the worker is gone; its end is reported by run()
        p += n;
        left -= size_t(n);
    }
}

bool TaskRunner::ack(const std::string& text) {
    // "我已经操作" also ends a take-over (the worker resumes on an ack while paused).
    const bool was_paused = paused_.exchange(false);
    taking_over_ = false;
    if (!awaiting_.exchange(false) && !was_paused) return false;
    send(json{{"type", "ack"}, {"text", text}});
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

bool TaskRunner::takeOver() {
    if (stopped_ || awaiting_ || paused_) return false;
    bool now;
    {
        // Under mu_ with the worker's start (execute): the line goes out exactly once, now or
        // as soon as the worker runs (its programs may still be starting).
        std::lock_guard<std::mutex> lock(mu_);
        if (taking_over_) return false;
        taking_over_ = true;
        now = fd_ >= 0;
    }
    if (now) send(json{{"type", "take_over"}});
    return true;
}

bool TaskRunner::handBack() {
    const bool paused = paused_.exchange(false);
    if (!taking_over_.exchange(false) && !paused) return false;
    send(json{{"type", "hand_back"}});
    return true;
}

InputOutcome TaskRunner::input(const json& event, double timeout) {
    if (!awaiting_ && !paused_) {
        InputOutcome refused;
        refused.reason = taking_over_ ? "the task is being taken over: its run has not reached a step boundary yet"
                                      : "the task neither awaits the person nor is taken over";
        return refused;
    }
    int64_t seq;
    {
        std::lock_guard<std::mutex> lock(input_mu_);
        if (ended_) return InputOutcome{false, 0, json(), "the task's run has ended"};
        seq = ++next_seq_;
        inputs_[seq];
    }
    send(json{{"type", "input"}, {"seq", seq}, {"event", event}});
    std::unique_lock<std::mutex> lock(input_mu_);
    const bool answered = input_cv_.wait_for(lock, std::chrono::duration<double>(timeout),
                                             [&] { return inputs_[seq].has_value() || ended_; });
    InputOutcome out;
    if (answered && inputs_[seq]) out = *inputs_[seq];
    else out.reason = ended_ ? "the task's run ended before it took the input"
                             : "the run did not take the input within " + std::to_string(int(timeout)) + " s";
    out.seq = seq;
    inputs_.erase(seq);
    return out;
}

void TaskRunner::progress(Exec& x, const json& step) {
    const std::string action = step.value("action", "");
    const std::string status = step.value("status", "ok");
    if (isLookOnlyStep(action) && status == "ok") return;
    json item;
    json frame = step.contains("frame_after") && !step["frame_after"].is_null() ? step["frame_after"]
                                                                               : step.value("frame_before", json());
    item["frame_id"] = frame.is_number_integer() ? frame : json();
    item["screenshot"] = frame.is_number_integer() ? json("/api/frames/" + std::to_string(frame.get<int64_t>())) : json();
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
    if (x.pending_intent && item["actor"] != "user") {
        item["index"] = x.pending_intent;
        item["text"] = status == "failed" ? x.pending_text + "（失败：" + firstLineOf(step.value("error", "")) + "）"
                                          : x.pending_text;
        x.pending_intent = 0;
        store_.publish(task_, "progress.update", item);
        return;
    }
    item["index"] = ++x.progress_count;
    item["text"] = progressText(step);
    store_.publish(task_, "progress.append", item);
}

void TaskRunner::onWorkerLine(Exec& x, const std::string& line) {
    json m;
    try {
        m = json::parse(line);
    } catch (const std::exception&) {
        return;  // not a protocol line (the worker's protocol is JSON only); ignored
    }
    if (!m.is_object()) return;
    const std::string type = m.value("type", "");
    if (type == "run" && m.contains("run_id") && m["run_id"].is_number_integer()) {
        int64_t run_id = m["run_id"].get<int64_t>();
        store_.with([&](ServiceLog& log) {
            log.setTaskRun(task_.id, run_id);
            return 0;
        });
    } else if (type == "intent") {
        if (x.pending_intent) {
            // The last intent ended without a step (the model only thought): it stays as it is.
            x.pending_intent = 0;
        }
        json item{{"index", ++x.progress_count}, {"text", m.value("text", "")}, {"screenshot", json()},
                  {"frame_id", json()}, {"status", "running"}, {"cursor_x", json()}, {"cursor_y", json()}};
        if (auto f = store_.live(task_.id)) {
            item["cursor_x"] = f->cursor_x;
            item["cursor_y"] = f->cursor_y;
        }
        x.pending_intent = x.progress_count;
        x.pending_text = item["text"];
        store_.publish(task_, "progress.append", item);
    } else if (type == "step" && m.contains("step") && m["step"].is_object()) {
        progress(x, m["step"]);
    } else if (type == "awaiting_user") {
        const std::string text = m.value("text", "");
        store_.with([&](ServiceLog& log) {
            log.setTaskStatus(task_.id, "awaiting_user");
            return log.addMessage(taskMessage(task_, "assistant", "assistant_answer", text));
        });
        awaiting_ = true;
        store_.publish(task_, "task.awaiting_user",
                       {{"text", text}, {"kind", m.value("kind", "ask")}, {"show_ack_button", true}});
    } else if (type == "paused") {
        taking_over_ = false;
        paused_ = true;
        store_.publish(task_, "task.paused", json::object());
    } else if (type == "resumed") {
        paused_ = false;
        store_.publish(task_, "task.resumed", json::object());
    } else if (type == "input_done" || type == "input_refused") {
        if (!m.contains("seq") || !m["seq"].is_number_integer()) return;
        std::lock_guard<std::mutex> lock(input_mu_);
        auto it = inputs_.find(m["seq"].get<int64_t>());
        if (it == inputs_.end()) return;  // its request gave up waiting
        it->second = InputOutcome{type == "input_done", it->first, m.value("step", json()), m.value("reason", std::string())};
        input_cv_.notify_all();
    } else if (type == "answer") {
        x.answer = m.value("text", "");
    } else if (type == "end") {
        x.end_error = m.value("error", "");
    }
}

void TaskRunner::execute(Exec& x) {
    std::string disp = config_.display;
    if (config_.display == "virtual") {
        x.xvfb = VirtualDisplay::start(config_.screen_w, config_.screen_h);
        x.xvfb->startWindowManager(config_.wm);
        x.xvfb->startSessionBus();  // the accessibility tree of the task's programs
        disp = x.xvfb->name();
    }
    // The task's programs and its worker (which reads the tree) get the display's buses.
    std::map<std::string, std::string> bus_env;
    if (x.xvfb && x.xvfb->sessionBus()) bus_env = x.xvfb->sessionBus()->environment();
    {
        std::lock_guard<std::mutex> lock(mu_);
        display_ = disp;
    }
    if (stopped_) return;
    x.live = std::make_unique<LiveScreen>(store_, task_.session_id, task_.id, disp);
    if (!config_.launch.empty()) {
        DeviceHandle h = openDevice(disp);
        cv::Mat before = h.device->capture().bgr;
        for (const auto& cmd : config_.launch) {
            ProcessOptions po;
            po.env = bus_env;
            po.env["DISPLAY"] = disp;
            po.capture_stdout = false;
            x.programs.push_back(Process::spawn({"sh", "-c", "exec " + cmd}, po));
        }
        waitForDesktop(*h.device, before, 10.0, stopped_);
    }
    if (stopped_) return;

    std::vector<std::string> argv{config_.eacu, "run"};
    if (task_.kind == "script") {
        x.script_file = (fs::temp_directory_path() /
                         ("eacu-serve-" + std::to_string(::getpid()) + "-task" + std::to_string(task_.id) + ".lua"))
                            .string();
        std::ofstream(x.script_file) << task_.text;
        argv.push_back(x.script_file);
    } else {
        argv.insert(argv.end(), {"--task", task_.text});
    }
    argv.insert(argv.end(), {"--display", disp, "--db", config_.db, "--serve-fd", "3", "--max-actions",
                             std::to_string(config_.max_actions), "--max-time", std::to_string(config_.max_seconds)});
    int sv[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        throw std::runtime_error(std::string("socketpair: ") + std::strerror(errno));
    ProcessOptions po;
    po.env = config_.worker_env;
    for (const auto& [k, v] : bus_env) po.env.emplace(k, v);
    po.capture_stdout = true;
    po.stderr_mode = StderrMode::Capture;
    po.pass_fd = sv[1];
    try {
        x.worker = Process::spawn(argv, po);
    } catch (...) {
        ::close(sv[0]);
        ::close(sv[1]);
        throw;
    }
    ::close(sv[1]);
    bool take_over;  // asked for while the worker started
    {
        std::lock_guard<std::mutex> lock(mu_);
        fd_ = sv[0];
        worker_pid_ = x.worker->pid();
        take_over = taking_over_;
    }
    if (take_over) send(json{{"type", "take_over"}});
    if (stopped_) ::kill(-x.worker->pid(), SIGTERM);  // a stop that came while it started

    // The worker's protocol lines until it closes its end (it exited).
    char buf[65536];
    for (;;) {
        pollfd p{sv[0], POLLIN, 0};
        int r = ::poll(&p, 1, 200);
        if (r < 0 && errno == EINTR) continue;
        if (r == 0) {
            // Its end stays open while a program it started holds it; its exit ends the task.
            if (!x.worker->running()) break;
            continue;
        }
        ssize_t n = ::read(sv[0], buf, sizeof buf);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        x.buffer.append(buf, size_t(n));
        for (size_t nl; (nl = x.buffer.find('\n')) != std::string::npos;) {
            std::string line = x.buffer.substr(0, nl);
            x.buffer.erase(0, nl + 1);
            onWorkerLine(x, line);
        }
    }
    awaiting_ = false;
    paused_ = false;
    taking_over_ = false;
    {
        std::lock_guard<std::mutex> lock(input_mu_);
        ended_ = true;
        input_cv_.notify_all();
    }
    x.worker->wait(10.0);
}

void TaskRunner::finish(const std::string& status, const std::string& answer, const std::string& error) {
    store_.with([&](ServiceLog& log) {
        log.endTask(task_.id, status, answer, error);
        // stopped, failed and interrupted tasks end with an assistant_error message
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

void TaskRunner::run() {
    Exec x;
    std::string error;
    try {
        store_.with([&](ServiceLog& log) {
            log.setTaskStatus(task_.id, "running");
            return 0;
        });
        execute(x);
    } catch (const std::exception& e) {
        error = e.what();
    }
    // Everything the task started, in reverse: the worker, the live screen, the programs, Xvfb.
    std::optional<int> code;
    if (x.worker) {
        x.worker->stop(3.0);
        code = x.worker->exitStatus();
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        worker_pid_ = 0;
    }
    if (x.live) x.live->stop();
    for (auto it = x.programs.rbegin(); it != x.programs.rend(); ++it) (*it)->stop(2.0);
    x.xvfb.reset();
    if (!x.script_file.empty()) {
        std::error_code ec;
        fs::remove(x.script_file, ec);
    }

    if (code && *code == 0 && error.empty()) {
        finish("completed", x.answer.empty() ? "任务完成。" : x.answer, "");
    } else if (stopped_) {
        std::string reason;
        {
            std::lock_guard<std::mutex> lock(mu_);
            reason = interrupt_reason_;
        }
        if (reason.empty())
            finish("stopped", "", "");
        else
            finish("interrupted", "", "interrupted: " + reason);
    } else {
        if (error.empty()) error = x.end_error;
        if (error.empty() && x.worker) error = lastLine(x.worker->stderrText());
        if (error.empty()) error = "the worker exited with status " + (code ? std::to_string(*code) : std::string("?"));
        finish("failed", "", error);
    }
}

}  // namespace eacu::server

#include "server/TaskRunner.h"

#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
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
#include "server/LiveLine.h"
#include "server/LiveScreen.h"
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
    std::string buffer;       // worker output not yet ending in '\n'
};

namespace {

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

TaskRunner::TaskRunner(const ServeConfig& config, TaskRecord task, TaskSink& sink)
    : config_(config), task_(std::move(task)), sink_(sink) {}

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
    if (stopped_) return;
    stopped_ = true;
    // The stop line first (docs/serve-protocol.md §5.2: the run ends as on SIGTERM, at once
    // for a wait, at the step's end otherwise); execute() sends SIGTERM to a worker that has
    // not ended kStopGrace seconds later. A worker not yet started gets the line when it does.
    std::string line = json{{"type", "stop"}, {"reason", reason.empty() ? std::string("stopped") : reason}}.dump() + "\n";
    if (closed_) return;
    if (fd_ < 0) {
        pending_.push_back(std::move(line));
        return;
    }
    stop_sent_at_ = monotonicSeconds();
    writeLocked(line);
}

void TaskRunner::abort(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    if (!stopped_) interrupt_reason_ = reason;
    stopped_ = true;
    if (worker_pid_ > 0) ::kill(-worker_pid_, SIGKILL);
}

void TaskRunner::sendLine(const std::string& msg) {
    std::string line = msg + "\n";
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_) return;
    if (fd_ < 0) {
        pending_.push_back(std::move(line));  // written once the worker runs (execute)
        return;
    }
    writeLocked(line);
}

void TaskRunner::sendNow(const std::string& msg) {
    std::lock_guard<std::mutex> lock(mu_);
    if (closed_ || fd_ < 0) return;
    writeLocked(msg + "\n");
}

void TaskRunner::writeLocked(const std::string& line) {
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

void TaskRunner::onWorkerLine(Exec& x, const std::string& line) {
    // The runner keeps only the answer and the end's error (for ended()); the sink gets all.
    json m = json::parse(line, nullptr, false);
    if (m.is_object() && m.contains("type") && m["type"].is_string()) {
        const std::string type = m["type"];
        if (type == "answer" && m.contains("text") && m["text"].is_string()) x.answer = m["text"];
        if (type == "end" && m.contains("error") && m["error"].is_string()) x.end_error = m["error"];
        if (type == "live") {
            // The run's own live screen (a device that is not an X display): a frame, not an event.
            if (auto f = liveFrameOfLine(task_.id, m)) sink_.live(std::move(*f));
            return;
        }
    }
    sink_.line(line);
}

void TaskRunner::execute(Exec& x) {
    // A device that is not an X display (config_.device): no display, no programs; the run opens
    // the device itself and sends its live frames as live lines (§5.1).
    const bool x11 = config_.device.empty();
    std::string disp = x11 ? config_.display : "";
    if (x11 && config_.display == "virtual") {
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
    if (x11) x.live = std::make_unique<LiveScreen>(task_.id, disp, [this](LiveFrame f) { sink_.live(std::move(f)); });
    if (x11 && !config_.launch.empty()) {
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
    argv.insert(argv.end(), {"--device", x11 ? disp : config_.device, "--db", config_.db, "--serve-fd", "3", "--max-actions",
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
    {
        std::lock_guard<std::mutex> lock(mu_);
        fd_ = sv[0];
        worker_pid_ = x.worker->pid();
        // Lines sent while the display and the programs started (a take-over, an early input).
        for (const auto& line : pending_) writeLocked(line);
        pending_.clear();
        if (stopped_) stop_sent_at_ = monotonicSeconds();  // a stop that came while it started
    }
    bool termed = false;

    // The worker's protocol lines until it closes its end (it exited).
    char buf[65536];
    for (;;) {
        if (stopped_ && !termed) {
            std::lock_guard<std::mutex> lock(mu_);
            if (stop_sent_at_ > 0 && monotonicSeconds() - stop_sent_at_ > kStopGrace) {
                ::kill(-x.worker->pid(), SIGTERM);  // its process group, as Process::stop does
                termed = true;
            }
        }
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
    x.worker->wait(10.0);
}

void TaskRunner::run() {
    Exec x;
    std::string error;
    try {
        sink_.running();
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
        closed_ = true;
        pending_.clear();
    }
    if (x.live) x.live->stop();
    for (auto it = x.programs.rbegin(); it != x.programs.rend(); ++it) (*it)->stop(2.0);
    x.xvfb.reset();
    if (!x.script_file.empty()) {
        std::error_code ec;
        fs::remove(x.script_file, ec);
    }

    if (code && *code == 0 && error.empty()) {
        sink_.ended("completed", x.answer.empty() ? "任务完成。" : x.answer, "");
    } else if (stopped_) {
        std::string reason;
        {
            std::lock_guard<std::mutex> lock(mu_);
            reason = interrupt_reason_;
        }
        if (reason.empty())
            sink_.ended("stopped", "", "");
        else
            sink_.ended("interrupted", "", "interrupted: " + reason);
    } else {
        if (error.empty()) error = x.end_error;
        if (error.empty() && x.worker) {
            // No error of the run's own. A worker that exits by itself says why in its last line;
            // one a signal ended (a crash, a kill) may have said anything (even that its run
            // passed): the signal first.
            const std::string last = lastLine(x.worker->stderrText());
            if (code && *code > 128)
                error = "the worker was ended by signal " + std::to_string(*code - 128) + (last.empty() ? "" : " after: " + last);
            else
                error = last;
        }
        if (error.empty()) error = "the worker exited with status " + (code ? std::to_string(*code) : std::string("?"));
        sink_.ended("failed", "", error);
    }
}

}  // namespace eacu::server

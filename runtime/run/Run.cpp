#include "run/Run.h"

#include <chrono>

#include <nlohmann/json.hpp>

#include "base/Clock.h"
#include "step/Navigation.h"

namespace eacu {

RunRecord runRecordFor(const Device& device, const std::string& script, const std::vector<std::string>& args) {
    RunRecord rec;
    rec.script = script;
    rec.args_json = nlohmann::json(args).dump();
    rec.device = device.describe();
    Size size = device.screenSize();
    rec.screen_w = size.w;
    rec.screen_h = size.h;
    rec.scale = device.scaleFactor();
    return rec;
}

Run::Run(DeviceHandle device, const AssetLibrary& assets, const Locator& locator, RunSpec spec,
         std::unique_ptr<RunLog> log)
    : device_(std::move(device)),
      log_(log ? std::move(log) : std::make_unique<RunLog>(spec.db.empty() ? RunLog::defaultPath() : spec.db)),
      token_(std::make_shared<CancelToken>()) {
    if (!device_.device) throw std::invalid_argument("Run: expected a device, got none");
    installNavigationPolicy(*device_.device);  // seed 001 §9's domain lists for the page's own navigations
    RunRecord rec = runRecordFor(*device_.device, spec.script, spec.args);
    rec.replay_of = spec.replay_of;
    rec.replay_mode = spec.replay_mode;
    id_ = log_->beginRun(rec);
    SessionOptions so = std::move(spec.session);
    so.limits = spec.limits;
    so.cancel = token_;
    if (so.display.empty()) so.display = displayName();
    if (so.env.empty()) so.env = device_.env;
    session_ = std::make_unique<Session>(*device_.device, assets, locator, log_.get(), id_, std::move(so));
}

Run::~Run() {
    finish("the run ended without a result");
    {
        std::lock_guard<std::mutex> lock(watch_mu_);
        stop_watch_ = true;
    }
    watch_cv_.notify_all();
    if (watch_thread_.joinable()) watch_thread_.join();
    session_.reset();  // stops the programs it launched
    device_.device.reset();
    device_.virtual_display.reset();
}

std::string Run::displayName() const { return device_.display; }

void Run::cancel(const std::string& reason) {
    token_->cancel(reason);
    watch_cv_.notify_all();
}

RunOutcome Run::finish(const std::string& error) {
    std::lock_guard<std::mutex> lock(finish_mu_);
    if (finished_.load()) return outcome_;
    RunOutcome o;
    o.error = error;
    if (error.empty()) o.status = "passed";
    else if (token_->timedOut()) o.status = "timed_out";
    else if (token_->cancelled()) o.status = "interrupted";
    else o.status = "failed";
    try {
        log_->endRun(id_, o.status, o.error);
    } catch (const std::exception&) {
        // The log is unusable (disk full, db removed): the outcome is still returned.
    }
    outcome_ = o;
    finished_.store(true);
    watch_cv_.notify_all();
    return o;
}

void Run::watch(std::function<void()> interrupt, std::function<void(const RunOutcome&)> stuck, double grace) {
    if (watch_thread_.joinable()) throw std::logic_error("Run::watch: the watchdog is already running");
    watch_thread_ = std::thread([this, interrupt = std::move(interrupt), stuck = std::move(stuck), grace] {
        watchdog(interrupt, stuck, grace);
    });
}

void Run::watchdog(std::function<void()> interrupt, std::function<void(const RunOutcome&)> stuck, double grace) {
    std::unique_lock<std::mutex> lock(watch_mu_);
    // Wait for a cancellation (polled: the deadline and signals set no condition).
    while (!stop_watch_ && !finished_.load() && !token_->cancelled())
        watch_cv_.wait_for(lock, std::chrono::milliseconds(20));
    if (stop_watch_ || finished_.load()) return;
    lock.unlock();
    if (interrupt) interrupt();
    lock.lock();
    double until = monotonicSeconds() + grace;
    while (!stop_watch_ && !finished_.load() && monotonicSeconds() < until)
        watch_cv_.wait_for(lock, std::chrono::milliseconds(20));
    if (stop_watch_ || finished_.load()) return;
    lock.unlock();
    // The script did not stop (a native call that ignores the token): finish the run from
    // here. Its own connection writes the outcome, since the run's thread may hold its log.
    RunOutcome o;
    {
        std::lock_guard<std::mutex> flock(finish_mu_);
        if (finished_.load()) return;
        o.status = token_->timedOut() ? "timed_out" : "interrupted";
        o.error = token_->reason().empty() ? "cancelled" : token_->reason();
        o.error += " (the script did not stop within " + std::to_string(int(grace * 1000)) + " ms; ended by the watchdog)";
        try {
            RunLog(log_->path()).endRun(id_, o.status, o.error);
        } catch (const std::exception&) {
        }
        outcome_ = o;
        finished_.store(true);
    }
    session_->stopProcesses(0.2);
    if (stuck) stuck(o);
}

}  // namespace eacu

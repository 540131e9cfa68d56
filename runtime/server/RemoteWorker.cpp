#include "server/RemoteWorker.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#include <nlohmann/json.hpp>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "process/ProcessIdentity.h"
#include "runlog/WorkerTasks.h"
#include "server/RedisLayout.h"
#include "server/RedisTaskSink.h"
#include "server/TaskRunner.h"

using nlohmann::json;

namespace eacu::server {
namespace {

std::string ms(double seconds) { return std::to_string(int64_t(seconds * 1000)); }

void say(const std::string& what) {
    std::fprintf(stderr, "eacu worker: %s\n", what.c_str());
    std::fflush(stderr);
}

}  // namespace

struct RemoteWorker::Slot {
    int64_t task_id = 0;
    ServeConfig config;
    std::unique_ptr<RedisTaskSink> sink;
    std::unique_ptr<TaskRunner> runner;
    std::thread thread, control;
    std::atomic<bool> done{false};
};

RemoteWorker::RemoteWorker(WorkerOptions options) : o_(std::move(options)) {
    instance_ = hostName() + ":" + std::to_string(::getpid());
    hb_client_ = std::make_unique<RedisClient>(o_.url, 3.0, 5.0);
    hb_client_->checkServer();
    std::string protocol = hb_client_->command({"GET", redis::kProtocolKey}).text();
    if (!protocol.empty() && protocol != std::to_string(redis::kProtocol))
        throw std::runtime_error("the server on " + hb_client_->where() + " speaks eacu worker protocol " + protocol +
                                 ", this worker (eacu " EACU_VERSION ") protocol " + std::to_string(redis::kProtocol) +
                                 ": run the same eacu version on the server and its workers");
    if (protocol.empty())
        say("no eacu serve --queue has used " + hb_client_->where() + " yet: waiting for tasks anyway");
    std::string other = hb_client_->command({"HGET", redis::workerKey(o_.name), "instance"}).text();
    if (!other.empty() && other != instance_)
        throw std::runtime_error("a worker named \"" + o_.name + "\" is already registered on " + hb_client_->where() +
                                 " (" + other + "): give each worker its own --name (if that one died, its lease ends within " +
                                 std::to_string(int(o_.config.lease_seconds + 0.999)) + " s)");
    try {
        hb_client_->command({"XGROUP", "CREATE", redis::kTasks, redis::kGroup, "0", "MKSTREAM"});
    } catch (const RedisIoError&) {
        throw;
    } catch (const RedisError& e) {
        if (std::string(e.what()).find("BUSYGROUP") == std::string::npos) throw;
    }
    heartbeat();
    findUndelivered();
    heartbeat_thread_ = std::thread([this] { heartbeatLoop(); });
}

void RemoteWorker::findUndelivered() {
    WorkerTasks log(o_.config.db);
    size_t left = 0;
    for (const auto& t : log.undelivered(o_.url.database())) {
        // Its end was recorded (with its run) before the earlier process could note it: delivered.
        if (hb_client_->command({"HGET", redis::taskKey(t.task_id), "state"}).text() == "ended") {
            log.setState(t.queue, t.task_id, "delivered");
            continue;
        }
        homeless_.push_back(RedisTaskSink::leftOver(o_.url, t.task_id, t.run_id, o_.name, o_.config.events_ttl,
                                                    [this] { return leased(); }, o_.config.db));
        ++left;
    }
    say("run log " + o_.config.db + ": " + std::to_string(left) + " run" + (left == 1 ? "" : "s") +
        " of earlier tasks not delivered to the server" + (left ? " (sent home once each task is lost; never run again)" : ""));
}

RemoteWorker::~RemoteWorker() {
    stopping_ = true;
    if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
}

bool RemoteWorker::leased() const { return monotonicSeconds() - last_lease_ok_.load() < o_.config.lease_seconds; }

size_t RemoteWorker::busy() {
    std::lock_guard<std::mutex> lock(mu_);
    size_t n = 0;
    for (auto& s : slots_) n += s->done ? 0 : 1;
    return n;
}

bool RemoteWorker::heartbeat() {
    const double t0 = monotonicSeconds();
    std::vector<std::string> args{"EVAL", redis::kHeartbeatScript, "2", redis::workerKey(o_.name), redis::kWorkers,
                                  ms(o_.config.lease_seconds), o_.name};
    for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
             {"host", hostName()},
             {"instance", instance_},
             {"slots", std::to_string(o_.slots)},
             {"busy", std::to_string(busy())},
             {"device", o_.device},
             {"version", EACU_VERSION},
             {"protocol", std::to_string(redis::kProtocol)},
             {"draining", draining_ ? "1" : "0"},
             {"heartbeat", std::to_string(wallSeconds())}}) {
        args.push_back(k);
        args.push_back(v);
    }
    if (!hb_client_) hb_client_ = std::make_unique<RedisClient>(o_.url, 1.0, 3.0);
    bool had = hb_client_->command(args).integer == 1;
    // Renewed in time only if the reply came within the lease of the last renewal.
    const bool in_time = leased();
    last_lease_ok_ = t0;
    return had && in_time;
}

void RemoteWorker::abortAll(const std::string& reason) {
    std::lock_guard<std::mutex> lock(mu_);
    for (auto& s : slots_)
        if (!s->done) {
            say("task " + std::to_string(s->task_id) + ": " + reason + ": stopping its run now");
            s->runner->abort(reason);
        }
}

void RemoteWorker::heartbeatLoop() {
    double next = monotonicSeconds() + o_.config.heartbeat_seconds;
    bool was_leased = true;
    while (!stopping_) {
        CancelToken().sleep(0.05);
        // A gap longer than the lease (Redis unreachable, or this process paused): the server
        // may already have declared our tasks lost, so no further input.
        if (!leased()) {
            if (was_leased) abortAll("lost the lease (no renewal for longer than " + std::to_string(o_.config.lease_seconds) + " s)");
            was_leased = false;
        }
        if (monotonicSeconds() < next) continue;
        try {
            if (!heartbeat()) {
                abortAll("lost the lease (it had expired on Redis, or was renewed too late)");
            } else {
                // Each run is told how long the lease holds from now (seconds, not a time: no
                // clock is shared), so a run goes on sending input no longer than this worker
                // holds the task, even when this process alone is paused (ServeChannel::checkLease).
                const double left = o_.config.lease_seconds - (monotonicSeconds() - last_lease_ok_.load());
                const std::string line = json{{"type", "lease"}, {"seconds", left}}.dump();
                std::lock_guard<std::mutex> lock(mu_);
                for (auto& sl : slots_)
                    if (!sl->done) sl->runner->sendNow(line);
            }
            was_leased = true;
            next = monotonicSeconds() + o_.config.heartbeat_seconds;
        } catch (const std::exception&) {
            hb_client_.reset();
            next = monotonicSeconds() + std::min(1.0, o_.config.heartbeat_seconds);
        }
    }
}

void RemoteWorker::controlLoop(Slot& s) {
    std::unique_ptr<RedisClient> c;
    std::string cursor = "0-0";
    while (!s.done) {
        try {
            if (!c) c = std::make_unique<RedisClient>(o_.url, 1.0, 3.0);
            RedisReply r = c->command({"XREAD", "COUNT", "50", "BLOCK", "300", "STREAMS", redis::controlKey(s.task_id), cursor});
            for (const auto& stream : r.elements) {
                if (stream.elements.size() != 2) continue;
                for (const auto& e : stream.elements[1].elements) {
                    if (e.elements.size() != 2) continue;
                    cursor = e.elements[0].text();
                    std::string line;
                    for (size_t i = 0; i + 1 < e.elements[1].elements.size(); i += 2)
                        if (e.elements[1].elements[i].text() == "line") line = e.elements[1].elements[i + 1].text();
                    json m = json::parse(line, nullptr, false);
                    // A stop is the supervisor's (SIGTERM: the run ends interrupted); every other
                    // line goes to the run unchanged (§5.1).
                    if (m.is_object() && m.value("type", "") == "stop")
                        s.runner->stop();
                    else if (!line.empty())
                        s.runner->sendLine(line);
                }
            }
        } catch (const std::exception&) {
            c.reset();
            CancelToken().sleep(0.2);
        }
    }
}

void RemoteWorker::startTask(const std::string& payload) {
    json t = json::parse(payload);
    auto s = std::make_unique<Slot>();
    s->task_id = t.at("task_id").get<int64_t>();
    s->config = o_.config;
    s->config.max_actions = t.value("max_actions", s->config.max_actions);
    s->config.max_seconds = t.value("max_seconds", s->config.max_seconds);
    TaskRecord task;
    task.id = s->task_id;
    task.session_id = t.value("session_id", int64_t(0));
    task.kind = t.value("kind", "task");
    task.text = t.value("text", "");
    task.status = "running";
    s->sink = std::make_unique<RedisTaskSink>(o_.url, task.id, o_.name, o_.config.events_ttl, [this] { return leased(); }, s->config.db);
    if (task.kind == "script" && !o_.config.allow_scripts) {
        s->sink->running();
        s->sink->ended("failed", "", "the worker " + o_.name + " does not run Lua source tasks (start it with --allow-scripts)");
        say("task " + std::to_string(task.id) + ": refused (Lua source, no --allow-scripts)");
        return;
    }
    s->runner = std::make_unique<TaskRunner>(s->config, task, *s->sink);
    Slot* p = s.get();
    {
        std::lock_guard<std::mutex> lock(mu_);
        slots_.push_back(std::move(s));
    }
    say("task " + std::to_string(p->task_id) + ": committed, running");
    p->thread = std::thread([this, p] {
        p->runner->run();
        p->done = true;
        say("task " + std::to_string(p->task_id) + ": ended");
    });
    p->control = std::thread([this, p] { controlLoop(*p); });
}

bool RemoteWorker::takeOne(RedisClient& c) {
    // First a task another worker read but never committed (idle longer than a lease), then a new one.
    std::string id, payload;
    RedisReply claimed = c.command({"XAUTOCLAIM", redis::kTasks, redis::kGroup, o_.name, ms(o_.config.lease_seconds),
                                    "0-0", "COUNT", "1"});
    auto pick = [&](const RedisReply& entries) {
        for (const auto& e : entries.elements) {
            if (e.elements.size() != 2) continue;
            id = e.elements[0].text();
            for (size_t i = 0; i + 1 < e.elements[1].elements.size(); i += 2)
                if (e.elements[1].elements[i].text() == "task") payload = e.elements[1].elements[i + 1].text();
            return;
        }
    };
    if (claimed.elements.size() >= 2) pick(claimed.elements[1]);
    if (!id.empty()) say("claimed " + id + ", read but never committed by another worker");
    if (id.empty()) {
        RedisReply r = c.command({"XREADGROUP", "GROUP", redis::kGroup, o_.name, "COUNT", "1", "BLOCK", "500",
                                  "STREAMS", redis::kTasks, ">"});
        if (r.type == RedisReply::Type::Array && !r.elements.empty() && r.elements[0].elements.size() == 2)
            pick(r.elements[0].elements[1]);
    }
    if (id.empty()) return false;
    if (const char* f = std::getenv("EACU_FAULT"); f && std::string(f) == "after_read_before_commit") {
        say("EACU_FAULT=after_read_before_commit: exiting after reading " + id + " before committing it");
        std::_Exit(70);
    }
    json t = json::parse(payload, nullptr, false);
    if (!t.is_object() || !t.contains("task_id") || !t["task_id"].is_number_integer()) {
        c.command({"XACK", redis::kTasks, redis::kGroup, id});
        say("skipped entry " + id + ": expected a task object, got " + payload.substr(0, 80));
        return true;
    }
    const int64_t task_id = t["task_id"].get<int64_t>();
    std::string verdict = c.command({"EVAL", redis::kCommitScript, "3", redis::taskKey(task_id), redis::workerKey(o_.name),
                                     redis::kTasks, o_.name, redis::kGroup, id, std::to_string(wallSeconds()), instance_})
                              .text();
    if (verdict == "ok" && leased()) {
        startTask(payload);
    } else if (verdict == "ok") {
        // Committed, but our lease ran out meanwhile: the server will end it lost; no input.
        say("task " + std::to_string(task_id) + ": committed as the lease ran out: not run");
    } else {
        say("task " + std::to_string(task_id) + ": not run (" + verdict + ")");
    }
    return true;
}

int RemoteWorker::run(const std::atomic<bool>& stop, const std::atomic<bool>* drain) {
    std::unique_ptr<RedisClient> c;
    double backoff = 0.1;
    double drain_until = 0;
    while (!stop) {
        std::list<std::unique_ptr<Slot>> finished;
        {
            std::lock_guard<std::mutex> lock(mu_);
            for (auto it = slots_.begin(); it != slots_.end();) {
                auto next = std::next(it);
                if ((*it)->done) finished.splice(finished.end(), slots_, it);
                it = next;
            }
        }
        for (auto& s : finished) {
            s->thread.join();
            s->control.join();
            if (s->sink && s->sink->homePending()) homeless_.push_back(std::move(s->sink));
        }
        // A lost task's run comes home once this worker holds a lease again (never its input).
        if (!homeless_.empty() && leased()) {
            for (auto it = homeless_.begin(); it != homeless_.end();) {
                if (!(*it)->sendHome()) break;
                say("task " + std::to_string((*it)->taskId()) + ": its run (the task was lost) sent to the server");
                it = homeless_.erase(it);
            }
        }
        if (drain && *drain) {
            const size_t running = busy();
            if (!draining_.exchange(true)) {
                drain_until = monotonicSeconds() + o_.drain_seconds;
                say("draining: no new task; " + std::to_string(running) + " running, stopped after " +
                    std::to_string(int(o_.drain_seconds)) + " s if still running");
            }
            if (running == 0) {
                say("drained: no task running");
                break;
            }
            if (monotonicSeconds() >= drain_until) {
                say("drain time over: stopping the " + std::to_string(running) + " running task" +
                    (running == 1 ? "" : "s"));
                break;
            }
            CancelToken().sleep(0.05);
            continue;
        }
        if (busy() >= size_t(o_.slots) || !leased()) {
            CancelToken().sleep(0.05);
            continue;
        }
        try {
            if (!c) c = std::make_unique<RedisClient>(o_.url, 1.0, 3.0);
            takeOne(*c);
            backoff = 0.1;
        } catch (const std::exception& e) {
            c.reset();
            say(std::string(e.what()) + " (retrying)");
            CancelToken().sleep(backoff);
            backoff = std::min(1.0, backoff * 2);
        }
    }
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& s : slots_) s->runner->stop("the worker " + o_.name + " was stopped");
    }
    std::list<std::unique_ptr<Slot>> all;
    {
        std::lock_guard<std::mutex> lock(mu_);
        all.swap(slots_);
    }
    for (auto& s : all) {
        if (s->thread.joinable()) s->thread.join();
        if (s->control.joinable()) s->control.join();
    }
    stopping_ = true;
    if (heartbeat_thread_.joinable()) heartbeat_thread_.join();
    try {
        hb_client_ = std::make_unique<RedisClient>(o_.url, 1.0, 3.0);
        hb_client_->command({"DEL", redis::workerKey(o_.name)});
        hb_client_->command({"SREM", redis::kWorkers, o_.name});
    } catch (const std::exception&) {
    }
    return 0;
}

}  // namespace eacu::server

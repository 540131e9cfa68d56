#include "server/RemoteTasks.h"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include "base/Base64.h"
#include "base/Cancel.h"
#include "base/Clock.h"
#include "runlog/RunCopy.h"
#include "server/RedisLayout.h"

using nlohmann::json;

namespace eacu::server {
namespace {

// A reply's field/value array as a map.
std::map<std::string, std::string> fieldMap(const RedisReply& r) {
    std::map<std::string, std::string> m;
    for (size_t i = 0; i + 1 < r.elements.size(); i += 2) m[r.elements[i].text()] = r.elements[i + 1].text();
    return m;
}

}  // namespace

RemoteTasks::RemoteTasks(ServiceStore& store, const ServeConfig& config, const RedisUrl& url)
    : store_(store), config_(config), url_(url), client_(url), reader_(url, 3.0, 5.0) {
    client_.checkServer();
    try {
        client_.command({"XGROUP", "CREATE", redis::kTasks, redis::kGroup, "0", "MKSTREAM"});
    } catch (const RedisIoError&) {
        throw;
    } catch (const RedisError& e) {
        if (std::string(e.what()).find("BUSYGROUP") == std::string::npos) throw;
    }
    client_.command({"SET", redis::kProtocolKey, std::to_string(redis::kProtocol)});
    refreshActive();
    thread_ = std::thread([this] { relayLoop(); });
}

RemoteTasks::~RemoteTasks() { shutdown(); }

void RemoteTasks::shutdown() {
    stopping_ = true;
    if (thread_.joinable()) thread_.join();
}

void RemoteTasks::enqueue(int64_t task_id) {
    auto t = store_.with([&](ServiceLog& log) { return log.task(task_id); });
    if (!t) return;
    json payload{{"task_id", t->id},
                 {"session_id", t->session_id},
                 {"kind", t->kind},
                 {"text", t->text},
                 {"max_actions", config_.max_actions},
                 {"max_seconds", config_.max_seconds}};
    std::lock_guard<std::mutex> lock(mu_);
    client_.pipeline({{"MULTI"},
                      {"HSET", redis::taskKey(task_id), "state", "queued", "session_id", std::to_string(t->session_id),
                       "queued_at", std::to_string(wallSeconds())},
                      {"XADD", redis::kTasks, "*", "task", payload.dump()},
                      {"EXEC"}});
    if (!active_.count(task_id)) active_[task_id].events = eventsFor(*t);
}

bool RemoteTasks::stopQueued(int64_t task_id) {
    {
        std::lock_guard<std::mutex> lock(mu_);
        if (client_.command({"EVAL", redis::kStopQueuedScript, "1", redis::taskKey(task_id)}).integer != 1) return false;
    }
    auto task = store_.with([&](ServiceLog& log) {
        log.endTask(task_id, "stopped", "", "");
        return log.task(task_id);
    });
    if (task) store_.publish(*task, "task.stopped", json::object());
    // The relay forgets it on its next refresh (it has ended).
    return true;
}

bool RemoteTasks::stopRunning(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    if (client_.command({"HGET", redis::taskKey(task_id), "state"}).text() != "committed") return false;
    client_.command({"XADD", redis::controlKey(task_id), "*", "line",
                     json{{"type", "stop"}, {"reason", "stopped by the user"}}.dump()});
    return true;
}

std::shared_ptr<TaskEvents> RemoteTasks::activeEvents(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = active_.find(task_id);
    return it == active_.end() ? nullptr : it->second.events;
}

TaskEvents::SendLine RemoteTasks::controlOf(int64_t task_id) {
    // Called by TaskEvents without any lock of its own held (it never sends under one).
    return [this, task_id](const std::string& line) {
        std::lock_guard<std::mutex> lock(mu_);
        client_.command({"XADD", redis::controlKey(task_id), "*", "line", line});
    };
}

bool RemoteTasks::ack(int64_t task_id, const std::string& text) {
    auto events = activeEvents(task_id);
    return events && events->ack(text, controlOf(task_id));
}

bool RemoteTasks::takeOver(int64_t task_id) {
    auto events = activeEvents(task_id);
    return events && events->takeOver(controlOf(task_id));
}

bool RemoteTasks::handBack(int64_t task_id) {
    auto events = activeEvents(task_id);
    return events && events->handBack(controlOf(task_id));
}

InputOutcome RemoteTasks::input(int64_t task_id, const json& event, double timeout) {
    auto events = activeEvents(task_id);
    if (!events) return InputOutcome{false, 0, json(), "the task is not running"};
    return events->input(event, timeout, controlOf(task_id));
}

size_t RemoteTasks::queued() {
    return store_.with([](ServiceLog& log) { return log.tasksWithStatus({"queued"}).size(); });
}

json RemoteTasks::workers() {
    std::lock_guard<std::mutex> lock(mu_);
    json out = json::array();
    const double now = wallSeconds();
    for (const auto& name : client_.command({"SMEMBERS", redis::kWorkers}).elements) {
        auto f = fieldMap(client_.command({"HGETALL", redis::workerKey(name.text())}));
        if (f.empty()) {  // its lease expired: no longer a worker
            client_.command({"SREM", redis::kWorkers, name.text()});
            continue;
        }
        double hb = std::atof(f["heartbeat"].c_str());
        out.push_back({{"name", name.text()},
                       {"host", f["host"]},
                       {"slots", std::atoi(f["slots"].c_str())},
                       {"busy", std::atoi(f["busy"].c_str())},
                       {"device", f["device"]},
                       {"version", f["version"]},
                       {"protocol", std::atoi(f["protocol"].c_str())},
                       {"draining", f["draining"] == "1"},
                       {"last_heartbeat", hb},
                       {"age", now - hb}});
    }
    return {{"workers", out}};
}

std::shared_ptr<TaskEvents> RemoteTasks::eventsFor(const TaskRecord& t) {
    return std::make_shared<TaskEvents>(store_, t, "/api/tasks/" + std::to_string(t.id) + "/frames/", false);
}

std::optional<std::string> RemoteTasks::framePng(int64_t task_id, int64_t frame_id) {
    std::lock_guard<std::mutex> lock(mu_);
    RedisReply r = client_.command({"GET", redis::frameKey(task_id, frame_id)});
    if (r.isNil()) return std::nullopt;
    return r.str;
}

void RemoteTasks::recover() {
    auto open = store_.with([](ServiceLog& log) { return log.tasksWithStatus({"queued", "running", "awaiting_user"}); });
    for (const auto& t : open) {
        std::string state;
        {
            std::lock_guard<std::mutex> lock(mu_);
            state = client_.command({"HGET", redis::taskKey(t.id), "state"}).text();
        }
        if (!state.empty()) continue;
        if (t.status == "queued") {
            enqueue(t.id);
            continue;
        }
        const std::string why = "interrupted: the task's state is gone from Redis (" + where() + ")";
        TaskEvents(store_, t).ended("interrupted", "", why);
    }
}

void RemoteTasks::refreshActive() {
    auto open = store_.with([](ServiceLog& log) { return log.tasksWithStatus({"queued", "running", "awaiting_user"}); });
    std::lock_guard<std::mutex> lock(mu_);
    std::map<int64_t, bool> still;
    for (const auto& t : open) {
        still[t.id] = true;
        if (active_.count(t.id)) continue;
        Active a;
        a.events = eventsFor(t);
        a.events->restore();
        // A restarted server goes on from the last entry it relayed.
        auto h = fieldMap(client_.command({"HGETALL", redis::taskKey(t.id)}));
        if (!h["relayed"].empty()) a.cursor = h["relayed"];
        a.worker = h["worker"];
        active_[t.id] = std::move(a);
    }
    for (auto it = active_.begin(); it != active_.end();) it = still.count(it->first) ? std::next(it) : active_.erase(it);
}

bool RemoteTasks::relayEntry(int64_t task_id, Active& a, const RedisReply& fields) {
    auto f = fieldMap(fields);
    if (auto l = f.find("line"); l != f.end()) {
        a.events->line(l->second);
        return false;
    }
    json data = json::parse(f["data"], nullptr, false);
    if (!data.is_object()) return false;
    const std::string ev = f["ev"];
    if (ev == "started") {
        a.worker = data.value("worker", "");
        a.events->running();
    } else if (ev == "live") {
        std::string jpeg;
        {
            std::lock_guard<std::mutex> lock(mu_);
            jpeg = client_.command({"GET", data.value("key", "")}).text();
        }
        if (jpeg.empty()) return false;  // expired: a newer frame follows
        LiveFrame lf;
        lf.task_id = task_id;
        lf.jpeg.assign(jpeg.begin(), jpeg.end());
        lf.jpeg_base64 = base64Encode(jpeg);
        lf.width = data.value("width", 0);
        lf.height = data.value("height", 0);
        lf.cursor_x = data.value("cursor_x", -1);
        lf.cursor_y = data.value("cursor_y", -1);
        lf.time = data.value("time", 0.0);
        lf.marked = !(data.contains("marked") && data["marked"].is_boolean()) || data["marked"].get<bool>();
        a.events->live(std::move(lf));
    } else if (ev == "ended") {
        if (data.contains("run_key")) copyRun(task_id, data.value("run_key", ""));
        a.events->ended(data.value("status", "failed"), data.value("answer", ""), data.value("error", ""));
        return true;
    }
    return false;
}

int64_t RemoteTasks::copyRun(int64_t task_id, const std::string& key) {
    std::string bytes;
    {
        std::lock_guard<std::mutex> lock(mu_);
        bytes = client_.command({"GET", key}).text();
    }
    if (bytes.empty()) return 0;
    int64_t run = 0;
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("eacu-serve-" + std::to_string(::getpid()) + "-run" + std::to_string(task_id) + ".db"))
                                 .string();
    try {
        std::ofstream(file, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
        run = importRun(store_.path(), file);
        {
            std::lock_guard<std::mutex> lock(mu_);
            client_.command({"DEL", key});
        }
        store_.with([&](ServiceLog& log) {
            log.setTaskRun(task_id, run);
            return 0;
        });
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu serve: task %lld: its run was not copied: %s\n", (long long)task_id, e.what());
        run = 0;
    }
    std::error_code ec;
    std::filesystem::remove(file, ec);
    return run;
}

void RemoteTasks::bringRunsHome() {
    RedisReply entries;
    {
        std::lock_guard<std::mutex> lock(mu_);
        entries = client_.command({"XRANGE", redis::kRunsHome, "-", "+", "COUNT", "20"});
    }
    for (const auto& e : entries.elements) {
        if (e.elements.size() != 2) continue;
        const std::string entry = e.elements[0].text();
        auto f = fieldMap(e.elements[1]);
        const int64_t task_id = std::atoll(f["task_id"].c_str());
        std::optional<TaskRecord> t = task_id > 0 ? store_.with([&](ServiceLog& log) { return log.task(task_id); })
                                                  : std::nullopt;
        // Only a lost task takes a run home, once (its run here is not one marked lost yet); a
        // task the reaper has not declared lost yet keeps its entry for a later round.
        const std::string status = t ? t->status : "";
        if (status == "queued" || status == "running" || status == "awaiting_user") continue;
        const bool home = status == "lost" && f["run_key"] == redis::runKey(task_id) &&
                          !store_.with([&](ServiceLog& log) {
                              auto r = t->run_id ? log.run(*t->run_id) : std::nullopt;
                              return r && r->status == "lost";
                          });
        if (home) {
            if (int64_t run = copyRun(task_id, f["run_key"])) {
                store_.with([&](ServiceLog& log) {
                    log.markRunLost(run, "lost: the task was declared lost (worker " + f["worker"] +
                                             " stopped renewing its lease); this run came home from the worker afterwards");
                    return 0;
                });
                std::fprintf(stderr, "eacu serve: task %lld: the run of the lost task came home from worker %s (run %lld)\n",
                             (long long)task_id, f["worker"].c_str(), (long long)run);
            }
        }
        std::lock_guard<std::mutex> lock(mu_);
        client_.command({"XDEL", redis::kRunsHome, entry});
    }
}

void RemoteTasks::relayBatch() {
    // A short block: a task enqueued meanwhile is read from the next call on.
    std::vector<std::string> args{"XREAD", "COUNT", "200", "BLOCK", "50", "STREAMS"};
    std::vector<int64_t> ids;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, a] : active_) ids.push_back(id);
        for (auto id : ids) args.push_back(redis::eventsKey(id));
        for (auto id : ids) args.push_back(active_[id].cursor);
    }
    if (ids.empty()) {
        CancelToken().sleep(0.05);
        return;
    }
    RedisReply r = reader_.command(args);
    if (r.type != RedisReply::Type::Array) return;
    for (const auto& stream : r.elements) {
        if (stream.elements.size() != 2) continue;
        const std::string key = stream.elements[0].text();
        int64_t task_id = std::atoll(key.substr(std::string("eacu:task:").size()).c_str());
        Active* a;
        {
            std::lock_guard<std::mutex> lock(mu_);
            auto it = active_.find(task_id);
            if (it == active_.end()) continue;
            a = &it->second;
        }
        const auto& entries = stream.elements[1].elements;
        // Only the newest live frame of a batch is worth relaying (a server catching up).
        size_t last_live = entries.size();
        for (size_t i = 0; i < entries.size(); ++i)
            if (entries[i].elements.size() == 2 && fieldMap(entries[i].elements[1])["ev"] == "live") last_live = i;
        bool ended = false;
        for (size_t i = 0; i < entries.size() && !ended; ++i) {
            const auto& e = entries[i];
            if (e.elements.size() != 2) continue;
            a->cursor = e.elements[0].text();
            auto f = fieldMap(e.elements[1]);
            if (f["ev"] == "live" && i != last_live) continue;
            ended = relayEntry(task_id, *a, e.elements[1]);
        }
        {
            std::lock_guard<std::mutex> lock(mu_);
            client_.command({"HSET", redis::taskKey(task_id), "relayed", a->cursor});
        }
        if (ended) finishTask(task_id);
    }
}

void RemoteTasks::finishTask(int64_t task_id) {
    std::lock_guard<std::mutex> lock(mu_);
    active_.erase(task_id);
}

void RemoteTasks::reap() {
    bringRunsHome();
    std::vector<std::pair<int64_t, std::string>> lost;
    {
        std::lock_guard<std::mutex> lock(mu_);
        for (auto& [id, a] : active_) {
            auto h = client_.command({"HMGET", redis::taskKey(id), "state", "worker"});
            if (h.elements.size() != 2 || h.elements[0].text() != "committed") continue;
            std::string worker = h.elements[1].text();
            auto r = client_.command({"EVAL", redis::kLostScript, "2", redis::taskKey(id), redis::workerKey(worker),
                                      std::to_string(wallSeconds())});
            if (r.integer == 1) lost.emplace_back(id, worker);
        }
    }
    for (auto& [id, worker] : lost) {
        // What the worker sent before it went silent is relayed first.
        Active* a;
        {
            std::lock_guard<std::mutex> lock(mu_);
            a = &active_[id];
        }
        RedisReply rest = reader_.command({"XRANGE", redis::eventsKey(id), "(" + a->cursor, "+"});
        for (const auto& e : rest.elements)
            if (e.elements.size() == 2) {
                a->cursor = e.elements[0].text();
                if (fieldMap(e.elements[1])["ev"] != "live") relayEntry(id, *a, e.elements[1]);
            }
        std::string last = a->events->lastStep();
        std::string error = "lost: worker " + worker + " stopped renewing its lease (no heartbeat); last step done: " +
                            (last.empty() ? "none" : last) + ". It is not run again: send it again to retry.";
        a->events->ended("lost", "", error);
        {
            std::lock_guard<std::mutex> lock(mu_);
            const std::string ttl = std::to_string(int64_t(config_.events_ttl));
            client_.pipeline({{"HSET", redis::taskKey(id), "relayed", a->cursor},
                              {"EXPIRE", redis::taskKey(id), ttl},
                              {"EXPIRE", redis::eventsKey(id), ttl},
                              {"EXPIRE", redis::controlKey(id), ttl}});
        }
        finishTask(id);
    }
}

void RemoteTasks::relayLoop() {
    double backoff = 0.1;
    while (!stopping_) {
        try {
            const double now = monotonicSeconds();
            if (now - last_refresh_ >= 0.5) {
                refreshActive();
                last_refresh_ = now;
            }
            relayBatch();
            if (monotonicSeconds() - last_reap_ >= config_.reaper_seconds) {
                reap();
                last_reap_ = monotonicSeconds();
            }
            backoff = 0.1;
        } catch (const std::exception& e) {
            // Redis went away (restarted, network): try again, at most once a second.
            std::fprintf(stderr, "eacu serve: %s (retrying in %.1f s)\n", e.what(), backoff);
            CancelToken().sleep(backoff);
            backoff = std::min(1.0, backoff * 2);
        }
    }
}

}  // namespace eacu::server

#include "server/RedisTaskSink.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "base/Cancel.h"
#include "base/Clock.h"
#include "runlog/RunCopy.h"
#include "runlog/WorkerTasks.h"
#include "server/RedisLayout.h"

using nlohmann::json;

namespace eacu::server {

RedisTaskSink::RedisTaskSink(const RedisUrl& url, int64_t task_id, std::string worker, double events_ttl,
                             std::function<bool()> leased, std::string run_log)
    : url_(url),
      task_id_(task_id),
      worker_(std::move(worker)),
      events_ttl_(events_ttl),
      leased_(std::move(leased)),
      run_log_(std::move(run_log)) {}

std::unique_ptr<RedisTaskSink> RedisTaskSink::leftOver(const RedisUrl& url, int64_t task_id, int64_t run_id,
                                                       std::string worker, double events_ttl,
                                                       std::function<bool()> leased, std::string run_log) {
    auto s = std::make_unique<RedisTaskSink>(url, task_id, std::move(worker), events_ttl, std::move(leased),
                                             std::move(run_log));
    s->run_id_ = run_id;
    s->home_pending_ = true;
    return s;
}

void RedisTaskSink::record(const std::string& state) {
    try {
        WorkerTasks log(run_log_);
        if (state == "running")
            log.started(url_.database(), task_id_, run_id_, worker_);
        else
            log.setState(url_.database(), task_id_, state);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "eacu worker: task %lld: its run's delivery not recorded (%s): %s\n", (long long)task_id_,
                     state.c_str(), e.what());
    }
}

void RedisTaskSink::copyFrames(const std::string& line) {
    json m = json::parse(line, nullptr, false);
    if (m.is_object() && m.value("type", "") == "run" && m.contains("run_id") && m["run_id"].is_number_integer() &&
        run_id_ == 0) {
        run_id_ = m["run_id"].get<int64_t>();
        // Before the line goes out: a worker killed from here on finds the run at its next start.
        record("running");
    }
    if (!m.is_object() || m.value("type", "") != "step" || !m.contains("step") || !m["step"].is_object()) return;
    for (const char* k : {"frame_before", "frame_after"}) {
        const json& f = m["step"].value(k, json());
        if (!f.is_number_integer()) continue;
        std::string png;
        try {
            if (!reader_) reader_ = std::make_unique<RunReader>(run_log_);
            auto bytes = reader_->framePng(f.get<int64_t>());
            png.assign(bytes.begin(), bytes.end());
        } catch (const std::exception&) {
            continue;  // not in the run log: the page shows no screenshot for it
        }
        write({"SET", redis::frameKey(task_id_, f.get<int64_t>()), png, "EX", std::to_string(int64_t(events_ttl_))});
    }
}

bool RedisTaskSink::write(const std::vector<std::string>& args, RedisReply* out) {
    double backoff = 0.05;
    for (;;) {
        {
            std::lock_guard<std::mutex> lock(mu_);
            try {
                if (!client_) client_ = std::make_unique<RedisClient>(url_, 1.0, 3.0);
                RedisReply r = client_->command(args);
                if (out) *out = std::move(r);
                return true;
            } catch (const RedisIoError&) {
                client_.reset();
            } catch (const RedisError&) {
                return false;  // an error reply: retrying would not help
            }
        }
        if (!leased_()) return false;
        CancelToken().sleep(backoff);
        backoff = std::min(1.0, backoff * 2);
    }
}

void RedisTaskSink::running() {
    write({"XADD", redis::eventsKey(task_id_), "MAXLEN", "~", std::to_string(redis::kEventsMaxLen), "*", "ev", "started",
           "data", json{{"worker", worker_}}.dump()});
}

void RedisTaskSink::line(const std::string& line) {
    copyFrames(line);
    write({"XADD", redis::eventsKey(task_id_), "MAXLEN", "~", std::to_string(redis::kEventsMaxLen), "*", "line", line});
}

void RedisTaskSink::live(LiveFrame frame) {
    // Best effort, never retried: the next frame replaces this one.
    std::lock_guard<std::mutex> lock(mu_);
    try {
        if (!client_) return;
        const std::string key = redis::liveKey(task_id_);
        json data{{"key", key},          {"seq", ++live_seq_},        {"width", frame.width},
                  {"height", frame.height}, {"cursor_x", frame.cursor_x}, {"cursor_y", frame.cursor_y},
                  {"time", frame.time}, {"marked", frame.marked}};
        client_->pipeline({{"SET", key, std::string(frame.jpeg.begin(), frame.jpeg.end()), "PX",
                            std::to_string(redis::kLiveTtlMs)},
                           {"XADD", redis::eventsKey(task_id_), "MAXLEN", "~", std::to_string(redis::kEventsMaxLen),
                            "*", "ev", "live", "data", data.dump()}});
    } catch (const RedisIoError&) {
        client_.reset();
    } catch (const RedisError&) {
    }
}

std::string RedisTaskSink::putRun(std::string* error) {
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("eacu-worker-" + std::to_string(::getpid()) + "-run" + std::to_string(run_id_) + ".db"))
                                 .string();
    std::string key;
    try {
        reader_.reset();
        exportRun(run_log_, run_id_, file);
        std::ifstream in(file, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        if (write({"SET", redis::runKey(task_id_), bytes, "EX", std::to_string(int64_t(events_ttl_))}))
            key = redis::runKey(task_id_);
    } catch (const std::exception& e) {
        if (error) *error = e.what();
    }
    std::error_code ec;
    std::filesystem::remove(file, ec);
    return key;
}

void RedisTaskSink::ended(const std::string& status, const std::string& answer, const std::string& error) {
    json data{{"status", status}, {"answer", answer}, {"error", error}, {"worker", worker_}};
    // The run (steps, frames, model calls) for the server's run log, as an SQLite file.
    if (run_id_ > 0) {
        std::string why;
        if (std::string key = putRun(&why); !key.empty()) data["run_key"] = key;
        else if (!why.empty()) data["run_copy_error"] = why;
    }
    RedisReply r;
    const bool wrote = write({"EVAL", redis::kEndScript, "3", redis::taskKey(task_id_), redis::eventsKey(task_id_),
                              redis::controlKey(task_id_), worker_, status, std::to_string(wallSeconds()), data.dump(),
                              std::to_string(int64_t(events_ttl_))},
                             &r);
    // Refused: the task is no longer ours (lost); not written: the lease ran out first.
    home_pending_ = run_id_ > 0 && (!wrote || r.integer == 0);
    if (run_id_ > 0 && !home_pending_) record("delivered");
}

bool RedisTaskSink::sendHome() {
    if (!home_pending_) return true;
    std::string why;
    const std::string key = putRun(&why);
    if (key.empty()) {
        if (!why.empty()) {  // the run cannot be exported: nothing to send
            std::fprintf(stderr, "eacu worker: task %lld: its run %lld cannot be sent home: %s\n", (long long)task_id_,
                         (long long)run_id_, why.c_str());
            home_pending_ = false;
            record("unsendable");
        }
        return !home_pending_;
    }
    if (!write({"XADD", redis::kRunsHome, "*", "task_id", std::to_string(task_id_), "run_key", key, "worker", worker_}))
        return false;
    home_pending_ = false;
    record("sent_home");
    return true;
}

}  // namespace eacu::server

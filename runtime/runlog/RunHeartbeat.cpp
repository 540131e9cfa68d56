#include "runlog/RunHeartbeat.h"

#include <chrono>
#include <stdexcept>

#include "base/Clock.h"
#include "runlog/Statement.h"

namespace eacu {

RunHeartbeat::RunHeartbeat(const std::string& path, int64_t run_id, double period)
    : run_id_(run_id), period_(period) {
    if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE, nullptr) != SQLITE_OK) {
        std::string msg = db_ ? sqlite3_errmsg(db_) : "out of memory";
        sqlite3_close(db_);
        throw std::runtime_error("run log " + path + ": heartbeat: " + msg);
    }
    sqlite3_busy_timeout(db_, 1000);
    thread_ = std::thread([this] { loop(); });
}

RunHeartbeat::~RunHeartbeat() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_ = true;
    }
    cv_.notify_all();
    if (thread_.joinable()) thread_.join();
    sqlite3_close(db_);
}

void RunHeartbeat::loop() {
    std::unique_lock<std::mutex> lock(mu_);
    while (!cv_.wait_for(lock, std::chrono::duration<double>(period_), [this] { return stop_; })) {
        lock.unlock();
        bool open = true;
        try {
            Statement q(db_, "UPDATE runs SET heartbeat_at=? WHERE id=? AND status='running'");
            q.bind(1, wallSeconds()).bind(2, run_id_);
            q.run();
            open = sqlite3_changes(db_) > 0;
        } catch (const std::exception&) {
            // Skipped; the next beat tries again.
        }
        lock.lock();
        if (!open) return;  // the run has ended (or its row is gone)
    }
}

}  // namespace eacu

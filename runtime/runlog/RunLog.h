// The run log: a SQLite file (WAL) recording runs, their steps, frames and model calls.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "base/Frame.h"
#include "model/ModelCallStore.h"
#include "runlog/DiskReserve.h"
#include "runlog/RunHeartbeat.h"
#include "runlog/RunReader.h"

namespace eacu {

/// The SQLite run log: the reader's queries plus the writes, on one connection. Every write
/// is its own transaction, committed before the call returns, so a killed process loses at
/// most the step in flight. It is the model layer's ModelCallStore: model calls go to
/// `model_calls` on the same connection. Not thread-safe: one per thread.
/// All methods throw std::runtime_error("run log <path>: <sqlite message>") on SQLite errors.
class RunLog : public RunReader, public model::ModelCallStore {
public:
    /// Opens (creating if needed) the file at `path`, creating parent folders, switching to
    /// WAL, and creating or migrating the schema to kRunLogSchemaVersion, then checks it can
    /// write (see RunReader(path, writer)). Throws if the file is not a SQLite database, was
    /// written by a newer eacu, is read-only ("cannot write: read-only file ...") or stays
    /// locked by another process for RunReader::kBusyTimeoutSeconds ("is locked by another
    /// process (waited 5 s)"); nothing is written then.
    explicit RunLog(const std::string& path);
    ~RunLog() override;

    /// Inserts a run with status "running" and this process's pid, start time and host
    /// (ProcessIdentity.h), starts its heartbeat (RunHeartbeat, every kRunHeartbeatSeconds
    /// until endRun or the destruction of this RunLog) and keeps kEndReserveBytes of disk
    /// beside the file for endRun (DiskReserve); returns its id.
    int64_t beginRun(const RunRecord& run);
    /// Stops the run's heartbeat and sets the final status ("passed", "failed", "interrupted"),
    /// error and end time. When that write fails (the disk is full), the reserve kept by
    /// beginRun is freed and the write tried once more.
    void endRun(int64_t run_id, const std::string& status, const std::string& error);
    /// Disk kept free for endRun's write: a few WAL frames of 4 KiB pages, with room to spare.
    static constexpr size_t kEndReserveBytes = 256 * 1024;
    /// Stores a frame as PNG (fast compression); returns its id.
    int64_t addFrame(int64_t run_id, const Frame& frame);
    /// Inserts a finished step; returns its id.
    int64_t addStep(const StepRecord& step);
    /// Inserts a model call (its id is ignored; created_at 0 = now; run_id/step_id 0 are stored
    /// as NULL); returns its id.
    int64_t addModelCall(const ModelCallRecord& call) override;
    /// RunReader::modelCallByCacheKey (the response cache's lookup).
    std::optional<ModelCallRecord> modelCallByCacheKey(const std::string& cache_key) const override {
        return RunReader::modelCallByCacheKey(cache_key);
    }

private:
    std::unique_ptr<RunHeartbeat> heartbeat_;  // of the run begun last, until it ends
    std::unique_ptr<DiskReserve> reserve_;     // room for that run's endRun
};

}  // namespace eacu

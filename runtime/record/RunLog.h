// The run log: a SQLite file (WAL) recording runs, their steps, frames and model calls.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "base/Frame.h"
#include "model/ModelCallStore.h"
#include "record/RunReader.h"

namespace eacu {

/// The SQLite run log: the reader's queries plus the writes, on one connection. Every write
/// is its own transaction, committed before the call returns, so a killed process loses at
/// most the step in flight. It is the model layer's ModelCallStore: model calls go to
/// `model_calls` on the same connection. Not thread-safe: one per thread.
/// All methods throw std::runtime_error("run log <path>: <sqlite message>") on SQLite errors.
class RunLog : public RunReader, public model::ModelCallStore {
public:
    /// Opens (creating if needed) the file at `path`, creating parent folders, switching to
    /// WAL, and creating or migrating the schema to kRunLogSchemaVersion. Throws if the file is
    /// not a SQLite database or was written by a newer eacu.
    explicit RunLog(const std::string& path);

    /// Inserts a run with status "running"; returns its id.
    int64_t beginRun(const RunRecord& run);
    /// Sets the final status ("passed", "failed", "interrupted"), error and end time.
    void endRun(int64_t run_id, const std::string& status, const std::string& error);
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
};

}  // namespace eacu

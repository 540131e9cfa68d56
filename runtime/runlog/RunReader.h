// Reading the run log: runs, their steps, frames and model calls. The report, the CLI and
// replays read through this class; no SQL lives outside runtime/record.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runlog/RunRecords.h"
#include "runlog/Schema.h"

struct sqlite3;

namespace eacu {

/// One connection to a run-log file (SQLite, WAL), with the queries that read it. RunLog adds
/// the writes on the same connection. Not thread-safe: one per thread.
/// All methods throw std::runtime_error("run log <path>: <sqlite message>") on SQLite errors.
class RunReader {
public:
    /// Opens (creating if needed) the file at `path`, creating parent folders, switching to
    /// WAL, and creating or migrating the schema to kRunLogSchemaVersion (so an older file
    /// reads like a new one). Throws if the file is not a SQLite database or was written by a
    /// newer eacu; the message names the path.
    explicit RunReader(const std::string& path);
    virtual ~RunReader();
    RunReader(const RunReader&) = delete;
    RunReader& operator=(const RunReader&) = delete;

    const std::string& path() const { return path_; }
    /// The schema version of the open file.
    int schemaVersion() const;

    /// The run with this id (with its step count), or nullopt.
    std::optional<RunRecord> run(int64_t id) const;
    /// Runs matching `filter`, most recent first.
    std::vector<RunRecord> listRuns(const RunFilter& filter = {}) const;
    /// The runs that replay run `run_id` (`eacu replay`), in the order they were made.
    std::vector<RunRecord> replaysOf(int64_t run_id) const;
    /// The id of the newest run, or 0 when there is none.
    int64_t latestRunId() const;

    /// Steps of a run in order (idx, then id).
    std::vector<StepRecord> steps(int64_t run_id) const;
    /// How many steps a run has.
    int64_t stepCount(int64_t run_id) const;
    /// Frames of a run in the order they were taken (without their pixels).
    std::vector<FrameRecord> frames(int64_t run_id) const;
    /// The PNG bytes of a frame; throws if there is no such frame.
    std::vector<unsigned char> framePng(int64_t frame_id) const;

    /// The model calls of a run in call order (seq, then id).
    std::vector<ModelCallRecord> modelCalls(int64_t run_id) const;
    /// The newest model call with this cache key and status ok (a live answer), or nullopt.
    std::optional<ModelCallRecord> modelCallByCacheKey(const std::string& cache_key) const;

    /// The default path: $EACU_DB, else $XDG_DATA_HOME/eacu/runs.db, else
    /// ~/.local/share/eacu/runs.db.
    static std::string defaultPath();

    /// How long a connection waits for another one's lock before it fails (seconds).
    static constexpr double kBusyTimeoutSeconds = 5.0;

protected:
    /// Opens like RunReader(path); `writer` also refuses, before opening, a file or folder
    /// without write permission bits (even for root), and takes the write lock once after
    /// opening. Errors: "run log <path>: cannot write: read-only file (...)" / "read-only
    /// directory D (...)", "run log <path>: is locked by another process (waited N s): ...".
    RunReader(const std::string& path, bool writer);
    /// The open connection, for RunLog's writes.
    sqlite3* db() const { return db_; }
    /// Throws std::runtime_error("run log <path>: <what>").
    [[noreturn]] void fail(const std::string& what) const;

private:
    void refuseReadOnly() const;
    /// `what` (SQLite's message after a failed statement), said as a run-log problem when it
    /// is a lock (`waited`: seconds) or a read-only file or folder.
    std::string explain(const std::string& what, double waited) const;

    std::string path_;
    sqlite3* db_ = nullptr;
};

}  // namespace eacu

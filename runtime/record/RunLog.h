// The run log: a SQLite file (WAL) recording runs, their steps and frames.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "base/Frame.h"
#include "geometry/Rect.h"

struct sqlite3;

namespace eacu {

/// Current schema version, stored in PRAGMA user_version. RunLog migrates older files.
inline constexpr int kRunLogSchemaVersion = 2;

/// One row of `runs`. Times are seconds since the Unix epoch.
struct RunRecord {
    int64_t id = 0;
    std::string script;
    std::string args_json = "[]";
    std::string device;
    int screen_w = 0, screen_h = 0;
    double scale = 1.0;
    std::string status;  // running | passed | failed | interrupted
    std::string error;
    double started_at = 0, ended_at = 0;
    int64_t step_count = 0;  // filled by listRuns/run
    std::optional<int64_t> replay_of;  // the run this run replays (eacu replay), if any
    std::string replay_mode;           // "actions" | "script" for a replay, else ""
};

/// One row of `steps`: an action with what it looked for and what it found.
/// Boxes and points are physical pixels of the before-frame; `score` is the raw match score.
struct StepRecord {
    int64_t id = 0;
    int64_t run_id = 0;
    int idx = 0;                      // 1-based order within the run
    std::optional<int64_t> parent_id; // enclosing step, if any
    std::string action;               // tap, double_tap, input, key, locate, wait, ...
    std::string target;               // what was sought, as the script named it
    std::string params_json = "{}";
    std::string method;               // template, point, ...
    std::optional<double> score, threshold;
    std::optional<Rect> box;
    std::optional<Point> input;
    std::string status;               // ok | failed
    std::string error;
    std::optional<double> change_ratio;
    std::optional<double> settle_ms, locate_ms, action_ms;
    double started_at = 0, ended_at = 0;
    std::optional<int64_t> frame_before, frame_after;
    std::string transform_json = "{}"; // the coordinate transform used, e.g. {"scale":1}
};

/// One row of `frames` (the PNG itself is fetched by framePng).
struct FrameRecord {
    int64_t id = 0;
    int64_t run_id = 0;
    int width = 0, height = 0;
    double scale = 1.0;
    double taken_at = 0;
};

/// Filters for listRuns; empty/zero means "any".
struct RunFilter {
    std::string status;
    std::string script_contains;
    double since = 0;  // started_at >= since
    int limit = 20;
};

/// The SQLite run log. Every write is its own transaction, committed before the call returns,
/// so a killed process loses at most the step in flight. Not thread-safe: one per thread.
/// All methods throw std::runtime_error("run log <path>: <sqlite message>") on SQLite errors.
class RunLog {
public:
    /// Opens (creating if needed) the file at `path`, creating parent folders, switching to
    /// WAL, and creating or migrating the schema to kRunLogSchemaVersion. Throws if the file is
    /// not a SQLite database or was written by a newer eacu.
    explicit RunLog(const std::string& path);
    ~RunLog();
    RunLog(const RunLog&) = delete;
    RunLog& operator=(const RunLog&) = delete;

    const std::string& path() const { return path_; }

    /// Inserts a run with status "running"; returns its id.
    int64_t beginRun(const RunRecord& run);
    /// Sets the final status ("passed", "failed", "interrupted"), error and end time.
    void endRun(int64_t run_id, const std::string& status, const std::string& error);
    /// Stores a frame as PNG (fast compression); returns its id.
    int64_t addFrame(int64_t run_id, const Frame& frame);
    /// Inserts a finished step; returns its id.
    int64_t addStep(const StepRecord& step);

    std::optional<RunRecord> run(int64_t id) const;
    /// Most recent runs first.
    std::vector<RunRecord> listRuns(const RunFilter& filter = {}) const;
    /// Steps of a run in order.
    std::vector<StepRecord> steps(int64_t run_id) const;
    std::vector<FrameRecord> frames(int64_t run_id) const;
    /// The PNG bytes of a frame; throws if there is no such frame.
    std::vector<unsigned char> framePng(int64_t frame_id) const;
    /// The id of the newest run, or 0 when there is none.
    int64_t latestRunId() const;
    /// The schema version of the open file.
    int schemaVersion() const;

    /// The default path: $EACU_DB, else $XDG_DATA_HOME/eacu/runs.db, else
    /// ~/.local/share/eacu/runs.db.
    static std::string defaultPath();

private:
    void exec(const std::string& sql) const;
    void migrate();
    [[noreturn]] void fail(const std::string& what) const;

    std::string path_;
    sqlite3* db_ = nullptr;
};

}  // namespace eacu

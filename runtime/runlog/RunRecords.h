// The rows of the run log as the writer takes them and the reader returns them.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include "geometry/Rect.h"
#include "model/ModelCallStore.h"

namespace eacu {

/// One row of `runs`. Times are seconds since the Unix epoch.
struct RunRecord {
    int64_t id = 0;
    std::string script;
    std::string args_json = "[]";
    std::string device;
    int screen_w = 0, screen_h = 0;
    double scale = 1.0;
    std::string status;  // running | passed | failed | interrupted | timed_out; readers show
                         // crashed for a running run whose process is gone (RunLiveness.h)
    std::string error;
    double started_at = 0, ended_at = 0;
    int64_t step_count = 0;  // filled by the reader
    std::optional<int64_t> replay_of;  // the run this run replays (eacu replay), if any
    std::string replay_mode;           // "actions" | "script" for a replay, else ""
    // The writer (schema 5; 0/"" in older rows), filled by RunLog::beginRun: its pid, its start
    // time (field 22 of /proc/PID/stat, clock ticks since boot), its host (gethostname), and
    // the last heartbeat (seconds since the epoch, refreshed every kRunHeartbeatSeconds while
    // the run is open).
    int64_t pid = 0;
    int64_t pid_start = 0;
    std::string host;
    double heartbeat_at = 0;
    std::string stored_status;  // the status column as stored (filled by the reader)
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
    std::string actor = "script";      // who did it: script | model | user (the person, serve's page)
};

/// One row of `frames` (the PNG itself is fetched by RunReader::framePng).
/// `width`, `height`: physical pixels; `scale`: device pixels per logical pixel.
struct FrameRecord {
    int64_t id = 0;
    int64_t run_id = 0;
    int width = 0, height = 0;
    double scale = 1.0;
    double taken_at = 0;
};

/// One row of `model_calls` (defined with the model layer, which writes them).
using ModelCallRecord = model::ModelCallRecord;

/// Filters for RunReader::listRuns; empty/zero/false means "any".
/// - `since`: started_at >= since (seconds since the Unix epoch).
/// - `limit`: at most this many runs, the newest.
/// - `replays_only`: only runs made by `eacu replay` (replay_of set).
/// - `status`: the shown status (so "crashed" and "running" are told apart as readers show them).
struct RunFilter {
    std::string status;
    std::string script_contains;
    double since = 0;
    int limit = 20;
    bool replays_only = false;
};

}  // namespace eacu

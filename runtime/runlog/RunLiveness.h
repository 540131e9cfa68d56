// Whether a run recorded as "running" still runs: the one place that decides it, for every
// reader of the run log (eacu runs, show, report, replay, serve).
#pragma once

#include "runlog/RunRecords.h"

namespace eacu {

/// How often an open run's writer refreshes runs.heartbeat_at (seconds).
inline constexpr double kRunHeartbeatSeconds = 2.0;
/// A run of another host whose heartbeat is older than this (seconds) has crashed.
inline constexpr double kRunHeartbeatStaleSeconds = 30.0;

/// The status to show for `run` at wall time `now` (seconds since the Unix epoch): its stored
/// status, except that a "running" run whose process is gone is "crashed":
/// - written on this host (run.host == gethostname): crashed when no process runs with its
///   pid, or the process with that pid started at another time than run.pid_start (the pid
///   was reused); no heartbeat is needed;
/// - written on another host, or before schema 5 (no pid): crashed when its heartbeat (else
///   its start) is older than kRunHeartbeatStaleSeconds.
/// Never writes: the stored row keeps "running" (see docs/runlog-and-replay.md, "The run log").
std::string shownRunStatus(const RunRecord& run, double now);

}  // namespace eacu

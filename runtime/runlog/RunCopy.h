// One run carried from one run log to another (issue 26: a task run by `eacu worker` on another
// machine ends up in the server's run log, so eacu show/report/replay work there): its row, its
// frames, its steps and its model calls, under new ids in the receiving file.
#pragma once
#include <cstdint>
#include <string>

namespace eacu {

/// Writes run `run_id` of the run log at `from` (its row, frames, steps, model calls) into a new
/// SQLite file `to` (replaced if it exists), one table each with the same columns. Throws
/// std::runtime_error("run copy: ...") when the run is not there or SQLite fails.
void exportRun(const std::string& from, int64_t run_id, const std::string& to);

/// Inserts the run that `file` (written by exportRun) holds into the run log at `into` (it must
/// exist with the current schema), in one transaction: new ids for the run, its frames, steps
/// and model calls, with the steps' parents and frames and the calls' steps mapped to them; the
/// run's replay_of is dropped (that run is not there). Returns the new run id. Throws
/// std::runtime_error("run copy: ...").
int64_t importRun(const std::string& into, const std::string& file);

}  // namespace eacu

// The run log's SQLite schema (runs, steps, frames, model_calls, and serve's sessions, tasks, messages, task_events) and its migrations: the one
// place that creates or changes a table of the run log.
#pragma once

struct sqlite3;

namespace eacu {

/// Current schema version, stored in PRAGMA user_version.
/// 1: runs, frames, steps. 2: runs.replay_mode, indexes by status and replay. 3: model_calls
/// (created since issue 5 by an unversioned step; version 3 makes it part of the schema).
/// 4: sessions, tasks, messages, task_events (eacu serve). 5: runs.pid, pid_start, host,
/// heartbeat_at (crashed runs). 6: steps.actor (script | model | user).
inline constexpr int kRunLogSchemaVersion = 7;

/// The schema version of the open database (0 for a new file).
/// Throws std::runtime_error with SQLite's message.
int runLogSchemaVersion(sqlite3* db);

/// Creates the schema in a new database or migrates an older one to kRunLogSchemaVersion, in
/// one transaction (nothing changes when a step fails). Throws std::runtime_error with SQLite's
/// message, or "schema version N is newer than this eacu supports (M): ..." for a newer file.
void migrateRunLogSchema(sqlite3* db);

}  // namespace eacu

#include "runlog/Schema.h"

#include <stdexcept>
#include <string>

#include "runlog/Statement.h"

namespace eacu {
namespace {

// Version 1.
const char* kSchemaV1 = R"SQL(
CREATE TABLE runs(
  id          INTEGER PRIMARY KEY,
  script      TEXT NOT NULL,
  args        TEXT NOT NULL DEFAULT '[]',
  device      TEXT,
  screen_w    INTEGER,
  screen_h    INTEGER,
  scale       REAL,
  status      TEXT NOT NULL,
  error       TEXT,
  started_at  REAL NOT NULL,
  ended_at    REAL,
  replay_of   INTEGER REFERENCES runs(id)
);
CREATE TABLE frames(
  id        INTEGER PRIMARY KEY,
  run_id    INTEGER NOT NULL REFERENCES runs(id),
  width     INTEGER NOT NULL,
  height    INTEGER NOT NULL,
  scale     REAL NOT NULL,
  taken_at  REAL NOT NULL,
  png       BLOB NOT NULL
);
CREATE TABLE steps(
  id            INTEGER PRIMARY KEY,
  run_id        INTEGER NOT NULL REFERENCES runs(id),
  idx           INTEGER NOT NULL,
  parent_id     INTEGER REFERENCES steps(id),
  action        TEXT NOT NULL,
  target        TEXT,
  params        TEXT,
  method        TEXT,
  score         REAL,
  threshold     REAL,
  box_x INTEGER, box_y INTEGER, box_w INTEGER, box_h INTEGER,
  input_x INTEGER, input_y INTEGER,
  status        TEXT NOT NULL,
  error         TEXT,
  change_ratio  REAL,
  settle_ms     REAL,
  locate_ms     REAL,
  action_ms     REAL,
  started_at    REAL NOT NULL,
  ended_at      REAL NOT NULL,
  frame_before  INTEGER REFERENCES frames(id),
  frame_after   INTEGER REFERENCES frames(id),
  transform     TEXT
);
CREATE INDEX steps_by_run ON steps(run_id, idx);
CREATE INDEX frames_by_run ON frames(run_id);
)SQL";

// Version 2: how a replay was made, and an index for `eacu runs --status/--since`.
const char* kSchemaV2 = R"SQL(
ALTER TABLE runs ADD COLUMN replay_mode TEXT;
CREATE INDEX IF NOT EXISTS runs_by_status ON runs(status, started_at);
CREATE INDEX IF NOT EXISTS runs_by_replay ON runs(replay_of);
)SQL";

// Version 3: every model call (issue 5: the model_calls log and the response cache). Files of
// versions 1 and 2 may already hold this table (it used to be created outside the versions, also
// by a standalone model-call log on a file of its own), hence IF NOT EXISTS.
const char* kSchemaV3 = R"SQL(
CREATE TABLE IF NOT EXISTS model_calls (
  id                    INTEGER PRIMARY KEY,
  run_id                INTEGER,            -- runs.id (NULL outside a run)
  step_id               INTEGER,            -- steps.id of the step that made the call
  seq                   INTEGER NOT NULL,   -- 1-based position of the call in its run
  kind                  TEXT NOT NULL,      -- ask | plan | autopilot (agent before) | locate | assert | other
  provider              TEXT NOT NULL,      -- anthropic | openai | cache
  model                 TEXT NOT NULL,
  endpoint              TEXT NOT NULL,      -- URL without credentials
  request_json          TEXT NOT NULL,      -- redacted: images as frame ids, no key
  response_json         TEXT,               -- the provider's JSON body
  answer                TEXT,               -- the answer's text (or tool calls as JSON)
  status                TEXT NOT NULL,      -- ok | error | cached
  error                 TEXT,
  http_status           INTEGER,
  attempts              INTEGER,
  latency_ms            REAL,
  input_tokens          INTEGER,
  output_tokens         INTEGER,
  cache_read_tokens     INTEGER,
  cache_creation_tokens INTEGER,
  cache_key             TEXT,               -- sha256(provider, model, prompt, elements, seq)
  fingerprint           TEXT,               -- the screenshot the model saw (screenFingerprint)
  frame_ids_json        TEXT NOT NULL DEFAULT '[]',
  created_at            REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS model_calls_run ON model_calls(run_id, seq);
CREATE INDEX IF NOT EXISTS model_calls_cache ON model_calls(cache_key, status);
)SQL";

// Version 4: `eacu serve` (issue 12): chat sessions, their messages, the tasks sent in them
// (each run as a run of its own) and the events a session's stream sent, so a restarted server
// keeps its history and a client resumes with Last-Event-ID.
const char* kSchemaV4 = R"SQL(
CREATE TABLE sessions(
  id          INTEGER PRIMARY KEY,
  title       TEXT NOT NULL DEFAULT '',
  created_at  REAL NOT NULL
);
CREATE TABLE tasks(
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id),
  kind        TEXT NOT NULL,      -- task (a sentence) | script (Lua source)
  text        TEXT NOT NULL,
  status      TEXT NOT NULL,      -- queued | running | awaiting_user | completed | failed | stopped | interrupted
  run_id      INTEGER REFERENCES runs(id),
  answer      TEXT,
  error       TEXT,
  created_at  REAL NOT NULL,
  started_at  REAL,
  ended_at    REAL
);
CREATE TABLE messages(
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id),
  task_id     INTEGER REFERENCES tasks(id),
  role        TEXT NOT NULL,      -- user | assistant
  kind        TEXT NOT NULL,      -- user_text | assistant_answer | assistant_error
  text        TEXT NOT NULL,
  created_at  REAL NOT NULL
);
CREATE TABLE task_events(
  id          INTEGER PRIMARY KEY,
  session_id  INTEGER NOT NULL REFERENCES sessions(id),
  task_id     INTEGER NOT NULL REFERENCES tasks(id),
  type        TEXT NOT NULL,      -- task.started, progress.append, ... (never screen.live)
  data        TEXT NOT NULL,      -- the event's JSON
  created_at  REAL NOT NULL
);
CREATE INDEX tasks_by_session ON tasks(session_id, id);
CREATE INDEX tasks_by_status ON tasks(status);
CREATE INDEX messages_by_session ON messages(session_id, id);
CREATE INDEX task_events_by_session ON task_events(session_id, id);
CREATE INDEX task_events_by_task ON task_events(task_id, id);
)SQL";

// Version 5: who writes a run (issue 15, crashed runs): the writer's pid, its start time (field
// 22 of /proc/PID/stat), its host, and a heartbeat it refreshes while the run is open, so that
// readers tell a run that still runs from one whose process was killed (RunLiveness.h).
const char* kSchemaV5 = R"SQL(
ALTER TABLE runs ADD COLUMN pid INTEGER;
ALTER TABLE runs ADD COLUMN pid_start INTEGER;
ALTER TABLE runs ADD COLUMN host TEXT;
ALTER TABLE runs ADD COLUMN heartbeat_at REAL;
)SQL";

// Version 6: who did a step (issue 29, taking over from the page): "script" (a script's verb or
// step), "model" (the autopilot's or planner's step) or "user" (the person's input through the page).
const char* kSchemaV6 = R"SQL(
ALTER TABLE steps ADD COLUMN actor TEXT NOT NULL DEFAULT 'script';
)SQL";

// Version 7: the tasks an `eacu worker` ran from a Redis queue and whether each one's run reached
// the server (issue 36: a run of a lost task comes home also after the worker was restarted).
const char* kSchemaV7 = R"SQL(
CREATE TABLE IF NOT EXISTS worker_tasks(
  queue       TEXT NOT NULL,      -- the Redis server and database: HOST:PORT/DB
  task_id     INTEGER NOT NULL,   -- the server's task id
  run_id      INTEGER NOT NULL REFERENCES runs(id),
  worker      TEXT NOT NULL,      -- the worker's --name
  state       TEXT NOT NULL,      -- running | delivered | sent_home | unsendable
  updated_at  REAL NOT NULL,
  PRIMARY KEY(queue, task_id)
);
CREATE INDEX IF NOT EXISTS worker_tasks_by_state ON worker_tasks(state);
)SQL";

std::string newerError(int v) {
    return "schema version " + std::to_string(v) + " is newer than this eacu supports (" +
           std::to_string(kRunLogSchemaVersion) + "): written by a newer eacu; use that eacu or another --db";
}

}  // namespace

int runLogSchemaVersion(sqlite3* db) {
    Statement q(db, "PRAGMA user_version");
    q.step();
    return int(q.integer(0));
}

void migrateRunLogSchema(sqlite3* db) {
    int v = runLogSchemaVersion(db);
    if (v > kRunLogSchemaVersion) throw std::runtime_error(newerError(v));
    if (v == kRunLogSchemaVersion) return;
    execSql(db, "BEGIN IMMEDIATE");
    try {
        // Read again under the write lock: another process may have migrated meanwhile.
        v = runLogSchemaVersion(db);
        if (v > kRunLogSchemaVersion) throw std::runtime_error(newerError(v));
        if (v < 1) execSql(db, kSchemaV1);
        if (v < 2) execSql(db, kSchemaV2);
        if (v < 3) execSql(db, kSchemaV3);
        if (v < 4) execSql(db, kSchemaV4);
        if (v < 5) execSql(db, kSchemaV5);
        if (v < 6) execSql(db, kSchemaV6);
        if (v < 7) execSql(db, kSchemaV7);
        execSql(db, "PRAGMA user_version=" + std::to_string(kRunLogSchemaVersion));
        execSql(db, "COMMIT");
    } catch (...) {
        sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
        throw;
    }
}

}  // namespace eacu

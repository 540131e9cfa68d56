#include "runlog/RunCopy.h"

#include <sqlite3.h>

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>
#include <vector>

#include "runlog/Statement.h"

namespace eacu {
namespace {

// An open connection, closed at the end of scope.
struct Db {
    sqlite3* db = nullptr;
    explicit Db(const std::string& path) {
        if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr) != SQLITE_OK) {
            std::string why = db ? sqlite3_errmsg(db) : "out of memory";
            sqlite3_close(db);
            throw std::runtime_error("run copy: cannot open " + path + ": " + why);
        }
        sqlite3_busy_timeout(db, 5000);
    }
    ~Db() { sqlite3_close(db); }
};

std::string quoted(const std::string& path) {
    std::string q = "'";
    for (char c : path) q += c == '\'' ? std::string("''") : std::string(1, c);
    return q + "'";
}

// The columns of `schema`.`table`.
std::vector<std::string> columns(sqlite3* db, const std::string& schema, const std::string& table) {
    std::vector<std::string> out;
    Statement q(db, "PRAGMA " + schema + ".table_info(" + table + ")");
    while (q.step()) out.push_back(q.text(1));
    return out;
}

// The columns both files have, minus `skip`, joined with ", " (with `prefix` before each).
std::string common(sqlite3* db, const std::string& table, const std::set<std::string>& skip, const std::string& prefix = "") {
    auto theirs = columns(db, "x", table);
    std::set<std::string> ours;
    for (auto& c : columns(db, "main", table)) ours.insert(c);
    std::string s;
    for (auto& c : theirs)
        if (ours.count(c) && !skip.count(c)) s += (s.empty() ? "" : ", ") + prefix + c;
    return s;
}

}  // namespace

void exportRun(const std::string& from, int64_t run_id, const std::string& to) {
    std::error_code ec;
    std::filesystem::remove(to, ec);
    Db d(to);
    try {
        execSql(d.db, "ATTACH " + quoted(from) + " AS src");
        {
            Statement q(d.db, "SELECT COUNT(*) FROM src.runs WHERE id = ?");
            q.bind(1, run_id);
            if (!q.step() || q.integer(0) != 1) throw std::runtime_error("no run " + std::to_string(run_id) + " in " + from);
        }
        const std::string id = std::to_string(run_id);
        execSql(d.db, "BEGIN; "
                      "CREATE TABLE runs AS SELECT * FROM src.runs WHERE id = " + id + "; "
                      "CREATE TABLE frames AS SELECT * FROM src.frames WHERE run_id = " + id + " ORDER BY id; "
                      "CREATE TABLE steps AS SELECT * FROM src.steps WHERE run_id = " + id + " ORDER BY id; "
                      "CREATE TABLE model_calls AS SELECT * FROM src.model_calls WHERE run_id = " + id + " ORDER BY id; "
                      "COMMIT; DETACH src");
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("run copy: ") + e.what());
    }
}

int64_t importRun(const std::string& into, const std::string& file) {
    Db d(into);
    try {
        execSql(d.db, "ATTACH " + quoted(file) + " AS x");
        execSql(d.db, "BEGIN IMMEDIATE");
        try {
            const std::string run_cols = common(d.db, "runs", {"id", "replay_of"});
            Statement ins(d.db, "INSERT INTO runs(" + run_cols + ") SELECT " + run_cols + " FROM x.runs RETURNING id");
            const int64_t run = insertedId(ins);
            const std::string r = std::to_string(run);
            std::map<int64_t, int64_t> frames, steps;
            {
                const std::string cols = common(d.db, "frames", {"id", "run_id"});
                Statement ids(d.db, "SELECT id FROM x.frames ORDER BY id");
                while (ids.step()) {
                    Statement q(d.db, "INSERT INTO frames(run_id, " + cols + ") SELECT " + r + ", " + cols +
                                          " FROM x.frames WHERE id = ? RETURNING id");
                    q.bind(1, ids.integer(0));
                    frames[ids.integer(0)] = insertedId(q);
                }
            }
            auto mapped = [](const std::map<int64_t, int64_t>& m, std::optional<int64_t> old) -> std::optional<int64_t> {
                if (!old) return std::nullopt;
                auto it = m.find(*old);
                return it == m.end() ? std::nullopt : std::optional<int64_t>(it->second);
            };
            {
                const std::string cols = common(d.db, "steps", {"id", "run_id", "parent_id", "frame_before", "frame_after"});
                Statement rows(d.db, "SELECT id, parent_id, frame_before, frame_after FROM x.steps ORDER BY id");
                while (rows.step()) {
                    Statement q(d.db, "INSERT INTO steps(run_id, parent_id, frame_before, frame_after, " + cols +
                                          ") SELECT " + r + ", ?, ?, ?, " + cols + " FROM x.steps WHERE id = ? RETURNING id");
                    q.bind(1, mapped(steps, rows.optInteger(1)));
                    q.bind(2, mapped(frames, rows.optInteger(2)));
                    q.bind(3, mapped(frames, rows.optInteger(3)));
                    q.bind(4, rows.integer(0));
                    steps[rows.integer(0)] = insertedId(q);
                }
            }
            {
                const std::string cols = common(d.db, "model_calls", {"id", "run_id", "step_id"});
                Statement rows(d.db, "SELECT id, step_id FROM x.model_calls ORDER BY id");
                while (rows.step()) {
                    Statement q(d.db, "INSERT INTO model_calls(run_id, step_id, " + cols + ") SELECT " + r + ", ?, " +
                                          cols + " FROM x.model_calls WHERE id = ? RETURNING id");
                    q.bind(1, mapped(steps, rows.optInteger(1)));
                    q.bind(2, rows.integer(0));
                    insertedId(q);
                }
            }
            execSql(d.db, "COMMIT");
            execSql(d.db, "DETACH x");
            return run;
        } catch (...) {
            sqlite3_exec(d.db, "ROLLBACK", nullptr, nullptr, nullptr);
            throw;
        }
    } catch (const std::exception& e) {
        throw std::runtime_error(std::string("run copy: ") + e.what());
    }
}

}  // namespace eacu

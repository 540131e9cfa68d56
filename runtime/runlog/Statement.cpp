#include "runlog/Statement.h"

#include <stdexcept>

namespace eacu {

Statement::Statement(sqlite3* db, const std::string& sql) : db_(db) {
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &stmt_, nullptr) != SQLITE_OK)
        throw std::runtime_error(std::string("SQL error: ") + sqlite3_errmsg(db) + " in: " + sql);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

static void check(sqlite3* db, int rc) {
    if (rc != SQLITE_OK) throw std::runtime_error(std::string("SQL bind error: ") + sqlite3_errmsg(db));
}

Statement& Statement::bind(int i, int64_t v) { check(db_, sqlite3_bind_int64(stmt_, i, v)); return *this; }
Statement& Statement::bind(int i, double v) { check(db_, sqlite3_bind_double(stmt_, i, v)); return *this; }
Statement& Statement::bind(int i, const std::string& v) {
    check(db_, sqlite3_bind_text(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT));
    return *this;
}
Statement& Statement::bindBlob(int i, const std::vector<unsigned char>& v) {
    check(db_, sqlite3_bind_blob(stmt_, i, v.data(), int(v.size()), SQLITE_TRANSIENT));
    return *this;
}
Statement& Statement::bindNull(int i) { check(db_, sqlite3_bind_null(stmt_, i)); return *this; }

bool Statement::step() {
    int rc = sqlite3_step(stmt_);
    if (rc == SQLITE_ROW) return true;
    if (rc == SQLITE_DONE) return false;
    std::string msg = std::string("SQL error: ") + sqlite3_errmsg(db_);
    if ((rc & 0xff) == SQLITE_FULL)
        msg += " (no space left on the disk that holds it: free some, or record to a file on another disk with --db)";
    throw std::runtime_error(msg);
}

bool Statement::isNull(int c) const { return sqlite3_column_type(stmt_, c) == SQLITE_NULL; }
int64_t Statement::integer(int c) const { return sqlite3_column_int64(stmt_, c); }
double Statement::real(int c) const { return sqlite3_column_double(stmt_, c); }
std::string Statement::text(int c) const {
    const unsigned char* t = sqlite3_column_text(stmt_, c);
    return t ? std::string(reinterpret_cast<const char*>(t), sqlite3_column_bytes(stmt_, c)) : "";
}
std::vector<unsigned char> Statement::blob(int c) const {
    auto* p = static_cast<const unsigned char*>(sqlite3_column_blob(stmt_, c));
    return p ? std::vector<unsigned char>(p, p + sqlite3_column_bytes(stmt_, c))
             : std::vector<unsigned char>{};
}
std::optional<int64_t> Statement::optInteger(int c) const {
    return isNull(c) ? std::nullopt : std::optional<int64_t>(integer(c));
}
std::optional<double> Statement::optReal(int c) const {
    return isNull(c) ? std::nullopt : std::optional<double>(real(c));
}

void execSql(sqlite3* db, const std::string& sql) {
    char* err = nullptr;
    if (sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &err) != SQLITE_OK) {
        std::string msg = err ? err : sqlite3_errmsg(db);
        sqlite3_free(err);
        throw std::runtime_error(msg);
    }
}

int64_t insertedId(Statement& q) {
    if (!q.step()) throw std::runtime_error("INSERT returned no id");
    int64_t id = q.integer(0);
    q.run();
    return id;
}

}  // namespace eacu

// A small RAII wrapper over a prepared SQLite statement (internal to runtime/record).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <sqlite3.h>

namespace eacu {

/// A prepared statement: bind values by 1-based index, step through rows, read columns.
/// Throws std::runtime_error with SQLite's message on any error.
class Statement {
public:
    Statement(sqlite3* db, const std::string& sql);
    ~Statement();
    Statement(const Statement&) = delete;
    Statement& operator=(const Statement&) = delete;

    Statement& bind(int i, int64_t v);
    Statement& bind(int i, double v);
    Statement& bind(int i, const std::string& v);
    Statement& bindBlob(int i, const std::vector<unsigned char>& v);
    Statement& bindNull(int i);
    template <class T>
    Statement& bind(int i, const std::optional<T>& v) {
        return v ? bind(i, *v) : bindNull(i);
    }
    Statement& bind(int i, int v) { return bind(i, int64_t(v)); }
    Statement& bind(int i, const char* v) { return bind(i, std::string(v)); }

    /// Advances to the next row: true if there is one, false when done.
    bool step();
    /// Runs a statement that returns no rows.
    void run() { while (step()) {} }

    bool isNull(int col) const;
    int64_t integer(int col) const;
    double real(int col) const;
    std::string text(int col) const;
    std::vector<unsigned char> blob(int col) const;
    std::optional<int64_t> optInteger(int col) const;
    std::optional<double> optReal(int col) const;

private:
    sqlite3* db_;
    sqlite3_stmt* stmt_ = nullptr;
};

/// Runs an INSERT ... RETURNING id and gives that id. Taken from the statement, not from the
/// connection's last insert, so a write on another thread cannot change it. Throws
/// std::runtime_error when the statement returned no row.
int64_t insertedId(Statement& q);

/// Runs `sql` (one or more statements, no rows wanted). Throws std::runtime_error with
/// SQLite's message.
void execSql(sqlite3* db, const std::string& sql);

}  // namespace eacu

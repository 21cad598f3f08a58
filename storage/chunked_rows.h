// Internal to storage/: writes many rows through multi-row statements (INSERT ... VALUES (...),
// (...), ...) of power-of-two sizes: as many of the largest size as fit, then one each of the
// smaller sizes the remainder needs. Every row thus goes through a statement that carries many
// rows (a statement's start, cursor opening and halt cost as much as inserting tens of rows), and
// each table needs at most log2(max_rows) + 1 prepared statements. The leading columns that all
// rows of one call share (a curve's run and key) are bound once per statement, not per row.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <functional>
#include <string>
#include <vector>

#include "storage/statement.h"

namespace deepladder::storage {

// One multi-row statement's shape and its SQL texts for 1, 2, 4, ..., max_rows rows (a power of
// two), built once: `shared` parameters common to all rows (?1..?S), then `per_row` of each row's
// own. `sql_for(values)` wraps the VALUES list "(?1,..,?S,?S+1,..,?S+P),(?1,..,?S,?S+P+1,..)"
// into the statement.
class ChunkSql {
 public:
  template <class SqlFor>
  ChunkSql(size_t max_rows, int shared, int per_row, SqlFor&& sql_for)
      : shared_(shared), per_row_(per_row) {
    for (size_t rows = 1; rows <= max_rows; rows *= 2) sql_.push_back(sql_for(valuesList(rows)));
  }
  size_t maxRows() const { return size_t{1} << (sql_.size() - 1); }
  int shared() const { return shared_; }
  int perRow() const { return per_row_; }
  size_t sizeIndex(size_t rows) const {  // log2 of `rows`, a power of two up to maxRows()
    size_t i = 0;
    while ((size_t{1} << i) < rows) ++i;
    return i;
  }
  const std::string& text(size_t size_index) const { return sql_.at(size_index); }

 private:
  std::string valuesList(size_t rows) const {
    std::string sql;
    int next = shared_;
    for (size_t r = 0; r < rows; ++r) {
      sql += r ? ",(" : "(";
      for (int c = 1; c <= shared_; ++c) sql += (c > 1 ? ",?" : "?") + std::to_string(c);
      for (int c = 0; c < per_row_; ++c)
        sql += (shared_ + c > 0 ? ",?" : "?") + std::to_string(++next);
      sql += ")";
    }
    return sql;
  }

  int shared_, per_row_;
  std::vector<std::string> sql_;
};

// A writer's statements of one ChunkSql: each size prepared through `prepare` (the database's
// statement cache) the first time it is needed, then reused without looking its long SQL text
// up again.
class ChunkStatements {
 public:
  using Prepare = std::function<Statement&(const std::string& sql)>;
  ChunkStatements(const ChunkSql& sql, Prepare prepare)
      : sql_(sql), prepare_(std::move(prepare)), by_size_(sql.sizeIndex(sql.maxRows()) + 1) {}
  const ChunkSql& sql() const { return sql_; }
  Statement& forRows(size_t rows) {
    const size_t i = sql_.sizeIndex(rows);
    if (!by_size_[i]) by_size_[i] = &prepare_(sql_.text(i));
    return *by_size_[i];
  }

 private:
  const ChunkSql& sql_;
  Prepare prepare_;
  std::vector<Statement*> by_size_;
};

// Writes `count` rows: bind_shared(handle) binds parameters 1..shared; bind(handle, row,
// first_parameter) binds row `row` (0-based over all rows) to parameters first_parameter + 1 ...
// first_parameter + per_row. Both return the OR of the SQLite codes.
template <class BindShared, class Bind>
void writeInChunks(size_t count, ChunkStatements& statements, BindShared&& bind_shared, Bind&& bind,
                   const char* what) {
  const int shared = statements.sql().shared(), per_row = statements.sql().perRow();
  size_t size = statements.sql().maxRows(), next = 0;
  while (next < count) {
    while (size > count - next) size >>= 1;
    Statement& statement = statements.forRows(size);
    sqlite3_stmt* s = statement.handle();
    for (; next + size <= count; next += size) {
      int rc = bind_shared(s);
      for (size_t r = 0; r < size; ++r)
        rc |= bind(s, next + r, shared + static_cast<int>(r) * per_row);
      if (rc != SQLITE_OK) checkSqlite(sqlite3_db_handle(s), rc, std::string("binding ") + what);
      statement.run();
    }
  }
}

}  // namespace deepladder::storage

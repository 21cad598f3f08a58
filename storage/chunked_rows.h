// Internal to storage/: writes many rows through multi-row statements (INSERT ... VALUES (...),
// (...), ...) of power-of-two sizes: as many of the largest size as fit, then one each of the
// smaller sizes the remainder needs. Every row thus goes through a statement that carries many
// rows (a statement's start, cursor opening and halt cost as much as inserting tens of rows), and
// each table needs at most log2(max_rows) + 1 prepared statements. The leading columns that all
// rows of one call share (a curve's run and key) are bound once per statement, not per row.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <string>
#include <vector>

#include "storage/statement.h"

namespace deepladder::storage {

// "(?1,..,?S,?S+1,..,?S+P),(?1,..,?S,?S+P+1,..,?S+2P),...": `rows` rows of `shared` parameters
// common to all rows followed by `per_row` parameters of their own.
inline std::string valuesList(size_t rows, int shared, int per_row) {
  std::string sql;
  int next = shared;
  for (size_t r = 0; r < rows; ++r) {
    sql += r ? ",(" : "(";
    for (int c = 1; c <= shared; ++c) sql += (c > 1 ? ",?" : "?") + std::to_string(c);
    for (int c = 0; c < per_row; ++c) sql += (shared + c > 0 ? ",?" : "?") + std::to_string(++next);
    sql += ")";
  }
  return sql;
}

// The SQL texts of one multi-row statement for 1, 2, 4, ..., 2^(sizes - 1) rows, built once.
class ChunkSql {
 public:
  template <class SqlFor>
  ChunkSql(int sizes, SqlFor&& sql_for) {
    for (int i = 0; i < sizes; ++i) sql_.push_back(sql_for(size_t{1} << i));
  }
  // The text for `rows` rows (a power of two within the sizes).
  const std::string& forRows(size_t rows) const {
    size_t i = 0;
    while ((size_t{1} << i) < rows) ++i;
    return sql_.at(i);
  }

 private:
  std::vector<std::string> sql_;
};

// prepare(rows) returns the cached statement for `rows` rows (a power of two <= max_rows) built
// with valuesList(rows, shared, per_row), reset and ready to bind; bind_shared(handle) binds
// parameters 1..shared; bind(handle, row, first_parameter) binds row `row` (0-based over all
// rows) to parameters first_parameter + 1 ... first_parameter + per_row. Both return the OR of
// the SQLite codes.
template <class Prepare, class BindShared, class Bind>
void writeInChunks(size_t count, size_t max_rows, int shared, int per_row, Prepare&& prepare,
                   BindShared&& bind_shared, Bind&& bind, const char* what) {
  size_t size = max_rows, next = 0;
  while (next < count) {
    while (size > count - next) size >>= 1;
    Statement& statement = prepare(size);
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

// Internal to storage/: writes many rows through multi-row statements (INSERT ... VALUES (...),
// (...), ...) of power-of-two sizes: as many of the largest size as fit, then one each of the
// smaller sizes the remainder needs. Every row thus goes through a statement that carries many
// rows (a statement's start, cursor opening and halt cost as much as inserting tens of rows), and
// each table needs at most log2(max_rows) + 1 prepared statements.
#pragma once

#include <sqlite3.h>

#include <cstddef>
#include <string>

#include "storage/statement.h"

namespace deepladder::storage {

// prepare(rows) returns the cached statement for `rows` rows (a power of two <= max_rows), reset
// and ready to bind; bind(handle, row, first_parameter) binds row `row` (0-based over all rows)
// to parameters first_parameter + 1 ... and returns the OR of the SQLite codes.
// `params_per_row`: how many parameters each row takes.
template <class Prepare, class Bind>
void writeInChunks(size_t count, size_t max_rows, int params_per_row, Prepare&& prepare,
                   Bind&& bind, const char* what) {
  size_t size = max_rows, next = 0;
  while (next < count) {
    while (size > count - next) size >>= 1;
    Statement& statement = prepare(size);
    sqlite3_stmt* s = statement.handle();
    for (; next + size <= count; next += size) {
      int rc = SQLITE_OK;
      for (size_t r = 0; r < size; ++r)
        rc |= bind(s, next + r, static_cast<int>(r) * params_per_row);
      if (rc != SQLITE_OK) checkSqlite(sqlite3_db_handle(s), rc, std::string("binding ") + what);
      statement.run();
    }
  }
}

}  // namespace deepladder::storage

// A prepared SQLite statement with RAII: prepared once, bound, stepped, reset, finalized on
// destruction. Internal to storage/: the public headers never expose it, and this header only
// forward-declares the SQLite types, so sqlite3.h stays inside storage/*.cpp.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace deepladder::storage {

class Statement {
 public:
  Statement(sqlite3* db, std::string_view sql);
  ~Statement();
  Statement(const Statement&) = delete;
  Statement& operator=(const Statement&) = delete;

  // Binding (1-based index, as in SQLite). NaN doubles bind as NULL (SQLite would do so anyway).
  // bindText copies the text.
  void bind(int index, int64_t value);
  void bind(int index, double value);
  void bindText(int index, std::string_view value);
  void bindNull(int index);
  void bind(int index, const std::optional<double>& value);
  void bind(int index, const std::optional<int64_t>& value);
  void bind(int index, std::string_view value) { bindText(index, value); }
  // Binds `values` to parameters 1, 2, ... in order (one bind() each).
  template <typename... Values>
  void bindAll(const Values&... values) {
    int index = 0;
    (bind(++index, values), ...);
  }

  // Steps once: true while a row is available, false when done. Throws on error.
  bool step();
  // step() until done, then reset(): for INSERT/UPDATE/DELETE.
  void run();
  // Ready to run again; bindings are kept (SQLite keeps them across resets).
  void reset();

  // Column access for the current row (0-based index).
  int64_t columnInt(int index) const;
  double columnDouble(int index) const;  // NULL reads as NaN
  std::optional<double> columnOptionalDouble(int index) const;
  std::optional<int64_t> columnOptionalInt(int index) const;
  std::string columnText(int index) const;  // NULL reads as ""
  bool columnIsNull(int index) const;

  const std::string& sql() const { return sql_; }
  // For hot loops in storage/*.cpp that call SQLite directly.
  sqlite3_stmt* handle() const { return stmt_; }

 private:
  [[noreturn]] void fail(int rc, const char* what) const;

  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string sql_;
};

// Resets a (cached) statement when leaving a scope, so no half-read statement keeps its read
// snapshot open.
struct ResetOnExit {
  Statement& statement;
  ~ResetOnExit() { statement.reset(); }
};

// Steps a bound SELECT to its end and returns read_row(select) for each row; the statement is
// reset afterwards, also when read_row throws.
template <typename ReadRow>
auto collectRows(Statement& select, ReadRow read_row) {
  ResetOnExit reset{select};
  std::vector<decltype(read_row(select))> rows;
  while (select.step()) rows.push_back(read_row(select));
  return rows;
}

// Throws std::runtime_error with SQLite's message for `rc` unless it is SQLITE_OK/ROW/DONE.
void checkSqlite(sqlite3* db, int rc, const std::string& context);

}  // namespace deepladder::storage

// Prepared statements (see statement.h): thin RAII over sqlite3_prepare_v3/bind/step/reset.
#include "storage/statement.h"

#include <sqlite3.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "core/disk_full.h"

namespace deepladder::storage {

namespace {

// SQLITE_FULL, or an I/O error whose system error is a full disk: a DiskFullError naming the
// database file, so that callers can stop cleanly and the user reads what happened.
void throwIfDiskFull(sqlite3* db, int rc) {
  const bool full = (rc & 0xff) == SQLITE_FULL || ((rc & 0xff) == SQLITE_IOERR && db &&
                                                   isDiskFullErrno(sqlite3_system_errno(db)));
  if (!full) return;
  const char* file = db ? sqlite3_db_filename(db, "main") : nullptr;
  throw DiskFullError("the disk holding the database " +
                      std::string(file && *file ? file : "(in memory)") +
                      " is full (SQLite: " + sqlite3_errstr(rc) + ")");
}

}  // namespace

void checkSqlite(sqlite3* db, int rc, const std::string& context) {
  if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) return;
  throwIfDiskFull(db, rc);
  throw std::runtime_error("SQLite error in " + context + ": " + sqlite3_errstr(rc) +
                           (db ? std::string(" (") + sqlite3_errmsg(db) + ")" : std::string()));
}

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db), sql_(sql) {
  const int rc = sqlite3_prepare_v3(db_, sql_.data(), static_cast<int>(sql_.size()),
                                    SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);
    stmt_ = nullptr;
    fail(rc, "prepare");
  }
}

Statement::~Statement() {
  sqlite3_finalize(stmt_);
}

void Statement::fail(int rc, const char* what) const {
  throwIfDiskFull(db_, rc);
  throw std::runtime_error(std::string("SQLite ") + what + " failed: " + sqlite3_errstr(rc) + " (" +
                           sqlite3_errmsg(db_) + ") in: " + sql_);
}

void Statement::bind(int index, int64_t value) {
  const int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) fail(rc, "bind");
}

void Statement::bind(int index, double value) {
  const int rc = std::isnan(value) ? sqlite3_bind_null(stmt_, index)
                                   : sqlite3_bind_double(stmt_, index, value);
  if (rc != SQLITE_OK) fail(rc, "bind");
}

void Statement::bindText(int index, std::string_view value) {
  const int rc = sqlite3_bind_text(stmt_, index, value.data(), static_cast<int>(value.size()),
                                   SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) fail(rc, "bind");
}

void Statement::bindNull(int index) {
  const int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) fail(rc, "bind");
}

void Statement::bind(int index, const std::optional<double>& value) {
  if (value) {
    bind(index, *value);
  } else {
    bindNull(index);
  }
}

void Statement::bind(int index, const std::optional<int64_t>& value) {
  if (value) {
    bind(index, *value);
  } else {
    bindNull(index);
  }
}

bool Statement::step() {
  const int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  fail(rc, "step");
}

void Statement::run() {
  while (step()) {
  }
  reset();
}

void Statement::reset() {
  sqlite3_reset(stmt_);
}

int64_t Statement::columnInt(int index) const {
  return sqlite3_column_int64(stmt_, index);
}

double Statement::columnDouble(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL)
    return std::numeric_limits<double>::quiet_NaN();
  return sqlite3_column_double(stmt_, index);
}

std::optional<double> Statement::columnOptionalDouble(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_double(stmt_, index);
}

std::optional<int64_t> Statement::columnOptionalInt(int index) const {
  if (sqlite3_column_type(stmt_, index) == SQLITE_NULL) return std::nullopt;
  return sqlite3_column_int64(stmt_, index);
}

std::string Statement::columnText(int index) const {
  const auto* text = sqlite3_column_text(stmt_, index);
  if (!text) return {};
  return std::string(reinterpret_cast<const char*>(text),
                     static_cast<size_t>(sqlite3_column_bytes(stmt_, index)));
}

bool Statement::columnIsNull(int index) const {
  return sqlite3_column_type(stmt_, index) == SQLITE_NULL;
}

}  // namespace deepladder::storage

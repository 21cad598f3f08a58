// Opening a deepladder database: checks on the path and the file, connection settings (WAL,
// foreign keys, busy timeout), migrations, transactions and the small tool functions.
// The table-specific queries live in runs.cpp and rows.cpp.
#include "storage/database.h"

#include <sqlite3.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <system_error>

#include "core/errors.h"
#include "core/safe_file.h"
#include "core/safe_text.h"
#include "storage/database_impl.h"
#include "storage/query_thread_guard.h"
#include "storage/schema.h"

namespace deepladder::storage {

namespace fs = std::filesystem;

// ---- connection settings ----------------------------------------------------------------------
namespace {

constexpr int kBusyTimeoutMs = 10000;  // readers and a second writer wait up to 10 s
constexpr uintmax_t kQuickCheckMaxBytes = uintmax_t{512} << 20;  // 512 MiB: ~1 s to check
// Page cache per connection (negative = KiB) and memory-mapped reads.
constexpr const char* kConnectionPragmas =
    "PRAGMA foreign_keys = ON;"
    "PRAGMA cache_size = -65536;"
    "PRAGMA temp_store = MEMORY;"
    "PRAGMA mmap_size = 268435456;";
constexpr const char* kWriterPragmas = "PRAGMA synchronous = NORMAL;";
constexpr const char* kNewDatabasePragmas = "PRAGMA page_size = 16384;";

// Process-wide SQLite settings, applied once before SQLite initializes: no global memory
// statistics (they put a mutex around every allocation, which costs ~10% of insert time).
void configureSqliteOnce() {
  static std::once_flag once;
  std::call_once(once, [] {
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);  // fails harmlessly if already initialized
  });
}

bool isMemoryPath(const std::string& path) {
  return path.empty() || path == ":memory:";
}

// True when files can be created in the directory holding `path`.
// A read-only open of a database an older deepladder wrote: Database::open migrates it first
// when it may write there.
struct OlderSchema : UserError {
  OlderSchema(const std::string& path, int version)
      : UserError("database '" + path + "' has schema v" + std::to_string(version) +
                  " (an older deepladder) and needs a one-time migration, which writes to it: make "
                  "the file and its directory writable (chmod u+w), or copy it somewhere "
                  "writable, and run the command again.") {}
};

bool canCreateBeside(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  return ::access(dir.c_str(), W_OK | X_OK) == 0;
}

// `path` as a file: URI ('%', '?' and '#' escaped) with immutable=1: opened read-only, no locks,
// no -shm.
std::string immutableUri(const std::string& path) {
  std::string out = "file:";
  if (path.empty() || path[0] != '/')
    out += "./";
  else if (path.size() > 1 && path[1] == '/')
    out += "//";  // "//x": empty authority, then the path
  for (char c : path) {
    if (c == '%' || c == '?' || c == '#') {
      char escaped[4];
      std::snprintf(escaped, sizeof escaped, "%%%02X", static_cast<unsigned char>(c));
      out += escaped;
    } else {
      out += c;
    }
  }
  return out + "?immutable=1";
}

void removeDatabaseFiles(const std::string& path) {
  std::error_code ignored;
  for (const char* suffix : {"", "-wal", "-shm", "-journal"}) fs::remove(path + suffix, ignored);
}

// Fails early, before SQLite creates anything, when a new file could not be written.
void checkCreatable(const std::string& path) {
  fs::path dir = fs::path(path).parent_path();
  if (dir.empty()) dir = ".";
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    throw UserError("cannot create database '" + path + "': directory '" + dir.string() +
                    "' does not exist. Create it first or pass another --db path.");
  }
  if (::access(dir.c_str(), W_OK | X_OK) != 0) {
    throw UserError("cannot create database '" + path + "': directory '" + dir.string() +
                    "' is not writable. Pick a writable --db path or fix its permissions.");
  }
}

int readUserVersion(sqlite3* db) {
  sqlite3_stmt* stmt = nullptr;
  int rc = sqlite3_prepare_v2(db, "PRAGMA user_version", -1, &stmt, nullptr);
  int version = 0;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      version = sqlite3_column_int(stmt, 0);
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(stmt);
  checkSqlite(db, rc, "reading the schema version");
  return version;
}

void exec(sqlite3* db, const std::string& sql, const std::string& context) {
  char* message = nullptr;
  const int rc = sqlite3_exec(db, sql.c_str(), nullptr, nullptr, &message);
  const std::string text = message ? message : "";
  if (message) sqlite3_free(message);
  if (rc != SQLITE_OK) {
    throw std::runtime_error("SQLite error in " + context + ": " + sqlite3_errstr(rc) +
                             (text.empty() ? std::string() : " (" + text + ")"));
  }
}

std::string queryText(sqlite3* db, const std::string& sql) {
  Statement statement(db, sql);
  return statement.step() ? statement.columnText(0) : std::string();
}

// A deepladder database with a table or column missing is damaged: say so when it is opened,
// instead of failing (or a GUI view aborting) at the first query that needs it.
void requireCompleteSchema(sqlite3* db, const std::string& path) {
  const std::string problem = schemaProblem(db);
  if (!problem.empty())
    throw UserError("database '" + path + "' is damaged or not a deepladder database: " + problem +
                    ". Pass the right --db file, or move this one away to start afresh.");
}

// Before anything is written: a damaged page found now costs nothing, found later it may have
// been built on. PRAGMA quick_check reads every page (O(size)), so files over
// kQuickCheckMaxBytes, or any file when DEEPLADDER_SKIP_QUICK_CHECK=1, are not checked.
void requireIntactPages(sqlite3* db, const std::string& path) {
  const char* skip = std::getenv("DEEPLADDER_SKIP_QUICK_CHECK");
  if (skip && std::string(skip) == "1") return;
  std::error_code ec;
  const auto size = fs::file_size(path, ec);
  if (ec || size > kQuickCheckMaxBytes) return;
  std::string result;
  try {
    Statement check(db, "PRAGMA quick_check(5)");
    while (check.step()) result += (result.empty() ? "" : "; ") + check.columnText(0);
  } catch (const std::runtime_error& e) {
    result = e.what();
  }
  if (result != "ok")
    throw UserError("database '" + path +
                    "' is damaged (SQLite quick_check: " + boundedText(result, 600) +
                    "); nothing was written to it. Copy it away and recover what it holds with "
                    "`sqlite3 " +
                    path + " .recover`, or pass another --db path.");
}

// Everything after sqlite3_open_v2; throws UserError for what the user can fix.
void prepareConnection(sqlite3* db, const std::string& path, bool read_only) {
  sqlite3_busy_timeout(db, kBusyTimeoutMs);
  const bool memory = isMemoryPath(path);
  if (!read_only && sqlite3_db_readonly(db, "main") == 1) {
    throw UserError("database '" + path +
                    "' is read-only. Make it writable (chmod u+w) or pass another --db path.");
  }
  int version = 0;
  try {
    version = readUserVersion(db);
    if (version == 0) {
      Statement tables(db, "SELECT count(*) FROM sqlite_schema");
      tables.step();
      if (tables.columnInt(0) > 0) {
        throw UserError("'" + path +
                        "' is a SQLite database but not a deepladder one (it has tables but no "
                        "deepladder schema version). Pass another --db path.");
      }
    }
  } catch (const std::runtime_error& e) {
    if (dynamic_cast<const UserError*>(&e)) throw;
    const int code = sqlite3_errcode(db);
    if (code == SQLITE_NOTADB || code == SQLITE_CORRUPT) {
      throw UserError("'" + path + "' is not a deepladder database or is corrupt (SQLite: " +
                      sqlite3_errmsg(db) +
                      "). Pass the right --db file, or move this one away to start afresh.");
    }
    throw UserError("cannot read database '" + path + "' (SQLite: " + sqlite3_errmsg(db) +
                    "). Check that the file and its directory are readable and writable.");
  }
  if (version < 0)
    throw UserError("database '" + path + "' records schema version " + std::to_string(version) +
                    " (PRAGMA user_version), which no deepladder writes: the file is damaged or "
                    "was changed by hand; nothing was written to it. Pass the right --db file.");
  if (version > Database::kSchemaVersion) {
    throw UserError("database '" + path + "' was written by a newer deepladder (schema v" +
                    std::to_string(version) + ", this build knows v" +
                    std::to_string(Database::kSchemaVersion) + "); upgrade deepladder.");
  }
  exec(db, kConnectionPragmas, "connection settings");
  if (read_only) {
    if (version < Database::kSchemaVersion) throw OlderSchema(path, version);
    requireCompleteSchema(db, path);
    return;
  }
  if (version > 0 && !memory) requireIntactPages(db, path);
  // A new file gets 16 KiB pages (fewer, shallower B-tree levels for the metric curves; ~10%
  // faster inserts than 4 KiB). Only possible before the first write, hence before WAL.
  if (version == 0 && !memory) exec(db, kNewDatabasePragmas, "creating the database");
  if (!memory) {
    std::string mode;
    try {
      mode = queryText(db, "PRAGMA journal_mode = WAL");
    } catch (const std::runtime_error&) {
    }
    if (mode != "wal") {
      throw UserError("cannot switch database '" + path +
                      "' to WAL mode (its directory must be writable for the -wal and -shm "
                      "files). Pick a writable --db path.");
    }
  }
  exec(db, kWriterPragmas, "connection settings");
  if (version < Database::kSchemaVersion) {
    exec(db, "BEGIN IMMEDIATE", "starting the migration");
    try {
      const int current = readUserVersion(db);  // another process may have migrated meanwhile
      if (current < Database::kSchemaVersion) {
        try {
          migrate(db, current);
        } catch (const std::runtime_error& e) {
          if (dynamic_cast<const UserError*>(&e)) throw;
          // Every step runs in this one transaction: nothing was changed.
          throw UserError("database '" + path + "' could not be brought from schema v" +
                          std::to_string(current) + " to v" +
                          std::to_string(Database::kSchemaVersion) + " (" + e.what() +
                          "); nothing was changed. Its recorded version (PRAGMA user_version = " +
                          std::to_string(current) +
                          ") does not match its tables: it was changed by hand or is damaged. "
                          "Pass the right --db file");
        }
      }
      exec(db, "COMMIT", "committing the migration");
    } catch (...) {
      sqlite3_exec(db, "ROLLBACK", nullptr, nullptr, nullptr);
      throw;
    }
  }
  requireCompleteSchema(db, path);
}

// Every statement a connection starts (sqlite3_exec's and direct sqlite3_step calls included)
// passes storage's query hook first (query_thread_guard.h).
int traceStatement(unsigned /*type*/, void* /*context*/, void* /*statement*/, void* /*sql*/) {
  checkQueryThread();
  return 0;
}

}  // namespace

// ---- Impl -----------------------------------------------------------------------------------
Database::Impl::~Impl() {
  statements.clear();  // finalize before closing
  if (db) sqlite3_close(db);
}

Statement& Database::Impl::prepared(const std::string& sql) {
  auto it = statements.find(sql);
  if (it == statements.end()) {
    it = statements.emplace(sql, std::make_unique<Statement>(db, sql)).first;
  } else {
    it->second->reset();
  }
  return *it->second;
}

// ---- Database -------------------------------------------------------------------------------
Database::Database(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Database::~Database() = default;

std::unique_ptr<Database> Database::open(const std::string& path, bool read_only) {
  configureSqliteOnce();
  const bool memory = isMemoryPath(path);
  std::error_code ec;
  const bool existed = !memory && fs::exists(path, ec);
  if (!memory && existed && fs::is_directory(path, ec)) {
    throw UserError("database path '" + path + "' is a directory; pass a file path with --db.");
  }
  // /dev/null, /dev/full, a FIFO: SQLite would fail on them with a raw I/O error and leave a
  // journal beside them; refuse before anything is opened or written.
  if (!memory && existed && !fs::is_regular_file(path, ec)) {
    const std::string problem = notRegularFileProblem(path);
    throw UserError("database path '" + path + "' " +
                    (problem.empty() ? std::string("is not a regular file") : problem) +
                    "; pass a database file with --db.");
  }
  if (read_only && !existed && !memory) {
    throw UserError("database '" + path + "' does not exist. Check the --db path.");
  }
  if (!read_only && !existed && !memory) checkCreatable(path);

  auto impl = std::make_unique<Impl>();
  impl->path = memory ? ":memory:" : path;
  impl->read_only = read_only;
  // A reader in a directory it cannot write (a shared results folder, a read-only mount) cannot
  // create the WAL index (-shm): read the file as immutable instead. Without a -shm file there
  // is no writer, so the file itself holds everything committed.
  const bool immutable =
      read_only && !memory && !canCreateBeside(path) && !fs::exists(path + "-shm", ec);
  const int flags =
      (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
      SQLITE_OPEN_NOMUTEX | (immutable ? SQLITE_OPEN_URI : 0);
  const std::string target = immutable ? immutableUri(path) : impl->path;
  const int rc = sqlite3_open_v2(target.c_str(), &impl->db, flags, nullptr);
  try {
    if (rc != SQLITE_OK) {
      const std::string why = impl->db ? sqlite3_errmsg(impl->db) : sqlite3_errstr(rc);
      throw UserError("cannot open database '" + path + "' (SQLite: " + why +
                      "). Check the path and its permissions, or pass another --db path.");
    }
    sqlite3_extended_result_codes(impl->db, 0);
    sqlite3_trace_v2(impl->db, SQLITE_TRACE_STMT, traceStatement, nullptr);
    prepareConnection(impl->db, impl->path, read_only);
  } catch (const OlderSchema&) {
    impl.reset();
    // Readers (status, metrics, fit, ...) open read-only; a database from an older deepladder
    // is migrated once, by a read-write open, when the file and its directory are writable.
    if (::access(path.c_str(), W_OK) != 0 || !canCreateBeside(path)) throw;
    if (open(path, /*read_only=*/false)->schemaVersion() < kSchemaVersion) throw;
    return open(path, /*read_only=*/true);
  } catch (...) {
    impl.reset();  // closes the connection
    if (!existed && !memory) removeDatabaseFiles(path);
    throw;
  }
  return std::unique_ptr<Database>(new Database(std::move(impl)));
}

const std::string& Database::path() const {
  return impl_->path;
}

int Database::schemaVersion() const {
  return readUserVersion(impl_->db);
}

void Database::execute(const std::string& sql) {
  exec(impl_->db, sql, "execute");
}

int64_t Database::queryInt(const std::string& sql) {
  Statement statement(impl_->db, sql);
  return statement.step() ? statement.columnInt(0) : 0;
}

std::string Database::integrityCheck() {
  Statement statement(impl_->db, "PRAGMA integrity_check");
  std::string result;
  while (statement.step()) {
    if (!result.empty()) result += '\n';
    result += statement.columnText(0);
  }
  return result;
}

bool Database::inTransaction() const {
  return sqlite3_get_autocommit(impl_->db) == 0;
}

// ---- Transaction ----------------------------------------------------------------------------
Transaction::Transaction(Database& db) : db_(db), nested_(db.inTransaction()) {
  db_.impl_->prepared(nested_ ? "SAVEPOINT deepladder_nested" : "BEGIN IMMEDIATE").run();
}

Transaction::~Transaction() {
  if (done_) return;
  try {
    if (nested_) {
      db_.impl_->prepared("ROLLBACK TO deepladder_nested").run();
      db_.impl_->prepared("RELEASE deepladder_nested").run();
    } else {
      db_.impl_->prepared("ROLLBACK").run();
    }
  } catch (...) {
    // Rolling back after a failed statement may find the transaction already gone.
  }
}

void Transaction::commit() {
  db_.impl_->prepared(nested_ ? "RELEASE deepladder_nested" : "COMMIT").run();
  done_ = true;
}

}  // namespace deepladder::storage

// Opening databases: migration from empty, idempotent reopen, and every error a user can meet
// (newer schema, corrupt or foreign file, unwritable or missing path) as a UserError that leaves
// no half-created file behind.
#include <grp.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/errors.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

std::string openError(const std::string& path, bool read_only = false) {
  try {
    Database::open(path, read_only);
  } catch (const UserError& e) {
    return e.what();
  }
  return "(no UserError)";
}

// openError(path) as a process without root's privileges: root writes any file whatever its
// mode, so as root a child drops to nobody (uid and gid 65534, no groups) first and sends its
// message back through a pipe.
std::string unprivilegedOpenError(const std::string& path) {
  if (::geteuid() != 0) return openError(path);
  int fds[2];
  if (::pipe(fds) != 0) return "(pipe failed)";
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    if (::setgroups(0, nullptr) != 0 || ::setgid(65534) != 0 || ::setuid(65534) != 0) _exit(3);
    if (::geteuid() == 0) _exit(4);
    const std::string message = openError(path);
    const ssize_t written = ::write(fds[1], message.data(), message.size());
    _exit(written == static_cast<ssize_t>(message.size()) ? 0 : 5);
  }
  ::close(fds[1]);
  std::string message;
  char buffer[512];
  for (ssize_t n; (n = ::read(fds[0], buffer, sizeof buffer)) > 0;) message.append(buffer, n);
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return "(the unprivileged child failed: status " + std::to_string(status) + ")";
  return message;
}

TEST(DatabaseOpen, MigratesEmptyFileToTheCurrentSchema) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(Database::kSchemaVersion, 9);
  for (const char* table :
       {"ladders", "runs", "metrics", "checkpoints", "lens", "evals", "events", "fits",
        "external_points", "decisions", "metric_pyramid", "metric_keys"}) {
    EXPECT_EQ(db->queryInt(std::string("SELECT count(*) FROM sqlite_schema WHERE type='table' "
                                       "AND name='") +
                           table + "'"),
              1)
        << table;
  }
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM pragma_journal_mode WHERE journal_mode='wal'"), 1);
  EXPECT_EQ(db->queryInt("PRAGMA foreign_keys"), 1);
  EXPECT_GE(db->queryInt("PRAGMA busy_timeout"), 5000);
  EXPECT_EQ(db->queryInt("PRAGMA synchronous"), 1);  // NORMAL
  EXPECT_EQ(db->queryInt("PRAGMA page_size"), 16384);
  EXPECT_EQ(db->integrityCheck(), "ok");
}

TEST(DatabaseOpen, ReopenKeepsDataAndSchema) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  int64_t id = 0;
  {
    auto db = Database::open(path);
    RunRecord run;
    run.name = "r1";
    id = db->insertRun(run);
  }
  for (int i = 0; i < 2; ++i) {
    auto db = Database::open(path);
    EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
    ASSERT_TRUE(db->run(id));
    EXPECT_EQ(db->run(id)->name, "r1");
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs"), 1);
  }
  auto reader = Database::open(path, /*read_only=*/true);
  EXPECT_EQ(reader->listRuns().size(), 1u);
}

TEST(DatabaseOpen, MigratesAVersion1DatabaseKeepingItsFits) {
  TempDir dir;
  const auto path = dir.file("v1.db");
  {
    // A database as schema v1 left it: its fits table without the cache columns, no decisions,
    // no stored plan.
    auto db = Database::open(path);
    testing::downgradeToSchemaV1(*db);
    db->execute(
        "INSERT INTO fits(source, arm, form, params) VALUES ('old', 'vanilla', 'L', '{\"E\":1}');");
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  const auto fits = db->fits("old");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].params_json, "{\"E\":1}");
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM fits WHERE cache_key = '' AND result = ''"), 1);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM decisions"), 0);
  EXPECT_EQ(db->integrityCheck(), "ok");
}

TEST(DatabaseOpen, NewerSchemaIsAUserError) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  Database::open(path)->execute("PRAGMA user_version = 10");
  const std::string message = openError(path);
  EXPECT_NE(message.find("newer deepladder"), std::string::npos) << message;
  EXPECT_NE(message.find("schema v10"), std::string::npos) << message;
  EXPECT_NE(message.find("upgrade"), std::string::npos) << message;
}

TEST(DatabaseOpen, NonDatabaseFileIsAUserErrorAndIsKept) {
  TempDir dir;
  const auto path = dir.file("notes.db");
  {
    std::ofstream out(path);
    for (int i = 0; i < 200; ++i) out << "this is a text file, not a SQLite database\n";
  }
  const std::string message = openError(path);
  EXPECT_NE(message.find("not a deepladder database or is corrupt"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_TRUE(std::filesystem::exists(path));  // never delete a user's file
}

TEST(DatabaseOpen, CorruptHeaderIsAUserError) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  {
    auto db = Database::open(path);
    db->insertRun(RunRecord{});
    db->execute("PRAGMA wal_checkpoint(TRUNCATE)");
  }
  {
    // Overwrite the 16-byte magic "SQLite format 3\0" at the start of the file.
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.write("garbage garbage!", 16);
  }
  const std::string message = openError(path);
  EXPECT_NE(message.find("corrupt"), std::string::npos) << message;
}

TEST(DatabaseOpen, ForeignSqliteDatabaseIsAUserError) {
  TempDir dir;
  const auto path = dir.file("other.db");
  {
    auto db = Database::open(path);
    db->execute("PRAGMA user_version = 0; CREATE TABLE someone_elses(x)");
  }
  const std::string message = openError(path);
  EXPECT_NE(message.find("not a deepladder one"), std::string::npos) << message;
}

TEST(DatabaseOpen, MissingDirectoryIsAUserErrorNamingThePath) {
  const std::string path = "/nonexistent/dir/x.db";
  const std::string message = openError(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DatabaseOpen, ReadOnlyDirectoryIsAUserErrorAndCreatesNothing) {
  TempDir dir;
  std::string path = dir.file("runs.db");
  if (::geteuid() == 0) {
    path = "/sys/deepladder-storage-test.db";  // root writes anywhere but in sysfs
  } else {
    std::filesystem::permissions(
        dir.path(), std::filesystem::perms::owner_read | std::filesystem::perms::owner_exec);
  }
  const std::string message = openError(path);
  EXPECT_NE(message.find(path), std::string::npos) << message;
  EXPECT_TRUE(message.find("not writable") != std::string::npos ||
              message.find("permissions") != std::string::npos)
      << message;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DatabaseOpen, ReadOnlyFileIsAUserError) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  Database::open(path);
  // Readable by all (the unprivileged child too), writable by nobody; the folder searchable.
  ::chmod(dir.path().c_str(), 0755);
  ::chmod(path.c_str(), 0444);
  const std::string message = unprivilegedOpenError(path);
  EXPECT_NE(message.find("read-only"), std::string::npos) << message;
  EXPECT_NE(message.find(path), std::string::npos) << message;
}

TEST(DatabaseOpen, DirectoryAsPathIsAUserError) {
  TempDir dir;
  const std::string message = openError(dir.path().string());
  EXPECT_NE(message.find("is a directory"), std::string::npos) << message;
}

TEST(DatabaseOpen, ReadOnlyOpenOfMissingFileIsAUserErrorAndCreatesNothing) {
  TempDir dir;
  const auto path = dir.file("missing.db");
  const std::string message = openError(path, /*read_only=*/true);
  EXPECT_NE(message.find("does not exist"), std::string::npos) << message;
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(DatabaseOpen, InMemoryDatabaseWorks) {
  auto db = Database::open(":memory:");
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(db->insertRun(RunRecord{}), 1);
}

TEST(Transaction, RollsBackUnlessCommittedAndNests) {
  auto db = Database::open(":memory:");
  {
    Transaction outer(*db);
    db->insertRun(RunRecord{});
    {
      Transaction inner(*db);
      db->insertRun(RunRecord{});
    }  // inner rolled back
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs"), 1);
    {
      Database::Transaction inner(*db);
      db->insertRun(RunRecord{});
      inner.commit();
    }
    outer.commit();
  }
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs"), 2);
  {
    Transaction dropped(*db);
    db->insertRun(RunRecord{});
  }
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs"), 2);
  EXPECT_FALSE(db->inTransaction());
}

}  // namespace
}  // namespace deepladder::storage

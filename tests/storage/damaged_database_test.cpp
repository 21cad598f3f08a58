// Damaged databases and awkward places: a file missing a table is refused when opened (the GUI
// aborted on it at its first query); a file with a corrupt page is refused for writing before
// anything is written (PRAGMA quick_check); a reader in a directory it cannot write still reads
// the database (`status` failed there).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>

#include "core/errors.h"
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

// A database with enough metric rows to span many pages.
void writeDatabase(const std::string& path) {
  auto db = Database::open(path);
  RunRecord run;
  run.name = "r";
  const int64_t id = db->insertRun(run);
  std::vector<MetricRow> rows;
  for (int step = 0; step < 20000; ++step)
    rows.push_back({id, "train/loss", step, step * 64, step * 1e6, 3.0 - step * 1e-4, 0.1});
  db->writeMetrics(rows);
}

TEST(DamagedDatabase, AMissingTableIsRefusedWhenOpened) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  writeDatabase(path);
  Database::open(path)->execute("DROP TABLE lens");
  for (bool read_only : {false, true}) {
    const std::string message = openError(path, read_only);
    EXPECT_NE(message.find("table 'lens' is missing"), std::string::npos) << message;
    EXPECT_NE(message.find("damaged"), std::string::npos) << message;
  }
}

TEST(DamagedDatabase, ACorruptPageIsFoundBeforeAnythingIsWritten) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  writeDatabase(path);
  int64_t root = 0;
  {
    auto db = Database::open(path);
    EXPECT_EQ(db->integrityCheck(), "ok");
    root = db->queryInt("SELECT rootpage FROM sqlite_schema WHERE name = 'metrics'");
  }
  ASSERT_GT(root, 1);
  {
    // Scribble over the header of the metrics b-tree's root page (16 KiB pages).
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((root - 1) * 16384);
    const std::string garbage(64, '\x5a');
    file.write(garbage.data(), static_cast<std::streamsize>(garbage.size()));
  }
  const auto before = std::filesystem::last_write_time(path);
  const std::string message = openError(path);
  EXPECT_NE(message.find("is damaged (SQLite quick_check"), std::string::npos) << message;
  EXPECT_NE(message.find(".recover"), std::string::npos) << message;
  EXPECT_EQ(std::filesystem::last_write_time(path), before);
  // Readers still get in (to look at what is there), and the check can be skipped on purpose.
  EXPECT_NO_THROW(Database::open(path, /*read_only=*/true));
  ::setenv("DEEPLADDER_SKIP_QUICK_CHECK", "1", 1);
  EXPECT_NO_THROW(Database::open(path));
  ::unsetenv("DEEPLADDER_SKIP_QUICK_CHECK");
}

// Runs `body` as the unprivileged user `nobody` in a child process; its exit status.
template <typename Body>
int asNobody(Body body) {
  const pid_t child = fork();
  if (child == 0) {
    if (setgid(65534) != 0 || setuid(65534) != 0) _exit(3);
    _exit(body());
  }
  int status = 0;
  waitpid(child, &status, 0);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

TEST(DamagedDatabase, AReaderInAReadOnlyDirectoryStillReads) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  writeDatabase(path);  // closed: no -wal or -shm left
  ASSERT_FALSE(std::filesystem::exists(path + "-shm"));
  ::chmod(dir.path().c_str(), 0555);
  ::chmod(path.c_str(), 0444);
  auto read = [&] {
    try {
      auto db = Database::open(path, /*read_only=*/true);
      const auto runs = db->listRuns();
      return runs.size() == 1 && db->readMetric(runs[0].run.id, "train/loss").size() == 20000 ? 0
                                                                                              : 1;
    } catch (const std::exception& e) {
      std::fprintf(stderr, "read failed: %s\n", e.what());
      return 2;
    }
  };
  if (::geteuid() == 0)
    EXPECT_EQ(asNobody(read), 0) << "a reader without write access to the directory failed";
  else
    EXPECT_EQ(read(), 0);
  EXPECT_FALSE(std::filesystem::exists(path + "-shm"));
}

}  // namespace
}  // namespace deepladder::storage

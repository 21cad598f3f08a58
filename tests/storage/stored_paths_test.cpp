// Paths and states the database keeps: a run directory under the database's folder is stored
// relative to it (a project folder moved as a whole finds its runs in place), one elsewhere, and
// the absolute paths older versions stored, stay as they are; a run is cancelled only while it
// has not ended, checked in the same statement, and a run that ends after a cancellation keeps
// its end without the cancellation as its error.
#include <gtest/gtest.h>

#include <filesystem>

#include "storage/database.h"
#include "storage/run_control.h"
#include "tests/storage/temp_dir.h"

namespace deepladder::storage {
namespace {

namespace fs = std::filesystem;
using testing::TempDir;

TEST(StoredPathsTest, RunDirectoryUnderTheDatabaseFolderFollowsAMove) {
  TempDir dir;
  fs::create_directories(dir.path() / "old");
  const std::string inside = dir.file("old/deepladder-work/l-12345678/vanilla-a-s1");
  {
    auto db = Database::open(dir.file("old/runs.db"));
    RunRecord run;
    run.name = "inside";
    run.workdir = inside;
    db->insertRun(run);
    run.name = "outside";
    run.workdir = "/scratch/elsewhere/run";
    db->insertRun(run);
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM runs WHERE workdir LIKE '/%'"), 1)
        << "the directory inside the project is stored relative";
    EXPECT_EQ(db->run(1)->workdir, inside);
    // An absolute path, as older versions stored it, is read as it is.
    db->execute("INSERT INTO runs(name, workdir) VALUES ('old', '" + inside + "')");
    EXPECT_EQ(db->run(3)->workdir, inside);
  }
  fs::rename(dir.path() / "old", dir.path() / "new");
  auto db = Database::open(dir.file("new/runs.db"));
  EXPECT_EQ(db->run(1)->workdir, dir.file("new/deepladder-work/l-12345678/vanilla-a-s1"));
  EXPECT_EQ(db->run(2)->workdir, "/scratch/elsewhere/run");
  EXPECT_EQ(db->listRuns()[0].run.workdir, db->run(1)->workdir);
}

TEST(StoredPathsTest, CancelChecksTheStatusWhereItChangesIt) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  RunRecord run;
  run.status = RunStatus::kRunning;
  const int64_t id = db->insertRun(run);
  const RunRecord listed = *db->run(id);
  db->markRunDone(id, RunStatus::kFinished, 2.0, 10, 100, 1e9, 1.0,
                  "");  // ends before the cancel lands
  EXPECT_FALSE(cancelRun(*db, id));
  EXPECT_EQ(cancelRuns(*db, {listed}), 0);
  EXPECT_EQ(db->run(id)->status, RunStatus::kFinished);
  EXPECT_EQ(db->run(id)->error, "");
}

TEST(StoredPathsTest, RunThatEndsAfterItsCancellationKeepsItsEndWithoutTheCancelError) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  RunRecord run;
  run.status = RunStatus::kRunning;
  const int64_t id = db->insertRun(run);
  EXPECT_TRUE(cancelRun(*db, id));
  EXPECT_EQ(db->run(id)->error, "cancelled by the user");
  db->markRunDone(id, RunStatus::kFinished, 2.0, 10, 100, 1e9, 1.0, "");
  EXPECT_EQ(db->run(id)->status, RunStatus::kFinished);
  EXPECT_EQ(db->run(id)->error, "");
  // Stopped by its scheduler: cancelled, with its reason.
  const int64_t other = db->insertRun(run);
  EXPECT_TRUE(cancelRun(*db, other));
  db->markRunDone(other, RunStatus::kCancelled, std::nullopt, 3, 30, 1e8, 1.0,
                  "cancelled by the user");
  EXPECT_EQ(db->run(other)->error, "cancelled by the user");
}

}  // namespace
}  // namespace deepladder::storage

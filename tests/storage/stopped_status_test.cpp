// The status 'stopped' of sweep halving (schema v9): stored and read back, a version-8 database
// gains it without losing a row, and the fit's inputs (ladderResults, which the sweep envelope
// reads) leave a stopped point out even when it carries a loss.
#include <gtest/gtest.h>

#include "schema_downgrade.h"
#include "storage/database.h"
#include "storage/result_points.h"
#include "storage/run_control.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

int64_t addRun(Database& db, int64_t ladder, const std::string& name, RunStatus status,
               std::optional<double> loss) {
  RunRecord run;
  run.ladder_id = ladder;
  run.name = name;
  run.arm = "vanilla";
  run.size = "d3";
  run.seed = 1;
  run.status = status;
  run.final_loss = loss;
  run.flops = 1e12;
  run.params = 1000;
  return db.insertRun(run);
}

TEST(StoppedStatus, StoredAndReadBack) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("lm", "spec", "h");
  const int64_t id = addRun(*db, ladder, "vanilla-d3-s1-lr_mult0.5", RunStatus::kRunning, {});
  db->setRunStatus(id, RunStatus::kStopped, "halving: worse beyond both intervals");
  EXPECT_EQ(db->run(id)->status, RunStatus::kStopped);
  EXPECT_EQ(db->run(id)->error, "halving: worse beyond both intervals");
}

TEST(StoppedStatus, AVersion8DatabaseGainsTheStatusAndKeepsItsRuns) {
  TempDir dir;
  const auto path = dir.file("v8.db");
  int64_t ladder = 0, id = 0;
  {
    auto db = Database::open(path);
    ladder = db->upsertLadder("lm", "spec", "h");
    id = addRun(*db, ladder, "vanilla-d3-s1-lr_mult1", RunStatus::kFinished, 2.5);
    testing::downgradeToSchemaV8(*db);
  }
  {
    auto db = Database::open(path);  // opening migrates (the old CHECK is gone with v9)
    EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
    EXPECT_EQ(db->run(id)->status, RunStatus::kFinished);
    db->setRunStatus(id, RunStatus::kStopped);
    EXPECT_EQ(db->run(id)->status, RunStatus::kStopped);
    EXPECT_EQ(db->integrityCheck(), "ok");
  }
  // A second connection reads the widened check too.
  auto again = Database::open(path);
  again->setRunStatus(id, RunStatus::kFinished);
  EXPECT_EQ(again->run(id)->status, RunStatus::kFinished);
}

TEST(StoppedStatus, AVersion8DatabaseRefusedTheWordBeforeTheMigration) {
  TempDir dir;
  auto db = Database::open(dir.file("v8.db"));
  const int64_t ladder = db->upsertLadder("lm", "spec", "h");
  const int64_t id = addRun(*db, ladder, "r", RunStatus::kRunning, {});
  testing::downgradeToSchemaV8(*db);
  EXPECT_ANY_THROW(
      db->execute("UPDATE runs SET status = 'stopped' WHERE id = " + std::to_string(id)));
}

TEST(StoppedStatus, FitInputsAndSoTheEnvelopeLeaveStoppedPointsOut) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("quick", "spec", "h");
  addRun(*db, ladder, "vanilla-d3-s1-lr_mult0.5", RunStatus::kFinished, 2.30);
  addRun(*db, ladder, "vanilla-d3-s1-lr_mult1", RunStatus::kFinished, 2.20);
  // Stopped with a loss lower than both (a prediction or a partial curve must never win a rung).
  addRun(*db, ladder, "vanilla-d3-s1-lr_mult2", RunStatus::kStopped, 1.0);
  const ResultsTable table = ladderResults(*db, ladder, "test");
  ASSERT_EQ(table.points.size(), 2u);
  for (const RunPoint& p : table.points) EXPECT_NE(p.sweep, "lr_mult2");
}

// `resume --stopped ID`: a point sweep halving stopped becomes interrupted (what resume continues
// from its last checkpoint, the path whose resumes equal uninterrupted runs), keeping the reason,
// and the reopening goes to the ladder's decision log; anything not stopped is left alone.
TEST(StoppedStatus, ReopeningAStoppedRunMakesItResumableAndLogsTheDecision) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("quick", "spec", "h");
  const int64_t id = addRun(*db, ladder, "vanilla-d3-s1-lr_mult0.5", RunStatus::kRunning, {});
  const int64_t running = addRun(*db, ladder, "vanilla-d3-s1-lr_mult1", RunStatus::kRunning, {});
  db->setRunStatus(id, RunStatus::kStopped, "halving: worse beyond both intervals");
  EXPECT_FALSE(reopenStoppedRun(*db, id + 100, 1.0));  // no such run
  EXPECT_FALSE(reopenStoppedRun(*db, running, 1.0));   // not stopped
  EXPECT_EQ(db->run(running)->status, RunStatus::kRunning);
  ASSERT_TRUE(reopenStoppedRun(*db, id, 42.0));
  EXPECT_EQ(db->run(id)->status, RunStatus::kInterrupted);
  EXPECT_TRUE(isResumable(db->run(id)->status));
  EXPECT_NE(db->run(id)->error.find("halving: worse beyond both intervals"), std::string::npos)
      << db->run(id)->error;
  const auto decisions = db->decisions(ladder);
  ASSERT_EQ(decisions.size(), 1u);
  EXPECT_EQ(decisions[0].kind, "halving-reopen");
  EXPECT_EQ(decisions[0].run_id, id);
  EXPECT_FALSE(reopenStoppedRun(*db, id, 43.0));  // reopened once: no longer stopped
  EXPECT_EQ(db->decisions(ladder).size(), 1u);
}

}  // namespace
}  // namespace deepladder::storage

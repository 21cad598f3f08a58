// The live projection's error log (schema v6): a score is stored and read back with its optional
// interval, scoring a run again replaces its row, and a version-5 database gains the table.
#include <gtest/gtest.h>

#include "schema_downgrade.h"
#include "storage/database.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

TEST(ProjectionScores, StoredReadBackAndReplacedPerRun) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const int64_t ladder = db->upsertLadder("lm", "spec", "h");
  RunRecord run;
  run.ladder_id = ladder;
  const int64_t id = db->insertRun(run);
  ProjectionScoreRecord s;
  s.ladder_id = ladder;
  s.run_id = id;
  s.created = 1.0;
  s.arm = "vanilla";
  s.size = "d14";
  s.compute = 1.5e19;
  s.measured_loss = 2.912;
  s.predicted_loss = 2.921;
  s.lo = 2.90;
  s.hi = 2.94;
  s.rel_error = (2.921 - 2.912) / 2.912;
  s.extrapolation = 2.0;
  s.fitted_runs = 6;
  db->saveProjectionScore(s);
  s.predicted_loss = 2.95;  // scored again: replaces the row
  s.lo.reset();
  s.hi.reset();
  db->saveProjectionScore(s);
  const auto rows = db->projectionScores(ladder);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].run_id, id);
  EXPECT_EQ(rows[0].size, "d14");
  EXPECT_DOUBLE_EQ(rows[0].predicted_loss, 2.95);
  EXPECT_FALSE(rows[0].lo.has_value());
  EXPECT_DOUBLE_EQ(*rows[0].extrapolation, 2.0);
  EXPECT_EQ(rows[0].fitted_runs, 6);
  EXPECT_TRUE(db->projectionScores(ladder + 1).empty());
}

TEST(ProjectionScores, AVersion5DatabaseGainsTheTable) {
  TempDir dir;
  const auto path = dir.file("v5.db");
  {
    auto db = Database::open(path);
    testing::downgradeToSchemaV5(*db);
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM projection_scores"), 0);
  EXPECT_EQ(db->integrityCheck(), "ok");
}

}  // namespace
}  // namespace deepladder::storage

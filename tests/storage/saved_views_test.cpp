// Saved plot views (schema v7, storage/saved_views.cpp), the option rows Compare groups runs by
// (storage/run_option_rows.h) and the scatter's points read from the runs table
// (storage/scatter_points.h), on a small ladder written in the test.
#include <gtest/gtest.h>

#include <cmath>

#include "core/errors.h"
#include "core/run_status.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "storage/run_option_rows.h"
#include "storage/scatter_points.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

TEST(SavedViews, SaveReadReplaceAndList) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  EXPECT_FALSE(db->savedView("loss-vs-params").has_value());
  db->saveView({"loss-vs-params", "scatter", R"({"x":"params"})", {}});
  db->saveView({"lr", "scatter", R"({"x":"train.lr_mult"})", {}});
  db->saveView({"loss-vs-params", "scatter", R"({"x":"tokens"})", {}});  // replaces
  const auto view = db->savedView("loss-vs-params");
  ASSERT_TRUE(view.has_value());
  EXPECT_EQ(view->kind, "scatter");
  EXPECT_EQ(view->spec_json, R"({"x":"tokens"})");
  EXPECT_FALSE(view->created.empty());
  const auto all = db->savedViews("scatter");
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].name, "loss-vs-params");  // by name
  EXPECT_EQ(all[1].name, "lr");
  EXPECT_TRUE(db->savedViews("curves").empty());
}

TEST(SavedViews, AVersion6DatabaseGainsTheTable) {
  TempDir dir;
  const auto path = dir.file("v6.db");
  {
    auto db = Database::open(path);
    testing::downgradeToSchemaV6(*db);
    EXPECT_EQ(db->schemaVersion(), 6);
  }
  auto db = Database::open(path);
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM saved_views"), 0);
  EXPECT_EQ(db->integrityCheck(), "ok");
}

// Two arms x two lr_mult values x two sizes, one seed; val/loss at steps 100..500 ending at a
// loss set by the run. One more run still running, and one finished run without val/loss.
std::vector<int64_t> writeLadder(Database& db) {
  const int64_t ladder = db.upsertLadder("grid", "[ladder]\nname = \"grid\"\n", "gridhash");
  std::vector<int64_t> ids;
  for (const char* arm : {"vanilla", "growth"})
    for (double lr : {0.5, 2.0})
      for (int s = 1; s <= 2; ++s) {
        RunRecord r;
        r.ladder_id = ladder;
        r.arm = arm;
        r.size = "d" + std::to_string(2 * s);
        r.name = std::string(arm) + "-" + r.size;
        r.status = RunStatus::kFinished;
        r.config_json = std::string(R"({"train":{"lr_mult":)") + (lr == 0.5 ? "0.5" : "2") + "}}";
        r.params = 1000000 * s;
        r.tokens = 20000000 * s;
        r.flops = 6.0 * double(r.params) * double(r.tokens);
        const int64_t id = db.insertRun(r);
        ids.push_back(id);
        const double final_loss = 3.0 / s + (std::string(arm) == "growth" ? -0.1 : 0.0) + 0.01 * lr;
        std::vector<MetricRow> rows;
        for (int step = 100; step <= 500; step += 100)
          rows.push_back({id, "val/loss", step, step * 1000, step * 1e12,
                          final_loss + 0.001 * (500 - step), 0});
        db.writeMetrics(rows);
      }
  RunRecord running;
  running.ladder_id = ladder;
  running.arm = "vanilla";
  running.status = RunStatus::kRunning;
  running.params = 5;
  db.insertRun(running);
  RunRecord silent;
  silent.ladder_id = ladder;
  silent.arm = "vanilla";
  silent.status = RunStatus::kFinished;
  silent.params = 7;
  ids.push_back(db.insertRun(silent));
  return ids;
}

TEST(RunOptionRows, RunsTableColumnsAndSchemaOptions) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const auto ids = writeLadder(*db);
  const auto rows = runOptionRows(*db, {ids[0], ids[2], 99999});
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0].at("arm"), "vanilla");
  EXPECT_EQ(rows[0].at("size"), "d2");
  EXPECT_EQ(rows[0].at("ladder"), "grid");
  EXPECT_EQ(rows[0].at("train.lr_mult"), "0.5");
  EXPECT_EQ(rows[1].at("train.lr_mult"), "2");
  EXPECT_TRUE(rows[2].empty());  // no such run
}

TEST(ScatterPoints, FinalLossAgainstParamsGroupedByArm) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  writeLadder(*db);
  ScatterSpec spec;
  spec.x = "params";
  spec.group = "arm";
  const ScatterData data = readScatterPoints(*db, spec);
  EXPECT_EQ(data.groups, (std::vector<std::string>{"growth", "vanilla"}));
  ASSERT_EQ(data.points.size(), 8u);  // the running run is not finished; the silent one has no y
  EXPECT_EQ(data.left_out, 1);
  EXPECT_NE(data.left_out_example.find("no final val/loss"), std::string::npos)
      << data.left_out_example;
  EXPECT_EQ(data.points[0].group, "growth");
  EXPECT_DOUBLE_EQ(data.points[0].x, 1e6);
  EXPECT_NEAR(data.points[0].y, 3.0 - 0.1 + 0.005, 1e-12);  // growth, d2, lr_mult 0.5
  EXPECT_EQ(data.x_label, "parameters");
  EXPECT_EQ(data.y_label, "final val/loss");
}

TEST(ScatterPoints, AnOptionOnTheAxisAndDerivedQuantities) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  writeLadder(*db);
  ScatterSpec spec;
  spec.x = "train.lr_mult";
  spec.group = "size";
  spec.stat = SummaryStat::kAtStep;
  spec.at = 300;
  const ScatterData data = readScatterPoints(*db, spec);
  EXPECT_EQ(data.groups, (std::vector<std::string>{"d2", "d4"}));
  ASSERT_EQ(data.points.size(), 8u);
  EXPECT_DOUBLE_EQ(data.points[0].x, 0.5);
  spec.x = "tokens_per_param";
  for (const auto& p : readScatterPoints(*db, spec).points) EXPECT_DOUBLE_EQ(p.x, 20.0);
  spec.x = "lr";  // train.lr (default 3e-3) x lr_mult
  for (const auto& p : readScatterPoints(*db, spec).points)
    EXPECT_TRUE(std::abs(p.x - 1.5e-3) < 1e-15 || std::abs(p.x - 6e-3) < 1e-15) << p.x;
}

TEST(ScatterPoints, UnknownOrNonNumericAxesAreUserErrors) {
  TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  writeLadder(*db);
  ScatterSpec spec;
  spec.x = "parms";
  try {
    readScatterPoints(*db, spec);
    FAIL() << "an unknown x was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("Did you mean 'params'"), std::string::npos) << e.what();
  }
  spec.x = "arm";
  try {
    readScatterPoints(*db, spec);
    FAIL() << "a word-valued x was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("is not a number"), std::string::npos) << e.what();
  }
  spec.x = "params";
  spec.group = "colour";
  EXPECT_THROW(readScatterPoints(*db, spec), UserError);
  spec.group = "arm";
  spec.ladder = "nope";
  EXPECT_THROW(readScatterPoints(*db, spec), UserError);
}

}  // namespace
}  // namespace deepladder::storage

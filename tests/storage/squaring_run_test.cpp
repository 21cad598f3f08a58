// One squaring run read the way `squaring eval` and the Serial-task view read it, from a fixture
// database whose evals are written here (no training): the latest step is chosen, cells of
// equal (bits, T) pool across test, OOD and depth, the iteration sweep's rows ("<task>@r=R")
// stay out of the cells and the maps and tally apart, and the maps carry the chance levels of
// the run's regenerated E1 data.
#include "storage/squaring_run.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

namespace deepladder::storage {
namespace {

std::string configJson(Task task, const std::string& data_dir = "") {
  RunConfig c;
  c.task = task;
  c.model.vocab_size = 17;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.seq_len = 64;
  c.squaring.tier = "E1";
  c.squaring.data_dir = data_dir;
  return toJson(c).dump();
}

int64_t addRun(Database& db, const std::string& config_json) {
  RunRecord r;
  r.ladder_id = db.upsertLadder("sq", "spec", "h");
  r.name = "looped-d4-s1";
  r.arm = "looped";
  r.status = RunStatus::kFinished;
  r.config_json = config_json;
  return db.insertRun(r);
}

TEST(SquaringRunRead, LatestStepPooledCellsSweepApartAndMapsWithChance) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, configJson(Task::squaring));
  db->writeEvals({{run, 100, "squaring/test", 9, 1, 1, 60},  // an older step: not read
                  {run, 200, "squaring/test", 9, 1, 50, 60},
                  {run, 200, "squaring/depth", 9, 1, 200, 288},
                  {run, 200, "squaring/ood_t", 9, 6, 72, 288},
                  {run, 200, "squaring/test@r=8", 9, 1, 60, 60},
                  {run, 200, "squaring/test@r=8", 9, 2, 30, 60},
                  {run, 200, "squaring/ood_t@r=16", 10, 6, 7, 10}});
  const auto read = readSquaringRun(*db, run);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->step, 200);
  EXPECT_EQ(read->rows_by_task.size(), 5u);
  ASSERT_EQ(read->cells.size(), 2u);
  EXPECT_EQ(read->cells.at({9, 1}), CellTally(250, 348));  // test + depth pooled
  EXPECT_EQ(read->cells.at({9, 6}), CellTally(72, 288));
  EXPECT_EQ(read->bits, std::vector<int64_t>({9}));
  EXPECT_EQ(read->ts, std::vector<int64_t>({1, 6}));
  ASSERT_EQ(read->iteration_sweep.cells.size(), 2u);
  EXPECT_EQ(read->iteration_sweep.cells.at(8).at({"test", 2}), CellTally(30, 60));
  EXPECT_EQ(read->iteration_sweep.cells.at(16).at({"ood_t", 6}), CellTally(7, 10));
  EXPECT_EQ(read->iteration_sweep.columns.size(), 3u);
  ASSERT_TRUE(read->admissibility.has_value());
  EXPECT_TRUE(read->admissibility->admissible);
  ASSERT_TRUE(read->maps.has_value()) << read->maps_error;
  ASSERT_NE(read->tier, nullptr);
  EXPECT_EQ(read->tier->name, "E1");
  EXPECT_DOUBLE_EQ(read->maps->test_exact, 50.0 / 60.0);
  EXPECT_DOUBLE_EQ(read->maps->ood_exact, 72.0 / 288.0);
  const auto baselines = testAndOodBaselines(read->config->squaring);
  EXPECT_NEAR(baselines.second.chance, 1.0 / 9, 1e-12);  // N = 323 at T = 6
  // The data is regenerated once per (tier, seed, directory).
  EXPECT_EQ(squaringRunData(read->config->squaring), read->data);
}

TEST(SquaringRunRead, AGivenStepAndMissingRunsOrSteps) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, configJson(Task::squaring));
  db->writeEvals(
      {{run, 100, "squaring/test", 9, 1, 1, 60}, {run, 200, "squaring/test", 9, 1, 5, 60}});
  const auto at100 = readSquaringRun(*db, run, 100);
  ASSERT_TRUE(at100.has_value());
  EXPECT_EQ(at100->cells.at({9, 1}), CellTally(1, 60));
  EXPECT_FALSE(readSquaringRun(*db, run, 150).has_value());
  EXPECT_FALSE(readSquaringRun(*db, run + 1).has_value());
  const int64_t empty = addRun(*db, configJson(Task::squaring));
  EXPECT_FALSE(readSquaringRun(*db, empty).has_value());
}

TEST(SquaringRunRead, AConfigThatDoesNotReadStillGivesItsCellsButNoMaps) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, "{not json");
  db->writeEvals({{run, 10, "squaring/test", 9, 1, 5, 10}});
  const auto read = readSquaringRun(*db, run);
  ASSERT_TRUE(read.has_value());
  EXPECT_EQ(read->cells.at({9, 1}), CellTally(5, 10));
  EXPECT_FALSE(read->config.has_value());
  EXPECT_FALSE(read->admissibility.has_value());
  EXPECT_FALSE(read->maps.has_value());
  EXPECT_EQ(read->tier, nullptr);
}

// Only the options it names: the rest keep their defaults, unvalidated, and the maps still come.
TEST(SquaringRunRead, APartialConfigStillNamesItsTier) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, R"({"task":"squaring","squaring":{"tier":"E1","data_seed":45}})");
  db->writeEvals({{run, 10, "squaring/test", 9, 1, 5, 10}});
  const auto read = readSquaringRun(*db, run);
  ASSERT_TRUE(read.has_value());
  ASSERT_TRUE(read->maps.has_value()) << read->maps_error;
  EXPECT_EQ(read->config->squaring.data_seed, 45);
}

TEST(SquaringRunRead, AnUnreadableDataDirectorySaysWhyItHasNoMaps) {
  auto db = Database::open(":memory:");
  const int64_t run = addRun(*db, configJson(Task::squaring, "/nonexistent/squaring-data"));
  db->writeEvals({{run, 10, "squaring/test", 9, 1, 5, 10}});
  const auto read = readSquaringRun(*db, run);
  ASSERT_TRUE(read.has_value());
  EXPECT_FALSE(read->maps.has_value());
  EXPECT_NE(read->maps_error.find("/nonexistent/squaring-data"), std::string::npos)
      << read->maps_error;
}

}  // namespace
}  // namespace deepladder::storage

// Measured tokens/s by run shape (storage/measured_throughput.h): each run's tokens_per_s mean
// without its first (warm-up) value, averaged over the runs of a shape key; runs of another shape
// and runs without the metric stay apart or out.
#include "storage/measured_throughput.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/ladder/memory_plan.h"
#include "core/run_config.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

int64_t addRun(Database& db, const RunConfig& config, const std::string& name,
               const std::vector<double>& tokens_per_s) {
  RunRecord r;
  r.name = name;
  r.arm = "vanilla";
  r.status = RunStatus::kFinished;
  r.config_json = toJson(config).dump();
  const int64_t id = db.insertRun(r);
  std::vector<MetricRow> rows;
  for (size_t i = 0; i < tokens_per_s.size(); ++i) {
    const int64_t step = static_cast<int64_t>(i + 1);
    rows.push_back({id, "tokens_per_s", step, step * 1024, 1e9 * step, tokens_per_s[i], 0.1});
  }
  db.writeMetrics(rows);
  return id;
}

TEST(MeasuredThroughput, MeanOfEachRunWithoutItsWarmUpThenOverRunsOfTheShape) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  RunConfig small;
  small.model.d_model = 64;
  RunConfig wide = small;
  wide.model.d_model = 128;
  RunConfig bf16 = small;
  bf16.train.precision = Precision::bf16;
  addRun(*db, small, "a", {10, 100, 200});  // 150 without the first
  addRun(*db, small, "b", {5, 250});        // 250
  addRun(*db, wide, "c", {1, 40, 60});      // 50
  addRun(*db, bf16, "d", {300});            // a single value is kept
  addRun(*db, small, "e", {});              // no metric: left out

  const std::map<std::string, double> measured = measuredTokensPerSecond(*db);
  ASSERT_EQ(measured.size(), 3u);
  EXPECT_DOUBLE_EQ(measured.at(ladder::throughputShapeKey(small)), 200.0);
  EXPECT_DOUBLE_EQ(measured.at(ladder::throughputShapeKey(wide)), 50.0);
  EXPECT_DOUBLE_EQ(measured.at(ladder::throughputShapeKey(bf16)), 300.0);
}

// A squaring run of the same model shape trains at another speed (other data, other loss): its
// tokens/s never sets a language-model run's time estimate.
TEST(MeasuredThroughput, RunsOfAnotherTaskStayApart) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  RunConfig lm;
  RunConfig squaring = lm;
  squaring.task = Task::squaring;
  addRun(*db, squaring, "s", {1, 9000});
  const std::map<std::string, double> measured = measuredTokensPerSecond(*db);
  EXPECT_EQ(measured.count(ladder::throughputShapeKey(lm)), 0u);
  EXPECT_NE(ladder::throughputShapeKey(lm), ladder::throughputShapeKey(squaring));
}

}  // namespace
}  // namespace deepladder::storage

// Ladders, runs and the row tables: round trips of every field, upserts that keep one copy,
// NaN handling (stored as NULL, read back as NaN or nullopt), foreign keys.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <stdexcept>

#include "storage/database.h"

namespace deepladder::storage {
namespace {

RunRecord sampleRun(std::optional<int64_t> ladder) {
  RunRecord r;
  r.ladder_id = ladder;
  r.name = "vanilla-s1-seed0";
  r.arm = "vanilla";
  r.size = "s1";
  r.seed = 3;
  r.config_json = R"({"d_model":64})";
  r.config_hash = "abc";
  r.status = RunStatus::kQueued;
  r.attempt = 1;
  r.device = "cpu";
  r.job_id = "1234";
  r.heartbeat = 1.5e9;
  r.params = 123456;
  r.flops_per_token = 7.5e5;
  r.step = 10;
  r.tokens = 640;
  r.flops = 4.8e8;
  r.final_loss = 3.25;
  r.error = "";
  r.workdir = "/tmp/w";
  r.started = 1.6e9;
  r.finished = 1.7e9;
  return r;
}

TEST(Ladders, UpsertByHashAndFindByNameOrHash) {
  auto db = Database::open(":memory:");
  const int64_t a = db->upsertLadder("depth", "spec a", "hash-a");
  EXPECT_EQ(db->upsertLadder("depth", "spec a", "hash-a"), a);
  const int64_t b = db->upsertLadder("depth", "spec b", "hash-b");
  EXPECT_NE(a, b);
  EXPECT_EQ(db->findLadder("hash-a"), a);
  EXPECT_EQ(db->findLadder("depth"), b);  // the newest of that name
  EXPECT_FALSE(db->findLadder("nope"));
}

TEST(Runs, RoundTripEveryField) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("depth", "spec", "h");
  const RunRecord in = sampleRun(ladder);
  const int64_t id = db->insertRun(in);
  const auto out = db->run(id);
  ASSERT_TRUE(out);
  EXPECT_EQ(out->id, id);
  EXPECT_EQ(out->ladder_id, ladder);
  EXPECT_EQ(out->name, in.name);
  EXPECT_EQ(out->arm, in.arm);
  EXPECT_EQ(out->size, in.size);
  EXPECT_EQ(out->seed, in.seed);
  EXPECT_EQ(out->config_json, in.config_json);
  EXPECT_EQ(out->config_hash, in.config_hash);
  EXPECT_EQ(out->status, in.status);
  EXPECT_EQ(out->attempt, in.attempt);
  EXPECT_EQ(out->device, in.device);
  EXPECT_EQ(out->job_id, in.job_id);
  EXPECT_EQ(out->heartbeat, in.heartbeat);
  EXPECT_EQ(out->params, in.params);
  EXPECT_EQ(out->flops_per_token, in.flops_per_token);
  EXPECT_EQ(out->step, in.step);
  EXPECT_EQ(out->tokens, in.tokens);
  EXPECT_EQ(out->flops, in.flops);
  EXPECT_EQ(out->final_loss, in.final_loss);
  EXPECT_EQ(out->workdir, in.workdir);
  EXPECT_EQ(out->started, in.started);
  EXPECT_EQ(out->finished, in.finished);
  EXPECT_FALSE(db->run(id + 100));

  RunRecord changed = *out;
  changed.status = RunStatus::kFailed;
  changed.error = "boom";
  changed.final_loss = std::numeric_limits<double>::quiet_NaN();
  changed.ladder_id.reset();
  db->updateRun(changed);
  const auto after = db->run(id);
  EXPECT_EQ(after->status, RunStatus::kFailed);
  EXPECT_EQ(after->error, "boom");
  EXPECT_FALSE(after->final_loss);  // NaN is stored as NULL
  EXPECT_FALSE(after->ladder_id);
}

TEST(Runs, StatusIsTypedTheColumnRefusesOtherWordsAndErrorKeptWhenNotGiven) {
  auto db = Database::open(":memory:");
  const int64_t id = db->insertRun(RunRecord{});
  EXPECT_EQ(db->run(id)->status, RunStatus::kQueued);
  db->setRunStatus(id, RunStatus::kFailed, "worker exited with status 1");
  db->setRunStatus(id, RunStatus::kQueued);
  EXPECT_EQ(db->run(id)->status, RunStatus::kQueued);
  EXPECT_EQ(db->run(id)->error, "worker exited with status 1");
  // Code can only write a RunStatus; SQL that spells another word is refused by the CHECK.
  EXPECT_ANY_THROW(
      db->execute("UPDATE runs SET status = 'exploded' WHERE id = " + std::to_string(id)));
  EXPECT_EQ(db->run(id)->status, RunStatus::kQueued);
}

TEST(Runs, ListRunsWithLastLossesAndLadderFilter) {
  auto db = Database::open(":memory:");
  const int64_t ladder = db->upsertLadder("depth", "spec", "h");
  const int64_t a = db->insertRun(sampleRun(ladder));
  const int64_t b = db->insertRun(sampleRun(std::nullopt));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  db->writeMetrics({{a, "train/loss", 2, 0, 0, 4.0, 0},
                    {a, "train/loss", 1, 0, 0, 5.0, 0},
                    {a, "val/loss", 1, 0, 0, 4.5, 0},
                    {b, "train/loss", 1, 0, 0, 5.0, 0},
                    {b, "train/loss", 3, 0, 0, nan, 0}});
  const auto all = db->listRuns();
  ASSERT_EQ(all.size(), 2u);
  EXPECT_EQ(all[0].run.id, a);
  EXPECT_EQ(all[0].ladder_name, "depth");
  EXPECT_EQ(all[0].last_train_loss, 4.0);
  EXPECT_EQ(all[0].last_val_loss, 4.5);
  EXPECT_EQ(all[1].ladder_name, "");
  ASSERT_TRUE(all[1].last_train_loss);
  EXPECT_TRUE(std::isnan(*all[1].last_train_loss));  // the last logged value was NaN
  EXPECT_FALSE(all[1].last_val_loss);                // never logged
  const auto in_ladder = db->listRuns(ladder);
  ASSERT_EQ(in_ladder.size(), 1u);
  EXPECT_EQ(in_ladder[0].run.id, a);
}

TEST(Metrics, ReadInStepOrderUpsertAndKeys) {
  auto db = Database::open(":memory:");
  const int64_t id = db->insertRun(RunRecord{});
  std::vector<MetricRow> rows;
  for (int64_t step : {5, 1, 3, 2, 4}) {
    rows.push_back({id, "train/loss", step, step * 64, step * 1e6, 10.0 - step, 0.1 * step});
    rows.push_back({id, "lr", step, step * 64, step * 1e6, 1e-3, 0.1 * step});
  }
  db->writeMetrics(rows);
  db->writeMetrics(rows);  // replay: still one copy
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics"), 10);
  db->writeMetrics({{id, "train/loss", 3, 192, 3e6, 6.5, 0.3}});  // a changed value wins
  const auto curve = db->readMetric(id, "train/loss");
  ASSERT_EQ(curve.size(), 5u);
  for (size_t i = 0; i < curve.size(); ++i) {
    EXPECT_EQ(curve[i].step, static_cast<int64_t>(i + 1));
    EXPECT_EQ(curve[i].tokens, curve[i].step * 64);
    EXPECT_DOUBLE_EQ(curve[i].flops, curve[i].step * 1e6);
  }
  EXPECT_EQ(curve[2].value, 6.5);
  EXPECT_EQ(curve[4].value, 5.0);
  EXPECT_EQ(db->metricKeys(id), (std::vector<std::string>{"lr", "train/loss"}));
  EXPECT_TRUE(db->metricKeys(id + 1).empty());
  EXPECT_TRUE(db->readMetric(id, "nope").empty());
}

TEST(Metrics, LargeBatchesInAnyOrderWithRepeatsKeepTheLastValue) {
  // Exercises the multi-row statements (power-of-two chunks of up to 512 rows), the
  // grouping by (run, key) and its fallback to a full sort beyond 256 distinct keys.
  for (const int keys : {3, 300}) {
    auto db = Database::open(":memory:");
    const int64_t a = db->insertRun(RunRecord{});
    const int64_t b = db->insertRun(RunRecord{});
    std::vector<MetricRow> rows;
    for (int64_t step = 40; step >= 0; --step)  // steps descending, runs and keys interleaved
      for (int k = 0; k < keys; ++k)
        for (int64_t run : {b, a})
          rows.push_back({run, "k" + std::to_string(k), step, step, 0, 1.0, 0});
    for (int k = 0; k < keys; ++k) rows.push_back({a, "k" + std::to_string(k), 7, 7, 0, 2.0, 0});
    db->writeMetrics(rows);
    EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics"), 41 * keys * 2) << keys;
    for (const std::string key : {"k0", "k2"}) {
      const auto curve = db->readMetric(a, key);
      ASSERT_EQ(curve.size(), 41u);
      for (size_t i = 0; i < curve.size(); ++i) EXPECT_EQ(curve[i].step, static_cast<int64_t>(i));
      EXPECT_EQ(curve[7].value, 2.0) << "the later row of a repeated key wins";
      EXPECT_EQ(curve[8].value, 1.0);
      EXPECT_EQ(db->readMetric(b, key)[7].value, 1.0);
    }
    EXPECT_EQ(db->metricKeys(b).size(), static_cast<size_t>(keys));
  }
}

TEST(Metrics, NanIsStoredAsNullAndReadBackAsNanInfIsKept) {
  auto db = Database::open(":memory:");
  const int64_t id = db->insertRun(RunRecord{});
  const double inf = std::numeric_limits<double>::infinity();
  db->writeMetrics({{id, "train/loss", 1, 0, 0, std::nan(""), 0},
                    {id, "train/loss", 2, 0, 0, inf, 0},
                    {id, "train/loss", 3, 0, 0, -inf, 0}});
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics WHERE value IS NULL"), 1);
  const auto curve = db->readMetric(id, "train/loss");
  ASSERT_EQ(curve.size(), 3u);
  EXPECT_TRUE(std::isnan(curve[0].value));
  EXPECT_EQ(curve[1].value, inf);
  EXPECT_EQ(curve[2].value, -inf);
}

TEST(Metrics, ForeignKeyRejectsUnknownRunAndRollsBackTheBatch) {
  auto db = Database::open(":memory:");
  const int64_t id = db->insertRun(RunRecord{});
  EXPECT_THROW(db->writeMetrics({{id, "a", 1, 0, 0, 1, 0}, {id + 1, "a", 1, 0, 0, 1, 0}}),
               std::runtime_error);
  EXPECT_EQ(db->queryInt("SELECT count(*) FROM metrics"), 0);
  EXPECT_FALSE(db->inTransaction());
}

TEST(RowTables, CheckpointsLensEvalsEventsUpsert) {
  auto db = Database::open(":memory:");
  const int64_t id = db->insertRun(RunRecord{});
  db->addCheckpoint({id, 100, "/w/ckpt-100.pt", "aa"});
  db->addCheckpoint({id, 200, "/w/ckpt-200.pt", "bb"});
  db->addCheckpoint({id, 100, "/w/ckpt-100.pt", "cc"});
  const auto ckpts = db->checkpoints(id);
  ASSERT_EQ(ckpts.size(), 2u);
  EXPECT_EQ(ckpts[0].sha256, "cc");
  EXPECT_EQ(db->latestCheckpoint(id)->step, 200);
  EXPECT_FALSE(db->latestCheckpoint(id + 1));

  db->writeLens({{id, 10, 1, 0.5}, {id, 10, 0, 2.0}, {id, 10, 2, std::nan("")}});
  db->writeLens({{id, 10, 1, 0.25}});
  const auto lens = db->lens(id);
  ASSERT_EQ(lens.size(), 3u);
  EXPECT_EQ(lens[0].block, 0);
  EXPECT_EQ(lens[1].kl, 0.25);
  EXPECT_TRUE(std::isnan(lens[2].kl));

  db->writeEvals({{id, 10, "squaring", 16, 4, 7, 10}, {id, 10, "squaring", 16, 4, 8, 10}});
  const auto evals = db->evals(id);
  ASSERT_EQ(evals.size(), 1u);
  EXPECT_EQ(evals[0].correct, 8);
  EXPECT_EQ(evals[0].T, 4);

  db->writeEvents({{id, 50, "growth", "2->4 layers"}, {id, 50, "growth", "2->4 layers"}});
  ASSERT_EQ(db->events(id).size(), 1u);
  EXPECT_EQ(db->events(id)[0].detail, "2->4 layers");
}

TEST(RowTables, FitsAndExternalPoints) {
  auto db = Database::open(":memory:");
  FitRecord fit;
  fit.source = "depth";
  fit.arm = "vanilla";
  fit.form = "L(C)=E+A(C/1e18)^-gamma";
  fit.params_json = R"({"gamma":0.111})";
  const int64_t fid = db->insertFit(fit);
  const auto fits = db->fits("depth");
  ASSERT_EQ(fits.size(), 1u);
  EXPECT_EQ(fits[0].id, fid);
  EXPECT_EQ(fits[0].params_json, fit.params_json);
  EXPECT_EQ(fits[0].stderr_json, "{}");
  EXPECT_FALSE(fits[0].created.empty());
  EXPECT_TRUE(db->fits("other").empty());
  EXPECT_EQ(db->fits().size(), 1u);

  std::vector<ExternalPoint> points{{"", "vanilla", 1e18, 3.2, 1e8, std::nullopt, 12},
                                    {"", "vanilla", 1e19, 3.0, std::nullopt, 2e10, 12}};
  db->replaceExternalPoints("paper.csv", points);
  db->replaceExternalPoints("paper.csv", points);  // re-import replaces
  const auto read = db->externalPoints("paper.csv");
  ASSERT_EQ(read.size(), 2u);
  EXPECT_EQ(read[0].source, "paper.csv");
  EXPECT_EQ(read[0].params, 1e8);
  EXPECT_FALSE(read[0].tokens);
  EXPECT_EQ(read[1].tokens, 2e10);
  EXPECT_EQ(db->externalPoints().size(), 2u);
}

}  // namespace
}  // namespace deepladder::storage

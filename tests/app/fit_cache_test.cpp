// The fits table as the fit cache, over a real database: a ladder's shares are stored, reused
// by another reader, dropped by the schema's trigger when a run of their arm finishes, and only
// that arm is refitted; the one results reader returns a ladder's finished runs in the order
// they ended; decisions round-trip.
#include "storage/fit_cache.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>

#include "core/errors.h"
#include "fitting/frontier_model.h"
#include "fitting/ladder_fit.h"
#include "fitting/live_projection.h"
#include "storage/database.h"
#include "storage/result_points.h"

using namespace deepladder;

namespace {

class FitCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-fitcache-XXXXXX";
    dir_ = mkdtemp(pattern);
    db_ = storage::Database::open((dir_ / "runs.db").string());
    ladder_ = db_->upsertLadder("cache", "[ladder]\nname = \"cache\"\n", "hash-cache");
    // Three arms, five rungs each, on known laws; one more "deep" run still queued.
    double t = 1000;
    for (const auto& [arm, A, gamma] :
         {std::tuple{"vanilla", 1.2, 0.11}, std::tuple{"deep", 1.15, 0.117},
          std::tuple{"loop", 1.18, 0.114}})
      for (int i = 0; i < 5; ++i) addRun(arm, 1e17 * std::pow(10.0, 0.5 * i), A, gamma, t += 10);
    queued_ = addRun("deep", 1e20, 1.15, 0.117, 0, /*finished=*/false);
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }

  int64_t addRun(const std::string& arm, double flops, double A, double gamma, double when,
                 bool finished = true) {
    storage::RunRecord r;
    r.ladder_id = ladder_;
    r.arm = arm;
    r.size = "c" + std::to_string(static_cast<int>(std::log10(flops) * 2));
    r.name = arm + "-" + r.size + "-s1";
    r.flops = flops;
    r.status = finished ? RunStatus::kFinished : RunStatus::kQueued;
    if (finished) r.final_loss = loss(flops, A, gamma, r.name);
    r.finished = when;
    return db_->insertRun(r);
  }

  static double loss(double flops, double A, double gamma, const std::string& name) {
    return fitting::frontierLoss(flops, 1e18, 1.8, A, gamma) *
           (1 + 0.002 * (name.size() % 3 - 1.0));
  }

  ResultsTable results() { return storage::ladderResults(*db_, ladder_, "cache"); }

  static fitting::FrontierOptions options() {
    fitting::FrontierOptions o = fitting::defaultFrontierOptions();
    o.bootstrap = 100;
    return o;
  }

  int64_t cachedRows(const std::string& arm = {}) {
    return db_->queryInt("SELECT count(*) FROM fits WHERE cache_key != ''" +
                         (arm.empty() ? std::string() : " AND arm = '" + arm + "'"));
  }

  std::filesystem::path dir_;
  std::unique_ptr<storage::Database> db_;
  int64_t ladder_ = 0, queued_ = 0;
};

}  // namespace

TEST_F(FitCacheTest, CachedFitIsReusedAndInvalidatedWhenARunFinishes) {
  storage::SqliteFitCache cache(*db_, ladder_);
  fitting::LadderFitter first(&cache, "cache");
  const fitting::FrontierResult a = first.fit(results(), options(), false);
  EXPECT_EQ(first.refitted().size(), 2u);
  EXPECT_EQ(cachedRows(), 2);  // the shares (vanilla + deep), (vanilla + loop)

  // Another reader (a later `fit`, `watch`, the GUI) reuses both: nothing is fitted.
  fitting::LadderFitter second(&cache, "cache");
  const fitting::FrontierResult b = second.fit(results(), options(), false);
  EXPECT_TRUE(second.refitted().empty());
  EXPECT_EQ(second.cacheHits(), 2);
  // The cached share is the fit interval's source (the prediction interval's misfit comes from the
  // whole ladder's nested backtest, recomputed on every fit).
  EXPECT_EQ(b.multipliers[0].projected.back().fit_hi, a.multipliers[0].projected.back().fit_hi);

  // The queued deep run finishes (as the ingester marks it): the trigger drops deep's share.
  db_->markRunDone(queued_, RunStatus::kFinished, loss(1e20, 1.15, 0.117, "x"), 100, 1000, 1e20,
                   5000, "");
  EXPECT_EQ(cachedRows("deep"), 0);
  EXPECT_EQ(cachedRows("loop"), 1);

  fitting::LadderFitter third(&cache, "cache");
  const fitting::FrontierResult c = third.fit(results(), options(), false);
  EXPECT_EQ(third.refitted(), std::vector<std::string>{"deep"});
  EXPECT_EQ(third.cacheHits(), 1);
  EXPECT_EQ(c.arms[1].arm, "deep");
  EXPECT_EQ(c.arms[1].n_points, 6);
  EXPECT_EQ(c.arms[2].gamma, a.arms[2].gamma);  // loop untouched
  EXPECT_EQ(cachedRows(), 2);

  // A run that stops being finished (queued again) drops its arm's entries as well.
  db_->setRunStatus(queued_, RunStatus::kQueued);
  EXPECT_EQ(cachedRows("deep"), 0);
}

// A cache entry that cannot be stored (the database opened read-only, or full) is skipped: the
// fit stands and says why nothing was cached, instead of failing the command that asked for it.
TEST_F(FitCacheTest, ACacheWriteThatFailsLeavesTheFitStanding) {
  auto read_only = storage::Database::open((dir_ / "runs.db").string(), /*read_only=*/true);
  storage::SqliteFitCache cache(*read_only, ladder_, /*read_only=*/false);
  fitting::LadderFitter fitter(&cache, "cache");
  fitting::FrontierResult result;
  EXPECT_NO_THROW(
      result = fitter.fit(storage::ladderResults(*read_only, ladder_, "cache"), options(), false));
  EXPECT_EQ(result.arms.size(), 3u);
  EXPECT_FALSE(cache.saveError().empty());
  EXPECT_EQ(cachedRows(), 0);
}

TEST_F(FitCacheTest, RefreshAfterAFinishedRunChangesExactlyThatArmsFit) {
  storage::SqliteFitCache cache(*db_, ladder_);
  fitting::LiveProjection live(&cache, "cache", options(), 1e26);
  const fitting::ProjectionSnapshot before = live.refresh(results());
  ASSERT_EQ(before.arms.size(), 2u);
  db_->markRunDone(queued_, RunStatus::kFinished, loss(1e20, 1.15, 0.117, "x"), 100, 1000, 1e20,
                   5000, "");
  const fitting::ProjectionSnapshot after = live.refresh(results());
  EXPECT_EQ(after.refitted, std::vector<std::string>{"deep"});
  EXPECT_EQ(after.runs, before.runs + 1);
  EXPECT_NE(after.arms[0].multiplier, before.arms[0].multiplier);  // deep
  EXPECT_EQ(after.arms[1].multiplier, before.arms[1].multiplier);  // loop
  // loop's fit interval is its share's and stays; its prediction interval may move, since the
  // misfit is estimated from every arm's held-out rungs.
  EXPECT_EQ(after.arms[1].fit_lo, before.arms[1].fit_lo);
  EXPECT_EQ(after.arms[1].fit_hi, before.arms[1].fit_hi);
}

TEST_F(FitCacheTest, TheResultsReaderReturnsFinishedRunsInTheOrderTheyEnded) {
  const ResultsTable t = results();
  ASSERT_EQ(t.points.size(), 15u);
  for (size_t i = 1; i < t.points.size(); ++i)
    EXPECT_LT(t.points[i - 1].finished, t.points[i].finished);
  EXPECT_EQ(t.points[0].arm, "vanilla");
  EXPECT_GT(t.points[0].run_id, 0);
  EXPECT_FALSE(t.points[0].size.empty());
  const ResultsTable named = storage::readResults(*db_, "runs.db", "cache");
  EXPECT_EQ(named.points.size(), 15u);
  EXPECT_EQ(named.source, "runs.db (ladder cache)");
  EXPECT_THROW(storage::readResults(*db_, "runs.db", "nothing"), UserError);
  db_->upsertLadder("empty", "x", "hash-empty");
  EXPECT_THROW(storage::readResults(*db_, "runs.db", "empty"), UserError);
}

TEST_F(FitCacheTest, DecisionsRoundTrip) {
  storage::DecisionRecord d;
  d.ladder_id = ladder_;
  d.created = 1234.5;
  d.kind = "queue";
  d.run_id = queued_;
  d.spent_flops = 1e19;
  d.budget_flops = 1e21;
  d.reason = "deep-c40-s1: best narrowing per FLOP";
  d.candidates_json = R"([{"run":"deep-c40-s1","score":1e-21}])";
  const int64_t id = db_->insertDecision(d);
  const auto rows = db_->decisions(ladder_);
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].id, id);
  EXPECT_EQ(rows[0].kind, "queue");
  EXPECT_EQ(*rows[0].run_id, queued_);
  EXPECT_EQ(rows[0].candidates_json, d.candidates_json);
  EXPECT_DOUBLE_EQ(rows[0].budget_flops, 1e21);
}

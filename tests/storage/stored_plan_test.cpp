// The plan stored typed (schema v2): a queued ladder's runs carry the planner's figures (growth
// arms included), the scheduler's queue reads them without parsing a config, the ladder keeps
// its task and resources, and a v1 database gains the columns with its plans filled in.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/ladder/ladder_spec.h"
#include "core/ladder/resources_json.h"
#include "schema_downgrade.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/run_store_sqlite.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

// Vanilla against a growing arm (pcc, 2 -> 4 core passes at 75%) on two depths, two seeds; a
// slurm backend so the stored resources are not the defaults.
constexpr const char* kLadder = R"(
[ladder]
name = "plans"
seeds = [1, 2]
[model]
seq_len = 32
[train]
batch_size = 4
[sizes]
depths = [3, 6]
width_per_depth = 16
head_dim = 16
[budget]
rule = "tokens"
tokens = 20000
[arms.vanilla]
[arms.untied_grow]
train = { ranks = 2 }
[resources]
backend = "slurm"
retries = 5
throughput_flops = 3e9
[resources.slurm]
partition = "gpu"
)";

TEST(StoredPlan, QueuedRunsCarryThePlannersFiguresAndTheQueueReadsThem) {
  testing::TempDir dir;
  auto db = Database::open(dir.file("runs.db"));
  const ladder::LadderSpec spec = ladder::parseLadder(kLadder, "plans.toml");
  const EnqueueResult queued = enqueueLadder(*db, spec, dir.file("work"));
  ASSERT_EQ(queued.runs_added, 8);

  const auto ladder = db->ladder(queued.ladder_id);
  ASSERT_TRUE(ladder);
  EXPECT_EQ(ladder->task, "lm");
  const ladder::Resources resources =
      ladder::resourcesFromJson(nlohmann::json::parse(ladder->resources_json));
  EXPECT_EQ(resources.backend, "slurm");
  EXPECT_EQ(resources.retries, 5);
  EXPECT_EQ(resources.slurm.partition, "gpu");
  EXPECT_DOUBLE_EQ(resources.throughput_flops, 3e9);

  bool saw_growth = false;
  for (const ladder::PlannedRun& planned : spec.runs) {
    SCOPED_TRACE(planned.name);
    std::optional<RunRecord> stored;
    for (const RunSummary& s : db->listRuns(queued.ladder_id))
      if (s.run.name == planned.name) stored = s.run;
    ASSERT_TRUE(stored);
    EXPECT_EQ(stored->plan.flops, planned.flops);
    EXPECT_EQ(stored->plan.steps, planned.config.train.steps);
    EXPECT_EQ(stored->plan.tokens, planned.tokens);
    EXPECT_EQ(stored->plan.crossover_step, planned.crossover_step);
    EXPECT_EQ(stored->plan.ranks, planned.config.train.ranks);
    EXPECT_EQ(stored->plan.executed_depth_after_growth, planned.executed_depth_after_growth);
    EXPECT_DOUBLE_EQ(stored->plan.est_seconds, planned.est_seconds);
    saw_growth = saw_growth || planned.crossover_step >= 0;
  }
  EXPECT_TRUE(saw_growth);

  // The queue: every rung's opener (its first seed, rungOpeners) first, in openerTiers' order,
  // then the rest, biggest planned FLOPs first within a tier (smallest first among each arm's
  // smallest openers and the other points of its smallest rungs), growth counted, ranks from the
  // plan. A config the queue cannot parse no longer matters: nothing parses it.
  db->execute("UPDATE runs SET config = 'not json'");
  SqliteRunStore store(*db, queued.ladder_id);
  const auto pending = store.pending();
  ASSERT_EQ(pending.size(), 8u);
  std::vector<RunRecord> records;
  for (const auto& s : db->listRuns(queued.ladder_id)) records.push_back(s.run);
  const std::set<int64_t> openers = rungOpeners(records);
  const std::map<int64_t, int> tiers = openerTiers(records, openers);
  const auto tier = [&](int64_t id) { return tiers.count(id) ? tiers.at(id) : kOtherRuns; };
  for (size_t i = 1; i < pending.size(); ++i) {
    const int before = tier(pending[i - 1].id), now = tier(pending[i].id);
    EXPECT_LE(before, now) << "a run of an earlier tier after one of a later tier";
    if (before == now && (now == kSmallOpeners || now == kSmallRungsOtherPoints))
      EXPECT_LE(pending[i - 1].flops, pending[i].flops);
    else if (before == now)
      EXPECT_GE(pending[i - 1].flops, pending[i].flops);
  }
  double largest = 0;
  for (const auto& planned : spec.runs) largest = std::max(largest, planned.flops);
  EXPECT_EQ(pending[0].flops, largest);
  for (const auto& p : pending) {
    const auto stored = db->run(p.id);
    EXPECT_EQ(p.ranks, stored->plan.ranks);
    EXPECT_EQ(p.total_steps, stored->plan.steps);
  }
}

TEST(StoredPlan, AVersionOneDatabaseGetsItsPlansFilledIn) {
  testing::TempDir dir;
  const ladder::LadderSpec spec = ladder::parseLadder(kLadder, "plans.toml");
  {
    auto db = Database::open(dir.file("old.db"));
    enqueueLadder(*db, spec, dir.file("work"));
    testing::downgradeToSchemaV1(*db);
  }
  auto db = Database::open(dir.file("old.db"));
  EXPECT_EQ(db->schemaVersion(), Database::kSchemaVersion);
  EXPECT_EQ(db->integrityCheck(), "ok");
  const auto ladder_id = db->findLadder("plans");
  ASSERT_TRUE(ladder_id);
  EXPECT_EQ(ladder::resourcesFromJson(nlohmann::json::parse(db->ladder(*ladder_id)->resources_json))
                .backend,
            "slurm");
  for (const RunSummary& s : db->listRuns(ladder_id)) {
    SCOPED_TRACE(s.run.name);
    bool found = false;
    for (const auto& planned : spec.runs)
      if (planned.name == s.run.name) {
        found = true;
        EXPECT_EQ(s.run.plan.flops, planned.flops);
        EXPECT_EQ(s.run.plan.steps, planned.config.train.steps);
        EXPECT_EQ(s.run.plan.ranks, planned.config.train.ranks);
      }
    EXPECT_TRUE(found);
  }
}

}  // namespace
}  // namespace deepladder::storage

// Scheduler poll cost with 1,000 queued runs: the queue read as the scheduler does it on every
// poll (SqliteRunStore::pending(), which reads the stored plan columns), against the way it was
// read before plans were stored (every queued config parsed from JSON and its FLOPs recomputed,
// without growth), in the same run on the same database. Goal (judged in smoke mode too): both
// reads find every queued run. --smoke: 100 runs, median of 3.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <vector>

#include "core/flop_model.h"
#include "core/ladder/ladder_spec.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/run_store_sqlite.h"
#include "tests/bench/bench_goals.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class Body>
double medianMs(int repeats, Body body) {
  std::vector<double> ms;
  for (int i = 0; i < repeats; ++i) {
    const auto start = std::chrono::steady_clock::now();
    body();
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  return median(ms);
}

// The queue as it was read before the plan was stored.
size_t pendingByParsingConfigs(storage::Database& db, int64_t ladder) {
  size_t n = 0;
  for (const storage::RunSummary& s : db.listRuns(ladder)) {
    if (s.run.status != RunStatus::kQueued) continue;
    const RunConfig c = runConfigFromJson(nlohmann::json::parse(s.run.config_json));
    const double flops = flopsPerToken(c.model) * double(c.train.steps) *
                         double(c.train.batch_size * c.model.seq_len);
    n += flops > 0 ? 1 : 0;
  }
  return n;
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  const int n_seeds = goals.smoke() ? 25 : 250, repeats = goals.smoke() ? 3 : 21;
  const fs::path dir =
      fs::temp_directory_path() / ("deepladder-queue-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::string seeds;
  for (int s = 1; s <= n_seeds; ++s) seeds += (s > 1 ? ", " : "") + std::to_string(s);
  const std::string text = "[ladder]\nname = \"q\"\nseeds = [" + seeds +
                           "]\n[sizes]\ndepths = [3, 6]\nwidth_per_depth = 16\nhead_dim = 16\n"
                           "[budget]\nrule = \"tokens\"\ntokens = 100000\n"
                           "[arms.vanilla]\n[arms.untied_grow]\n";
  const ladder::LadderSpec spec = ladder::parseLadder(text, "queue_bench");
  auto db = storage::Database::open((dir / "q.db").string());
  const auto queued = storage::enqueueLadder(*db, spec, (dir / "work").string());
  storage::SqliteRunStore store(*db, queued.ladder_id);
  size_t sink = 0;
  const double stored = medianMs(repeats, [&] { sink += store.pending().size(); });
  const double parsed =
      medianMs(repeats, [&] { sink += pendingByParsingConfigs(*db, queued.ladder_id); });
  std::printf("queue_bench: %d queued runs; one scheduler poll of the queue (median of %d):\n",
              queued.runs_added, repeats);
  std::printf("  stored plan columns (now):        %8.2f ms\n", stored);
  std::printf("  parsing every config (before):    %8.2f ms\n", parsed);
  std::printf("  ratio before / now:               %8.2fx   (%zu)\n", parsed / stored, sink % 7);
  const size_t now = store.pending().size();
  const size_t before = pendingByParsingConfigs(*db, queued.ladder_id);
  goals.holds("both reads find all " + std::to_string(queued.runs_added) + " queued runs (" +
                  std::to_string(now) + ", " + std::to_string(before) + ")",
              now == static_cast<size_t>(queued.runs_added) && before == now);
  fs::remove_all(dir);
  return goals.exitCode();
}

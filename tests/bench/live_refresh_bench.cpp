// Live-ladder timings, measured in one run on an 8 arm x 8 rung ladder in a real SQLite file:
// 1. refresh after a run ends (what `run`, `watch` and the workbench do): read the ladder's final
//    losses, refit the share of the arm whose run finished, store it in the fits table, at the
//    live default of 200 bootstrap resamples and at fit's 1000. Target < 100 ms. Shown for a
//    non-baseline run (one share refitted, the common case) and for a baseline run (every share
//    refitted), next to a full refit of the ladder without the cache;
// 2. one `suggest` with 50 candidates on the same ladder at 6 rungs per arm (default options:
//    6 draws, 100 resamples per refit, 2 threads). Target < 5 s on 2 cores.
// Data: synthetic, seeded (8 arms sharing E = 1.8, gammas 0.100..0.135, 0.3% loss noise, as in
// fitting_bench). Figures are wall seconds and process CPU seconds. Each target is a goal
// (bench_goals.h: exit 1 on a miss); a refresh that refits other than the shares it should is a
// correctness goal. --smoke: 50 resamples instead of 200 and 1000, suggest with 20 candidates and
// 2 draws (seconds; timing goals not judged).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <vector>

#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "fitting/live_projection.h"
#include "fitting/suggest.h"
#include "storage/database.h"
#include "storage/fit_cache.h"
#include "storage/result_points.h"
#include "tests/bench/bench_goals.h"

using namespace deepladder;

namespace {
bench::Goals* goals = nullptr;
}  // namespace

namespace {

double secondsSince(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? NAN : v[v.size() / 2];
}

std::string armName(int a) {
  return a == 0 ? "vanilla" : "arm" + std::to_string(a);
}

double computeOf(int rung) {
  return 1e17 * std::pow(10.0, 0.5 * rung);
}

double lossOf(int a, int rung, std::mt19937_64& rng) {
  std::normal_distribution<double> gauss(0.0, 1.0);
  return fitting::frontierLoss(computeOf(rung), 1e18, 1.8, 1.2 - 0.01 * a, 0.100 + 0.005 * a) *
         (1.0 + 0.003 * gauss(rng));
}

// Builds the 8x8 ladder in a fresh database and times the refreshes at `bootstrap` resamples.
void measureRefresh(int bootstrap) {
  char pattern[] = "/tmp/deepladder-refresh-bench-XXXXXX";
  const std::filesystem::path dir = mkdtemp(pattern);
  auto db = storage::Database::open((dir / "runs.db").string());
  const int64_t ladder = db->upsertLadder("bench", "[ladder]\nname = \"bench\"\n", "bench-hash");
  std::mt19937_64 rng(11);
  // Every run finished but the last rung of each arm, which stays queued.
  std::vector<int64_t> last_rung(8);
  double when = 1000;
  for (int a = 0; a < 8; ++a)
    for (int rung = 0; rung < 8; ++rung) {
      storage::RunRecord r;
      r.ladder_id = ladder;
      r.arm = armName(a);
      r.size = "r" + std::to_string(rung);
      r.name = r.arm + "-" + r.size + "-s1";
      r.flops = computeOf(rung);
      r.status = rung == 7 ? RunStatus::kQueued : RunStatus::kFinished;
      if (rung < 7) r.final_loss = lossOf(a, rung, rng);
      r.finished = when += 1;
      const int64_t id = db->insertRun(r);
      if (rung == 7) last_rung[a] = id;
    }
  fitting::FrontierOptions options = fitting::defaultFrontierOptions();
  options.bootstrap = bootstrap;
  storage::SqliteFitCache cache(*db, ladder);
  fitting::LiveProjection live(&cache, "bench", options, 1e26);
  auto refresh = [&] { return live.refresh(storage::ladderResults(*db, ladder, "bench")); };
  std::printf("-- %d bootstrap resamples%s --\n", bootstrap,
              bootstrap == 200    ? " (the live default of run, watch and the workbench)"
              : bootstrap == 1000 ? " (fit's default)"
                                  : " (smoke)");
  auto t0 = std::chrono::steady_clock::now();
  auto c0 = std::clock();
  refresh();  // cold: every share fitted once
  std::printf("first refresh (7 shares fitted): %.3f s wall, %.3f s cpu\n", secondsSince(t0),
              double(std::clock() - c0) / CLOCKS_PER_SEC);
  std::vector<double> one_share, one_share_cpu;
  for (int a = 1; a < 8; ++a) {
    db->markRunDone(last_rung[a], RunStatus::kFinished, lossOf(a, 7, rng), 100, 1000, computeOf(7),
                    when += 1, "");
    t0 = std::chrono::steady_clock::now();
    c0 = std::clock();
    const auto s = refresh();
    one_share.push_back(secondsSince(t0));
    one_share_cpu.push_back(double(std::clock() - c0) / CLOCKS_PER_SEC);
    goals->holds("a non-baseline run refits its one share (" + std::to_string(s.refitted.size()) +
                     " refitted)",
                 s.refitted.size() == 1);
  }
  std::printf(
      "refresh after a non-baseline run ends (1 share refitted): median %.1f ms wall, %.1f ms "
      "cpu, over 7 runs\n",
      1e3 * median(one_share), 1e3 * median(one_share_cpu));
  goals->below("refresh after a non-baseline run, " + std::to_string(bootstrap) + " resamples",
               1e3 * median(one_share), 100, "ms");
  t0 = std::chrono::steady_clock::now();
  refresh();
  std::printf("refresh with nothing new (all shares reused): %.1f ms wall\n",
              1e3 * secondsSince(t0));
  db->markRunDone(last_rung[0], RunStatus::kFinished, lossOf(0, 7, rng), 100, 1000, computeOf(7),
                  when += 1, "");
  t0 = std::chrono::steady_clock::now();
  c0 = std::clock();
  const auto all = refresh();
  const double baseline_ms = 1e3 * secondsSince(t0);
  std::printf(
      "refresh after a baseline run ends (%zu shares refitted): %.1f ms wall, %.1f ms cpu\n",
      all.refitted.size(), baseline_ms, 1e3 * double(std::clock() - c0) / CLOCKS_PER_SEC);
  goals->below("refresh after a baseline run, " + std::to_string(bootstrap) + " resamples",
               baseline_ms, 100, "ms");
  goals->holds(
      "a baseline run refits every share (" + std::to_string(all.refitted.size()) + " of 7)",
      all.refitted.size() == 7);
  t0 = std::chrono::steady_clock::now();
  fitting::fitFrontier(storage::ladderResults(*db, ladder, "bench"),
                       fitting::projectionOptions(options, 1e26));
  std::printf("for comparison, the whole 8x8 fit without the cache: %.1f ms wall\n",
              1e3 * secondsSince(t0));
  db.reset();
  std::filesystem::remove_all(dir);
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  bench::Goals bench_goals(bench::takeSmokeFlag(argc, argv));
  goals = &bench_goals;
  // --- 1. refresh after a run ends ----------------------------------------------------------
  if (bench_goals.smoke()) {
    measureRefresh(50);
  } else {
    measureRefresh(200);
    measureRefresh(1000);
  }
  std::chrono::steady_clock::time_point t0;
  std::clock_t c0;

  // --- 2. suggest with 50 candidates --------------------------------------------------------
  ResultsTable six;
  six.source = "bench";
  std::mt19937_64 rng6(5);
  for (int a = 0; a < 8; ++a)
    for (int rung = 0; rung < 6; ++rung) {
      RunPoint p;
      p.arm = armName(a);
      p.compute_flops = computeOf(rung);
      p.val_loss = lossOf(a, rung, rng6);
      six.points.push_back(p);
    }
  std::vector<ladder::CandidateRun> candidates;
  auto add = [&](ladder::CandidateKind kind, int a, int rung, int seed) {
    ladder::CandidateRun c;
    c.kind = kind;
    c.run.arm = armName(a);
    c.run.size = "r" + std::to_string(rung);
    c.run.seed = seed;
    c.run.name = c.run.arm + "-" + c.run.size + "-s" + std::to_string(seed);
    c.run.flops = computeOf(rung);
    c.run.est_seconds = c.run.flops / 4e14;
    candidates.push_back(c);
  };
  for (int a = 0; a < 8; ++a) add(ladder::CandidateKind::kGridRung, a, 6, 1);
  for (int a = 0; a < 8; ++a) add(ladder::CandidateKind::kGridRung, a, 7, 1);
  for (int a = 0; a < 8; ++a) add(ladder::CandidateKind::kLargerSize, a, 8, 1);
  for (int a = 0; a < 8; ++a) add(ladder::CandidateKind::kLargerSize, a, 9, 1);
  for (int k = 0; k < 18; ++k) add(ladder::CandidateKind::kExtraSeed, k % 8, k / 8, 2);
  fitting::SuggestOptions options = fitting::defaultSuggestOptions();
  if (bench_goals.smoke()) {
    candidates.resize(20);
    options.draws = 2;
  }
  t0 = std::chrono::steady_clock::now();
  c0 = std::clock();
  const auto result = fitting::suggestRuns(six, candidates, options);
  const double suggest_s = secondsSince(t0);
  std::printf(
      "suggest, %zu candidates (8 arms x 6 rungs run, %d draws, %d resamples per refit, %d "
      "threads): %.2f s wall, %.2f s cpu; top: %s\n",
      candidates.size(), options.draws, options.fit.bootstrap, options.threads, suggest_s,
      double(std::clock() - c0) / CLOCKS_PER_SEC,
      result.ranked.empty() ? "(none)" : result.ranked[0].candidate.run.name.c_str());
  goals->below("suggest, 50 candidates, 2 cores", suggest_s, 5.0, "s");
  goals->holds("suggest ranks the candidates", !result.ranked.empty());
  return bench_goals.exitCode();
}

// Live-ladder simulation benchmark: does spending a ladder's compute adaptively (suggest, one run
// at a time) pin down the target multiplier better than the published fixed grid?
//
// Ground truth: the frontier fit of the published growth ladder's vanilla and untied_grow runs
// (tests/fitting/published_growth_ladder.h), with each arm's residual scatter
// s = sqrt(rss / (n - p)) as Gaussian noise on every run's final loss (a run's outcome depends on
// the simulated ladder, arm, size and seed only, so the fixed and adaptive ladders of one
// simulation see the same outcome for the same run).
// Fixed: the published rungs (vanilla d6..d20, untied_grow d6..d18), one seed.
// Adaptive: the three smallest rungs of each arm, then repeatedly the top suggestion
// (fitting/suggest.h, default options, target 1e26) that fits what is left of the fixed grid's
// total compute (fitting/adaptive_policy.h); candidates: published rungs not yet run, the next
// seed of every rung run, two larger sizes per arm (computes continued with each arm's last
// depth-to-FLOPs slope).
// Figures, over N simulated ladders (default 50): the interval width of M(1e26) and its absolute
// error against the truth, fixed vs adaptive at equal compute; the compute at which adaptive first
// reaches the fixed grid's final width; coverage of the truth by both ladders' intervals (nominal
// 95%). Every interval is the ladder's own fit with 400 resamples: the live projection's
// (fitting/live_projection.h: residual bootstrap) for every figure, and for coverage also
// `deepladder fit`'s (run bootstrap).
// First, what any policy could reach at best (tests/bench/multiplier_design_bound.h): the
// delta-method width of M(1e26) with the true laws known, for the fixed grid and for the best
// design the same candidates allow within the same compute (and within fractions of it).
// Usage: live_ladder_bench [--ladders N] [--first K] [--threads T] [--quick] [--bound-only]
//                          [--fixed-designs N]
// (--first K: simulate ladders K .. K+N-1, so that a later run adds independent ladders to an
// earlier one's: each ladder's noise depends on its index only.)
// (--quick: 4 ladders; --bound-only: the bound alone, no simulated ladders; --fixed-designs N:
// the bound, then the widths and coverage of both interval methods over N simulations of fixed
// designs alone, the grid and the grid with many seeds of its cheapest rungs: minutes, not the
// adaptive ladders' hour).
// Each simulated ladder takes one to four minutes of one core (its suggests): give it the cores
// there are.
// Goals (bench_goals.h, exit 1 on a miss), judged on the adaptive ladders: median fixed/adaptive
// width ratio >= 1.5, median compute fraction at which adaptive reaches the grid's width <= 0.5,
// live-projection coverage of the truth within 3 points of 95% (fixed and adaptive).
// --smoke: 3 fixed-design simulations (seconds; no bound, no adaptive ladders, no goals).
// The figures in docs/fits.md: `live_ladder_bench --ladders 100` (adaptive, about an hour on 16
// cores) and `live_ladder_bench --fixed-designs 200` (the 200 fixed grids).
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "fitting/adaptive_policy.h"
#include "fitting/frontier_fit.h"
#include "fitting/frontier_model.h"
#include "fitting/live_projection.h"
#include "fitting/suggest.h"
#include "tests/bench/bench_goals.h"
#include "tests/bench/multiplier_design_bound.h"
#include "tests/fitting/published_growth_ladder.h"

using namespace deepladder;
using namespace deepladder::fitting;

namespace {

constexpr double kTarget = 1e26;

struct Truth {
  double E = 0, c_ref = 1e18;
  std::map<std::string, std::pair<double, double>> law;  // arm -> (A, gamma)
  std::map<std::string, double> scatter;                 // arm -> s
  double multiplier = 0;                                 // M(1e26)
};

Truth truthFromPublished() {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 0;
  o.at = {kTarget};
  const FrontierResult fit = fitFrontier(testing::publishedTable(), o);
  Truth t;
  t.E = fit.arms[0].E;
  for (const auto& a : fit.arms) {
    t.law[a.arm] = {a.A, a.gamma};
    t.scatter[a.arm] = std::sqrt(a.rss / (a.n_points - (a.E_free ? 3 : 2)));
  }
  t.multiplier = fit.multipliers[0].projected[0].multiplier;
  return t;
}

// The rungs each arm may run: published depths plus two larger, computes continued.
std::map<std::string, std::map<int, double>> rungComputes() {
  std::map<std::string, std::map<int, double>> out;
  for (const auto& r : testing::publishedGrowthLadder()) out[r.arm][r.depth] = r.compute_flops;
  for (auto& [arm, rungs] : out) {
    auto last = std::prev(rungs.end()), prev = std::prev(last);
    const double slope =
        std::log(last->second / prev->second) / std::log(double(last->first) / prev->first);
    const int d0 = last->first;
    const double c0 = last->second;
    for (int d : {d0 + 2, d0 + 4}) rungs[d] = c0 * std::pow(double(d) / d0, slope);
  }
  return out;
}

// The outcome of one run in simulated ladder `sim`.
double outcome(const Truth& t, int sim, const std::string& arm, double compute, int depth,
               int64_t seed) {
  std::seed_seq seq{static_cast<unsigned>(sim), static_cast<unsigned>(depth),
                    static_cast<unsigned>(seed), static_cast<unsigned>(arm.size()),
                    static_cast<unsigned>(arm[0])};
  std::mt19937_64 rng(seq);
  std::normal_distribution<double> z(0.0, 1.0);
  const auto [A, g] = t.law.at(arm);
  return frontierLoss(compute, t.c_ref, t.E, A, g) + t.scatter.at(arm) * z(rng);
}

RunPoint point(const Truth& t, int sim, const std::string& arm, int depth, double compute,
               int64_t seed) {
  RunPoint p;
  p.arm = arm;
  p.compute_flops = compute;
  p.val_loss = outcome(t, sim, arm, compute, depth, seed);
  p.size = "d" + std::to_string(depth);
  p.seed = seed;
  return p;
}

struct Interval {
  double value = NAN, lo = NAN, hi = NAN;
  double width() const { return hi - lo; }
};

// Which interval: the live projection's (what `run`, `watch`, the adaptive loop and the
// workbench show while a ladder runs) or `deepladder fit`'s.
enum class IntervalMethod { kLive, kFit };

Interval ladderInterval(const ResultsTable& table, IntervalMethod method = IntervalMethod::kLive) {
  FrontierOptions o = defaultFrontierOptions();
  o.bootstrap = 400;
  o.at = {kTarget};
  if (method == IntervalMethod::kLive) o = projectionOptions(o, kTarget);
  try {
    const FrontierResult fit = fitFrontier(table, o);
    const ProjectedMultiplier& p = fit.multipliers.at(0).projected.at(0);
    return {p.multiplier, p.ci_lo, p.ci_hi};
  } catch (const std::exception&) {
    return {};
  }
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

struct PathPoint {
  double spent;
  Interval interval;
};

struct AdaptiveRun {
  std::vector<PathPoint> path;  // after every finished run from the first fittable one on
  Interval final;
  Interval final_fit;  // `deepladder fit`'s interval on the final table
  double spent = 0;
  std::map<std::string, int> bought;  // by candidate kind
  std::string stop;
};

AdaptiveRun runAdaptive(const Truth& t, int sim, bool verbose,
                        const std::map<std::string, std::map<int, double>>& rungs, double budget) {
  AdaptiveRun out;
  ResultsTable table;
  table.source = "sim";
  std::map<std::pair<std::string, int>, int64_t> top_seed;  // (arm, depth) -> seeds run
  for (const auto& [arm, by_depth] : rungs) {
    int k = 0;
    for (const auto& [depth, c] : by_depth) {
      if (k++ == 3) break;
      table.points.push_back(point(t, sim, arm, depth, c, 1));
      top_seed[{arm, depth}] = 1;
      out.spent += c;
    }
  }
  out.path.push_back({out.spent, ladderInterval(table)});
  SuggestOptions so = defaultSuggestOptions();
  so.target = kTarget;
  so.threads = 1;  // ladders run in parallel instead

  constexpr int kMaxBuys = 64;  // the simulation's cap on runs bought (each costs a suggest)
  out.stop = "the simulation's cap of " + std::to_string(kMaxBuys) + " buys";
  for (int step = 0; step < kMaxBuys; ++step) {
    std::vector<ladder::CandidateRun> candidates;
    const auto& published = testing::publishedGrowthLadder();
    for (const auto& [arm, by_depth] : rungs)
      for (const auto& [depth, c] : by_depth) {
        const bool in_grid = std::any_of(published.begin(), published.end(), [&](const auto& r) {
          return r.arm == arm && r.depth == depth;
        });
        const auto seen = top_seed.find({arm, depth});
        ladder::CandidateRun cand;
        cand.run.arm = arm;
        cand.run.size = "d" + std::to_string(depth);
        cand.run.flops = c;
        cand.run.est_seconds = c / 4e14;
        if (seen != top_seed.end()) {
          cand.kind = ladder::CandidateKind::kExtraSeed;
          cand.run.seed = seen->second + 1;
        } else {
          cand.kind =
              in_grid ? ladder::CandidateKind::kGridRung : ladder::CandidateKind::kLargerSize;
          cand.run.seed = 1;
        }
        cand.run.name = arm + "-" + cand.run.size + "-s" + std::to_string(cand.run.seed);
        candidates.push_back(cand);
      }
    const SuggestResult s = suggestRuns(table, candidates, so);
    AdaptiveBudget b;
    b.budget_flops = budget;
    b.spent_flops = out.spent;
    const AdaptiveDecision d = decideAdaptive(s, {out.path.back().interval.width()}, b);
    if (verbose && d.kind != AdaptiveDecision::kQueue)
      std::printf("  step %d: stop, %s\n", step, d.reason.c_str());
    if (d.kind != AdaptiveDecision::kQueue) {
      out.stop = d.reason;
      break;
    }
    if (verbose) {
      std::printf("  step %d, %.3g FLOPs spent, M(1e26) %.3f [%.3f, %.3f]; top of %zu:\n", step,
                  out.spent, out.path.back().interval.value, out.path.back().interval.lo,
                  out.path.back().interval.hi, s.ranked.size());
      for (size_t i = 0; i < std::min<size_t>(6, s.ranked.size()); ++i) {
        const Suggestion& g = s.ranked[i];
        std::printf("    %-22s %-11s cost %.2e narrowing %+.3f se %.3f score %.2e%s\n",
                    g.candidate.run.name.c_str(), ladder::candidateKindName(g.candidate.kind),
                    g.cost_flops, g.narrowing, g.narrowing_se, g.score,
                    static_cast<int>(i) == d.chosen ? "  <- " : "");
      }
      if (d.kind != AdaptiveDecision::kQueue) std::printf("    stop: %s\n", d.reason.c_str());
    }
    const ladder::CandidateRun& c = s.ranked[d.chosen].candidate;
    const int depth = std::stoi(c.run.size.substr(1));
    table.points.push_back(point(t, sim, c.run.arm, depth, c.run.flops, c.run.seed));
    top_seed[{c.run.arm, depth}] = c.run.seed;
    out.spent += c.run.flops;
    ++out.bought[ladder::candidateKindName(c.kind)];
    out.path.push_back({out.spent, ladderInterval(table)});
  }
  out.final = out.path.back().interval;
  out.final_fit = ladderInterval(table, IntervalMethod::kFit);
  return out;
}

// A fixed design in simulated ladder `sim`: the published rungs, `first_seeds` seeds of each
// arm's smallest rung, `second_seeds` of its second, one of every other (1, 1: the grid).
ResultsTable fixedDesign(const Truth& t, int sim, int first_seeds = 1, int second_seeds = 1) {
  ResultsTable table;
  table.source = "sim";
  std::map<std::string, int> rank;  // arm -> rungs seen (the published rungs grow in depth)
  for (const auto& r : testing::publishedGrowthLadder()) {
    const int k = rank[r.arm]++;
    const int seeds = k == 0 ? first_seeds : k == 1 ? second_seeds : 1;
    for (int seed = 1; seed <= seeds; ++seed)
      table.points.push_back(point(t, sim, r.arm, r.depth, r.compute_flops, seed));
  }
  return table;
}

bool covers(const Interval& i, double truth) {
  return i.lo <= truth && truth <= i.hi;
}

// A fixed design (fixedDesign) over `ladders` simulations: its compute against the grid's, the
// median width and error of the live projection's interval, and both methods' coverage.
void printDesignCoverage(const Truth& t, int ladders, int first_seeds, int second_seeds,
                         double grid_compute) {
  int cover_live = 0, cover_fit = 0;
  double compute = 0;  // the design's, the same in every simulation
  for (const auto& p : fixedDesign(t, 0, first_seeds, second_seeds).points)
    compute += p.compute_flops;
  std::vector<double> width_live, width_fit, error;
  for (int sim = 0; sim < ladders; ++sim) {
    const ResultsTable table = fixedDesign(t, sim, first_seeds, second_seeds);
    const Interval live = ladderInterval(table), fit = ladderInterval(table, IntervalMethod::kFit);
    cover_live += covers(live, t.multiplier), cover_fit += covers(fit, t.multiplier);
    width_live.push_back(live.width()), width_fit.push_back(fit.width());
    error.push_back(std::fabs(live.value - t.multiplier));
  }
  std::printf(
      "  grid with %2d and %d seeds of each arm's two smallest rungs (%.3f of the grid's "
      "compute): live projection width %.3f, abs error %.3f (medians), coverage %.1f%%; "
      "deepladder fit width %.3f, coverage %.1f%%\n",
      first_seeds, second_seeds, compute / grid_compute, median(width_live), median(error),
      100.0 * cover_live / ladders, median(width_fit), 100.0 * cover_fit / ladders);
}

// Fixed designs alone (no suggest, so minutes): the published grid, and the grid with many
// seeds of its cheapest rungs, which is where the design bound puts most of its runs.
void printFixedDesigns(const Truth& t, int ladders, double grid_compute) {
  std::printf(
      "fixed designs over %d simulated ladders, M(1e26) intervals (nominal 95%%): live "
      "projection (residual bootstrap) and deepladder fit (run bootstrap)\n",
      ladders);
  printDesignCoverage(t, ladders, 1, 1, grid_compute);
  printDesignCoverage(t, ladders, 20, 5, grid_compute);
  printDesignCoverage(t, ladders, 40, 1, grid_compute);
}

// From which compute on (a fraction of the fixed grid's) the adaptive width stays at or below
// the fixed grid's final width (early intervals of a few rungs can be narrow by accident, so not
// the first crossing); infinity when it never does.
double reachFraction(const AdaptiveRun& a, const Interval& fixed, double fixed_compute) {
  double reach = INFINITY;
  for (auto it = a.path.rbegin(); it != a.path.rend(); ++it) {
    if (!(it->interval.width() <= fixed.width())) break;
    reach = it->spent / fixed_compute;
  }
  return reach;
}

// The bound: the fixed grid's delta-method width against the best design of the candidate rungs
// (published ones and the two larger sizes per arm, any number of seeds each) within the fixed
// grid's compute, and the smallest compute fraction whose best design is as narrow as the grid.
void printDesignBound(const Truth& t, const std::map<std::string, std::map<int, double>>& rungs,
                      double fixed_compute) {
  bench::KnownLaws laws;
  laws.c_ref = t.c_ref;
  laws.target = kTarget;
  const auto law = [&](const std::string& arm) {
    return bench::ArmLaw{t.law.at(arm).first, t.law.at(arm).second, t.scatter.at(arm)};
  };
  laws.base = law("vanilla");
  laws.arm = law("untied_grow");
  std::vector<bench::DesignRun> candidates;
  std::vector<std::string> names;
  bench::Design fixed;
  for (const auto& [arm, by_depth] : rungs)
    for (const auto& [depth, compute] : by_depth) {
      candidates.push_back({arm != "vanilla", compute});
      names.push_back(arm + " d" + std::to_string(depth));
      const auto& published = testing::publishedGrowthLadder();
      fixed.count.push_back(std::count_if(published.begin(), published.end(), [&](const auto& r) {
        return r.arm == arm && r.depth == depth;
      }));
    }
  const auto describe = [&](const bench::Design& d) {
    std::string text;
    for (size_t i = 0; i < candidates.size(); ++i)
      if (d.count[i] > 0)
        text += (text.empty() ? "" : ", ") + names[i] +
                (d.count[i] > 1 ? " x" + std::to_string(d.count[i]) : "");
    return text;
  };
  // q = 1: the simulation's truth; below it, part of each rung's deviation is shared by its
  // seeds (what real ladders show), so extra seeds of cheap rungs buy less.
  for (const double q : {1.0, 0.5, 0.2}) {
    const double fixed_width =
        bench::linearizedWidth(laws, bench::designRuns(candidates, fixed), q);
    std::printf(
        "design bound (delta method, true laws known), seed-to-seed share of the residual "
        "variance %.1f%s: fixed grid width %.3f\n",
        q, q == 1.0 ? " (the simulation's truth)" : "", fixed_width);
    double reach = INFINITY, equal = NAN;
    std::vector<bench::Design> starts = {fixed};
    std::vector<std::string> lines;
    for (const double fraction : {0.25, 0.35, 0.5, 0.75, 1.0}) {  // each starts from the last
      const bench::Design best =
          bench::bestDesign(laws, candidates, starts, fraction * fixed_compute, q);
      starts.push_back(best);
      char line[160];
      std::snprintf(line, sizeof line,
                    "  best design within %.2f of the grid's compute: width %.3f (fixed/best "
                    "%.2f): ",
                    fraction, best.width, fixed_width / best.width);
      lines.insert(lines.begin(), line + describe(best));
      if (fraction == 1.0) equal = fixed_width / best.width;
      if (best.width <= fixed_width && !(reach <= fraction)) reach = fraction;
    }
    for (const std::string& line : lines) std::printf("%s\n", line.c_str());
    std::printf(
        "  so at equal compute no policy can expect more than about %.2fx narrower (the adaptive "
        "goal: 1.5x); "
        "the grid's width is within reach from %.2f of its compute (the adaptive goal: 0.5)\n",
        equal, reach);
  }
}

}  // namespace

int main(int argc, char** argv) {
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  int ladders = 50, first = 0, threads = 2;
  bool verbose = false, bound_only = false;
  int fixed_designs = goals.smoke() ? 3 : 0;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--bound-only")) bound_only = true;
    if (!std::strcmp(argv[i], "--threads") && i + 1 < argc) threads = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--ladders") && i + 1 < argc) ladders = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--first") && i + 1 < argc) first = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--quick")) ladders = 4;
    if (!std::strcmp(argv[i], "--fixed-designs") && i + 1 < argc)
      fixed_designs = std::atoi(argv[++i]);
    if (!std::strcmp(argv[i], "--verbose")) verbose = true;  // every decision (with --threads 1)
  }
  const Truth truth = truthFromPublished();
  const auto rungs = rungComputes();
  double fixed_compute = 0;
  for (const auto& r : testing::publishedGrowthLadder()) fixed_compute += r.compute_flops;
  std::printf(
      "truth (published ladder's fit): E %.4f, vanilla A %.4f gamma %.4f s %.4f, "
      "untied_grow A %.4f gamma %.4f s %.4f; M(1e26) = %.3f\n",
      truth.E, truth.law.at("vanilla").first, truth.law.at("vanilla").second,
      truth.scatter.at("vanilla"), truth.law.at("untied_grow").first,
      truth.law.at("untied_grow").second, truth.scatter.at("untied_grow"), truth.multiplier);
  if (!goals.smoke()) printDesignBound(truth, rungs, fixed_compute);  // a minute: not in smoke
  if (bound_only) return goals.exitCode();
  if (fixed_designs > 0) {
    printFixedDesigns(truth, fixed_designs, fixed_compute);
    return goals.exitCode();
  }
  std::printf("fixed grid: 15 runs, %.3g FLOPs; adaptive budget: the same; %d ladders (%d to %d)\n",
              fixed_compute, ladders, first, first + ladders - 1);

  std::vector<double> fixed_w, fixed_err, adapt_w, adapt_err, reach_fraction, width_ratio,
      adapt_spent;
  int fixed_cover = 0, adapt_cover = 0, fixed_fit_cover = 0, adapt_fit_cover = 0;
  std::map<std::string, int> bought;
  const auto t0 = std::chrono::steady_clock::now();
  // Ladders run in parallel (each suggest on one thread); results are read back in order.
  std::vector<Interval> fixed_results(ladders), fixed_fit_results(ladders);
  std::vector<AdaptiveRun> adaptive_results(ladders);
  std::vector<std::thread> pool;
  std::mutex print;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = t; i < ladders; i += threads) {
        const int sim = first + i;
        const ResultsTable fixed = fixedDesign(truth, sim);
        fixed_results[i] = ladderInterval(fixed);
        fixed_fit_results[i] = ladderInterval(fixed, IntervalMethod::kFit);
        adaptive_results[i] = runAdaptive(truth, sim, verbose, rungs, fixed_compute);
        const Interval& f = fixed_results[i];
        const AdaptiveRun& a = adaptive_results[i];
        std::lock_guard<std::mutex> lock(print);
        std::printf(
            "ladder %2d: fixed %.3f [%.3f, %.3f] | adaptive %.3f [%.3f, %.3f] after %zu buys, "
            "%.2f of the compute, reaches the fixed width at %.2f (%s)\n",
            sim, f.value, f.lo, f.hi, a.final.value, a.final.lo, a.final.hi, a.path.size() - 1,
            a.spent / fixed_compute, reachFraction(a, f, fixed_compute), a.stop.c_str());
      }
    });
  for (auto& th : pool) th.join();
  for (int sim = 0; sim < ladders; ++sim) {
    const Interval& f = fixed_results[sim];
    const AdaptiveRun& a = adaptive_results[sim];
    fixed_w.push_back(f.width());
    fixed_err.push_back(std::fabs(f.value - truth.multiplier));
    adapt_w.push_back(a.final.width());
    adapt_err.push_back(std::fabs(a.final.value - truth.multiplier));
    adapt_spent.push_back(a.spent / fixed_compute);
    fixed_cover += covers(f, truth.multiplier);
    adapt_cover += covers(a.final, truth.multiplier);
    fixed_fit_cover += covers(fixed_fit_results[sim], truth.multiplier);
    adapt_fit_cover += covers(a.final_fit, truth.multiplier);
    width_ratio.push_back(f.width() / a.final.width());
    reach_fraction.push_back(reachFraction(a, f, fixed_compute));
    for (const auto& [kind, n] : a.bought) bought[kind] += n;
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int reached = 0, reached_half = 0;
  for (double r : reach_fraction) reached += std::isfinite(r), reached_half += r <= 0.5;
  std::printf("\n--- %d simulated ladders, target M(1e26) = %.3f (%.0f s) ---\n", ladders,
              truth.multiplier, seconds);
  std::printf(
      "interval width at 1e26, median: fixed %.3f, adaptive %.3f at %.2f of the "
      "compute (median); fixed/adaptive width ratio, median %.2f\n",
      median(fixed_w), median(adapt_w), median(adapt_spent), median(width_ratio));
  std::printf("abs error vs truth, median: fixed %.3f, adaptive %.3f\n", median(fixed_err),
              median(adapt_err));
  std::printf(
      "adaptive reaches the fixed grid's final width: in %d/%d ladders; with at most "
      "half the compute in %d/%d; compute fraction when reached, median %.2f\n",
      reached, ladders, reached_half, ladders, median(reach_fraction));
  std::printf(
      "coverage of the truth (nominal 95%%): live projection (residual "
      "bootstrap) fixed %.1f%%, adaptive %.1f%%; deepladder fit (run bootstrap) fixed %.1f%%, "
      "adaptive %.1f%%\n",
      100.0 * fixed_cover / ladders, 100.0 * adapt_cover / ladders,
      100.0 * fixed_fit_cover / ladders, 100.0 * adapt_fit_cover / ladders);
  std::printf("adaptive buys:");
  for (const auto& [kind, n] : bought) std::printf(" %s %d;", kind.c_str(), n);
  std::printf("\n");
  goals.atLeast("fixed/adaptive interval width ratio, median", median(width_ratio), 1.5, "x");
  goals.atMost("compute fraction where adaptive reaches the grid's width, median",
               median(reach_fraction), 0.5, "");
  goals.atLeast("live projection coverage, fixed grid", 100.0 * fixed_cover / ladders, 92.0, "%");
  goals.atMost("live projection coverage, fixed grid", 100.0 * fixed_cover / ladders, 98.0, "%");
  goals.atLeast("live projection coverage, adaptive", 100.0 * adapt_cover / ladders, 92.0, "%");
  goals.atMost("live projection coverage, adaptive", 100.0 * adapt_cover / ladders, 98.0, "%");
  return goals.exitCode();
}

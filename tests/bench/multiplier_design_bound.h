// What any ladder design could reach at best, for the live-ladder simulation
// (tests/bench/live_ladder_bench.cpp): the linearized (delta-method) interval width of the target
// multiplier M(C*) for a set of runs when the true laws are known, and a search for the set of
// runs, within a compute budget, whose width is smallest.
//
// Model: a baseline b and one arm a share E; a rung (arm r, compute C) run with n seeds has mean
// loss E + A_r x^-g_r + s_r (sqrt(1 - q) u + sqrt(q / n) z) (x = C/C0; u, z standard normal). Of
// the residual variance s_r^2, the share q (`seed_share`) is seed-to-seed and averages away over
// the rung's seeds; the rest is the rung's own deviation from the law, which its seeds share.
// q = 1 is the simulation's truth (every run an independent draw). Fisher information of
// theta = (E, A_b, g_b, A_a, g_a) over the rungs:
//   I = sum grad L grad L^T / (s_r^2 (1 - q + q / n)),  grad L = (1, x^-g, -A x^-g ln x) in the
//   rung's arm slots,
// and ln M(C*) = ln x* - (ln A_a - ln A_b + g_b ln x*) / g_a, so Var(ln M) = J I^-1 J^T with
//   J = (0, 1/(g_a A_b), -ln x*/g_a, -1/(g_a A_a), (ln A_a - ln A_b + g_b ln x*)/g_a^2).
// The 95% interval is M exp(+-1.96 sd(ln M)); its width is what the simulation compares. An
// adaptive policy does not know the laws, so in expectation it cannot beat the best design for
// the known laws: this bounds the width ratio (fixed grid / adaptive) the simulation can show.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

namespace deepladder::bench {

struct ArmLaw {
  double A = 0, gamma = 0, scatter = 0;
};

struct KnownLaws {
  double c_ref = 1e18, target = 1e26;  // E does not enter: dL/dE = 1 whatever its value
  ArmLaw base, arm;
};

// One run of a design: which arm (false = baseline) and its compute.
struct DesignRun {
  bool arm = false;
  double compute = 0;
};

// Width of the 95% delta-method interval of M(target); infinity when the design cannot identify
// the five parameters (for example fewer than three baseline computes).
inline double linearizedWidth(const KnownLaws& k, const std::vector<DesignRun>& runs,
                              double seed_share = 1.0) {
  constexpr int P = 5;
  std::map<std::pair<bool, double>, int> seeds;  // rung -> runs
  for (const DesignRun& r : runs) ++seeds[{r.arm, r.compute}];
  std::array<std::array<double, 2 * P>, P> m{};  // [I | identity], reduced in place
  for (const auto& [rung, n] : seeds) {
    const DesignRun r{rung.first, rung.second};
    const ArmLaw& law = r.arm ? k.arm : k.base;
    const double x = r.compute / k.c_ref, xg = std::pow(x, -law.gamma);
    std::array<double, P> g{};
    g[0] = 1;
    g[r.arm ? 3 : 1] = xg;
    g[r.arm ? 4 : 2] = -law.A * xg * std::log(x);
    const double w = 1.0 / (law.scatter * law.scatter *
                            (1.0 - seed_share + seed_share / static_cast<double>(n)));
    for (int i = 0; i < P; ++i)
      for (int j = 0; j < P; ++j) m[i][j] += w * g[i] * g[j];
  }
  for (int i = 0; i < P; ++i) m[i][P + i] = 1;
  for (int c = 0; c < P; ++c) {  // Gauss-Jordan with partial pivoting
    int pivot = c;
    for (int r = c + 1; r < P; ++r)
      if (std::fabs(m[r][c]) > std::fabs(m[pivot][c])) pivot = r;
    if (!(std::fabs(m[pivot][c]) > 1e-300)) return INFINITY;
    std::swap(m[c], m[pivot]);
    const double d = m[c][c];
    for (double& v : m[c]) v /= d;
    for (int r = 0; r < P; ++r) {
      if (r == c) continue;
      const double f = m[r][c];
      for (int j = 0; j < 2 * P; ++j) m[r][j] -= f * m[c][j];
    }
  }
  const double lx = std::log(k.target / k.c_ref);
  const double ga = k.arm.gamma;
  const std::array<double, P> J = {
      0, 1 / (ga * k.base.A), -lx / ga, -1 / (ga * k.arm.A),
      (std::log(k.arm.A) - std::log(k.base.A) + k.base.gamma * lx) / (ga * ga)};
  double var = 0;
  for (int i = 0; i < P; ++i)
    for (int j = 0; j < P; ++j) var += J[i] * m[i][P + j] * J[j];
  if (!(var > 0)) return INFINITY;
  const double log_m = lx - (std::log(k.arm.A) - std::log(k.base.A) + k.base.gamma * lx) / ga;
  const double sd = std::sqrt(var);
  return std::exp(log_m) * (std::exp(1.96 * sd) - std::exp(-1.96 * sd));
}

// A design as run counts per candidate rung (index into `rungs`).
struct Design {
  std::vector<int> count;
  double compute = 0, width = INFINITY;
};

inline std::vector<DesignRun> designRuns(const std::vector<DesignRun>& rungs, const Design& d) {
  std::vector<DesignRun> runs;
  for (size_t i = 0; i < rungs.size(); ++i)
    for (int n = 0; n < d.count[i]; ++n) runs.push_back(rungs[i]);
  return runs;
}

// The design of smallest linearized width whose compute is at most `budget`: a seeded local
// search (add or remove 1, 4 or 16 runs of a rung, or move one run to another rung; first
// improvement) from each of `starts` (those over the budget only end up trimmed or dropped) and
// from random restarts. Not guaranteed optimal, but every design it
// returns is real, so its width is an upper bound on the best one's.
inline Design bestDesign(const KnownLaws& k, const std::vector<DesignRun>& rungs,
                         const std::vector<Design>& starts, double budget, double seed_share = 1.0,
                         int restarts = 300, unsigned seed = 7) {
  auto evaluate = [&](Design& d) {
    d.compute = 0;
    for (size_t i = 0; i < rungs.size(); ++i) d.compute += d.count[i] * rungs[i].compute;
    d.width = d.compute <= budget ? linearizedWidth(k, designRuns(rungs, d), seed_share) : INFINITY;
  };
  auto improve = [&](Design d) {
    evaluate(d);
    for (bool better = true; better;) {
      better = false;
      for (size_t i = 0; i < rungs.size() && !better; ++i)
        for (int delta : {+16, +4, +1, -1, -4, -16}) {
          Design t = d;
          t.count[i] += delta;
          if (t.count[i] < 0) continue;
          evaluate(t);
          if (t.width < d.width) {
            d = t, better = true;
            break;
          }
        }
      for (size_t i = 0; i < rungs.size() && !better; ++i)
        for (size_t j = 0; j < rungs.size() && !better && d.count[i] > 0; ++j) {
          if (i == j) continue;
          Design t = d;
          --t.count[i], ++t.count[j];
          evaluate(t);
          if (t.width < d.width) d = t, better = true;
        }
    }
    return d;
  };
  Design best;
  for (const Design& start : starts) {
    const Design d = improve(start);
    if (best.count.empty() || d.width < best.width) best = d;
  }
  std::mt19937 rng(seed);
  for (int r = 0; r < restarts; ++r) {
    Design d;  // a random affordable design: each rung once, cheapest first, then random runs
    d.count.assign(rungs.size(), 0);
    double spent = 0;
    std::vector<size_t> order(rungs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t i : order)
      if (rng() % 2 && spent + rungs[i].compute <= budget) ++d.count[i], spent += rungs[i].compute;
    for (int tries = 0; tries < 400; ++tries) {
      const size_t i = rng() % rungs.size();
      if (spent + rungs[i].compute > budget) continue;
      ++d.count[i], spent += rungs[i].compute;
    }
    d = improve(d);
    if (d.width < best.width) best = d;
  }
  return best;
}

}  // namespace deepladder::bench

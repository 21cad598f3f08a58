// What to run next: ranks candidate runs (core/ladder/candidates.h) by the expected narrowing of
// the target multiplier's interval per FLOP they cost.
//
// Expected narrowing of a candidate (arm a, planned compute C): for k = 1..draws, draw a
// plausible outcome from the current fit's predictive distribution (bootstrap refits plus the
// residual scatter): L_k = l_r(C) + z_k s_a, with l_r(C) = E_r + A_r (C/C0)^-g_r the curve of
// arm a in bootstrap replicate r and s_a the arm's residual scatter (sqrt(rss_a / (n_a - p_a)),
// p = 3 for the baseline, 2 otherwise, when n_a - p_a >= 2; else the scatter pooled over the
// arms); refit with the outcome added and take the interval width hi - lo of M(target). The
// expected width after is the mean over the draws, summed over the counted arms (a candidate of
// arm a changes only arm a's interval; a baseline candidate changes every arm's). Narrowing =
// width before - expected width after, the width before coming from the same procedure on the
// current runs. Score = (narrowing - its standard error over the draws) / C, or 0 when that is
// not positive: the expected narrowing per FLOP, counted beyond its own Monte-Carlo noise (per
// FLOP, noise on the cheapest run would otherwise outrank any rung).
//
// Choices that make this usable on a ladder of a few rungs (each measured, see
// tests/bench/live_ladder_bench.cpp):
// - every run is its own point, as the live projection fits them, and every refit (and the
//   width before) draws its bootstrap residuals from N(0, s_a^2) with the current scatters
//   (fitFrontierKnownScatter): a candidate's narrowing is what its place in the design buys,
//   not a change of the estimated scatter (a fifth baseline point would otherwise switch the
//   baseline from the pooled scatter to its own few residuals, and every baseline run, however
//   cheap, would seem to halve the interval);
// - an extra seed is drawn around its rung's mean with the seed-to-seed scatter (pooled over the
//   rungs run more than once), and its narrowing is scaled by what it is worth: a run's
//   deviation from the law is its rung's shared part plus its seed's own, the seeds' share q of
//   the scatter measured as the seed variance over the pooled residual variance (at most 1); the
//   (k+1)-th seed of a rung adds 1 / (1 - q + q / (k + 1)) - 1 / (1 - q + q / k) of a new
//   point's information (1 when seeds are independent, 0 when they share everything). Until the
//   seed scatter has kSeedScatterDof degrees of freedom, q is taken as 0 (an extra seed scores
//   0); the adaptive loop (adaptive_policy.h) buys the cheapest seed to measure it;
// - the draws are a Latin hypercube over (replicate, z): draw k takes the replicate at quantile
//   u_k of the replicates' losses at C and z_k = Phi^-1(v_k), each stratum of u and v once, with
//   the same (u_k, v_k) for every candidate (common random numbers).
// Everything is seeded: the same seed gives the same suggestions on any number of threads.
//
// Arms that cannot be fitted yet (too few rungs) come first: their candidates at new computes
// are "needed", cheapest first, with no score.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ladder/candidates.h"
#include "fitting/fit_types.h"
#include "fitting/ladder_fit.h"

namespace deepladder::fitting {

// The degrees of freedom of seed scatter (rungs run more than once) before suggest values an
// extra seed by the seeds' measured share of the scatter; until then an extra seed scores 0.
constexpr int kSeedScatterDof = 2;

struct SuggestOptions {
  FrontierOptions fit;             // baseline, C0, interval level; bootstrap = each refit's
  double target = kDefaultTarget;  // compute of the multiplier whose interval counts (--target)
  int draws = 6;                   // plausible outcomes per candidate
  std::uint64_t seed = 20240520;   // outcome draws (the fits keep fit.seed)
  int threads = 2;                 // candidates scored in parallel
  std::vector<std::string> arms;   // arms whose interval counts; empty = every non-baseline arm
  double budget = 0;               // leave out candidates costing more FLOPs (0 = no limit)
};

// Defaults in one place: 100 resamples per refit, 6 draws, residual bootstrap (quick enough for a
// live ladder's refresh: tests/bench/live_refresh_bench.cpp prints the figures).
SuggestOptions defaultSuggestOptions();

struct Suggestion {
  ladder::CandidateRun candidate;
  double cost_flops = kNaN;    // C: the run's planned training FLOPs
  double hours = kNaN;         // planned wall time on the ladder's resources
  bool needed = false;         // its arm cannot be fitted without more rungs (no score)
  double width_before = kNaN;  // sum over counted arms of hi - lo of M(target), current runs
  double width_after = kNaN;   // the same, expected after the candidate (mean over draws)
  double narrowing = kNaN;     // width_before - width_after
  double narrowing_se = kNaN;  // standard error of `narrowing` over the draws
  double score = kNaN;         // max(0, narrowing - narrowing_se) / cost_flops (per FLOP)
  std::string shown_arm;       // the arm whose interval lo/hi below are (a baseline run: the
                               // counted arm it narrows most)
  double before_lo = kNaN, before_hi = kNaN;  // its interval at target now
  double after_lo = kNaN, after_hi = kNaN;    // expected (mean of the draws' lo and hi)
  int draws_used = 0;                         // draws whose refit succeeded
  std::string why;
};

struct SuggestResult {
  double target = kNaN;
  std::vector<std::string> counted_arms;
  double width_before = kNaN;        // sum over counted arms, same procedure as the scores
  double seed_share = kNaN;          // q: the seeds' share of the runs' scatter (NaN: unmeasured)
  int seed_dof = 0;                  // degrees of freedom of the seed scatter behind q
  std::vector<SkippedArm> unfitted;  // arms that cannot be fitted yet, and why
  std::vector<Suggestion> ranked;    // needed first (cheapest first), then by score
};

// Throws UserError when the baseline has no runs at all or bad options.
SuggestResult suggestRuns(const ResultsTable& runs,
                          const std::vector<ladder::CandidateRun>& candidates,
                          const SuggestOptions& options);

}  // namespace deepladder::fitting

// What to run next: ranks candidate runs (core/ladder/candidates.h) by the expected narrowing of
// the target multiplier's interval per FLOP they cost.
//
// Expected narrowing of a candidate (arm a, planned compute C): for k = 1..draws, draw a
// plausible outcome from the current fit's predictive distribution, L_k = E_r + A_r (C/C0)^-g_r
// + z_k s_a, with (E_r, A_r, g_r) arm a's fit in bootstrap replicate r (uniform over the
// replicates) and s_a = sqrt(rss_a / (n_a - p_a)) arm a's residual scatter (p = 3 for the
// baseline, 2 otherwise); refit with the point added (fitFrontier, same options, its own
// bootstrap) and take the interval width hi - lo of M(target). The expected width after is the
// mean over the draws, summed over the counted arms (a candidate of arm a changes only arm a's
// interval; a baseline candidate changes every arm's). Score = (width before - expected width
// after) / C. The width before comes from the same procedure on the current runs, so the two
// are measured alike. Draws use common random numbers across candidates (the k-th draw of every
// candidate shares r_k and z_k), so rankings are stable, and everything is seeded: the same
// seed gives the same suggestions on any number of threads.
//
// Arms that cannot be fitted yet (too few rungs) come first: their candidates at new sizes are
// "needed", cheapest first, with no score.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "core/ladder/candidates.h"
#include "fitting/fit_types.h"
#include "fitting/ladder_fit.h"

namespace deepladder::fitting {

struct SuggestOptions {
  FrontierOptions fit;            // baseline, C0, interval level; bootstrap = each refit's
  double target = 1e26;           // compute of the multiplier whose interval counts (--target)
  int draws = 8;                  // plausible outcomes per candidate
  std::uint64_t seed = 20240520;  // outcome draws (the fits keep fit.seed)
  int threads = 2;                // candidates scored in parallel
  std::vector<std::string> arms;  // arms whose interval counts; empty = every non-baseline arm
  double budget = 0;              // leave out candidates costing more FLOPs (0 = no limit)
};

// Defaults in one place: 100 resamples per refit, 8 draws (about 50 candidates in < 5 s on
// two cores for a two-arm ladder; see tests/bench/suggest_bench.cpp).
SuggestOptions defaultSuggestOptions();

struct Suggestion {
  ladder::CandidateRun candidate;
  double cost_flops = kNaN;    // C: the run's planned training FLOPs
  double hours = kNaN;         // planned wall time on the ladder's resources
  bool needed = false;         // its arm cannot be fitted without more rungs (no score)
  double width_before = kNaN;  // sum over counted arms of hi - lo of M(target), current runs
  double width_after = kNaN;   // the same, expected after the candidate (mean over draws)
  double narrowing = kNaN;     // width_before - width_after
  double score = kNaN;         // narrowing / cost_flops (per FLOP)
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
  std::vector<SkippedArm> unfitted;  // arms that cannot be fitted yet, and why
  std::vector<Suggestion> ranked;    // needed first (cheapest first), then by score
};

// Throws UserError when the baseline has no runs at all or bad options.
SuggestResult suggestRuns(const ResultsTable& runs,
                          const std::vector<ladder::CandidateRun>& candidates,
                          const SuggestOptions& options);

}  // namespace deepladder::fitting

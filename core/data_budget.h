// How much training data a run reads and how much its split holds, without opening anything:
// a run of S steps of B sequences reads S x B windows of seq_len + 1 tokens (inputs and shifted
// targets), each a non-overlapping slice of the split (window i = tokens [i (T+1), (i+1) (T+1))).
// The sampler (trainers/data, BatchSampler) reads the first min(needed, available) windows in a
// seeded order without replacement, a new order each epoch; a run needing more windows than the
// split holds repeats data (epochs > 1). The planner reports these numbers per run and refuses a
// run whose epochs exceed data.max_epochs.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace deepladder {

struct DataBudget {
  int64_t window_tokens = 0;      // seq_len + 1
  int64_t windows_needed = 0;     // steps x batch_size
  int64_t windows_available = 0;  // floor(split tokens / window_tokens)
  int64_t tokens_needed = 0;      // windows_needed x window_tokens: tokens read from the split
  int64_t tokens_available = 0;   // the split's tokens
  // Windows in one epoch of the sampler: the first min(needed, available) of the split.
  int64_t epochWindows() const;
  // Passes over those windows the run makes: ceil(needed / epoch windows); 1 when nothing
  // repeats, 0 when the split holds no window at all.
  int64_t epochs() const;
  // Fraction of the windows read that were read before (0 in a single epoch).
  double repeatedFraction() const;
};

// std::invalid_argument for steps, batch_size or seq_len below 1 or negative tokens.
DataBudget dataBudget(int64_t steps, int64_t batch_size, int64_t seq_len, int64_t available_tokens);

// "reads 12.63B tokens (6161408 windows of 2049), data.train holds 9.90B": what a run needs
// against what its split holds.
std::string describeDataBudget(const DataBudget& budget);

// std::nullopt when the run reads its windows in at most `max_epochs` passes over the split;
// else what is wrong and what to do (prepare more data, or allow the passes with
// data.max_epochs), for the caller to put after the run's name.
std::optional<std::string> dataBudgetProblem(const DataBudget& budget, int64_t max_epochs);

}  // namespace deepladder

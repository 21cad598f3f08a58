// Training windows needed vs available (see data_budget.h).
#include "core/data_budget.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <string>

#include "core/terminal_progress.h"

namespace deepladder {

int64_t DataBudget::epochWindows() const {
  return std::min(windows_needed, windows_available);
}

int64_t DataBudget::epochs() const {
  const int64_t per_epoch = epochWindows();
  if (per_epoch <= 0) return 0;
  return (windows_needed + per_epoch - 1) / per_epoch;
}

double DataBudget::repeatedFraction() const {
  if (windows_needed <= 0 || epochWindows() <= 0) return 0.0;
  return static_cast<double>(windows_needed - epochWindows()) / static_cast<double>(windows_needed);
}

DataBudget dataBudget(int64_t steps, int64_t batch_size, int64_t seq_len,
                      int64_t available_tokens) {
  if (steps < 1 || batch_size < 1 || seq_len < 1 || available_tokens < 0)
    throw std::invalid_argument("dataBudget: steps " + std::to_string(steps) + ", batch_size " +
                                std::to_string(batch_size) + ", seq_len " +
                                std::to_string(seq_len) + ", tokens " +
                                std::to_string(available_tokens));
  DataBudget b;
  b.window_tokens = seq_len + 1;
  b.windows_needed = steps * batch_size;
  b.windows_available = available_tokens / b.window_tokens;
  b.tokens_needed = b.windows_needed * b.window_tokens;
  b.tokens_available = available_tokens;
  return b;
}

std::string describeDataBudget(const DataBudget& b) {
  return "reads " + formatCount(static_cast<double>(b.tokens_needed)) + " tokens (" +
         std::to_string(b.windows_needed) + " windows of " + std::to_string(b.window_tokens) +
         "), data.train holds " + formatCount(static_cast<double>(b.tokens_available));
}

std::optional<std::string> dataBudgetProblem(const DataBudget& b, int64_t max_epochs) {
  const int64_t epochs = b.epochs();
  if (epochs >= 1 && epochs <= max_epochs) return std::nullopt;
  if (epochs == 0) return describeDataBudget(b) + ", not one window. Point data.train at more data";
  char repeated[32];
  std::snprintf(repeated, sizeof repeated, "%.0f%%", 100.0 * b.repeatedFraction());
  return describeDataBudget(b) + ": " + std::to_string(epochs) + " passes over it, " + repeated +
         " of its windows read again (data.max_epochs = " + std::to_string(max_epochs) +
         "). Prepare a larger training split (docs/data.md, \"Preparing FineWeb shards\"), or "
         "allow "
         "the repeats with max_epochs = " +
         std::to_string(epochs) + " under [data]";
}

}  // namespace deepladder

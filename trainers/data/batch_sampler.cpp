// Drawing batches: training windows without replacement in a seeded permutation per epoch,
// reproducible from (seed, position), and the fixed, evenly spaced validation windows. The random
// numbers come from splitmix64 and Lemire's unbiased bounded integers, not <random>'s
// distributions, so they are the same with every standard library and on every machine.
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "core/errors.h"
#include "trainers/data/token_data.h"

namespace deepladder::data {
namespace {

// splitmix64 (Steele, Lea, Flood 2014): advances `state` and returns a well-mixed 64-bit value.
uint64_t splitmix64(uint64_t& state) {
  uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// Uniform in [0, bound), bound > 0, without modulo bias (Lemire 2019).
uint64_t uniformBelow(uint64_t& state, uint64_t bound) {
  unsigned __int128 product = static_cast<unsigned __int128>(splitmix64(state)) * bound;
  uint64_t low = static_cast<uint64_t>(product);
  if (low < bound) {
    const uint64_t threshold = (0 - bound) % bound;
    while (low < threshold) {
      product = static_cast<unsigned __int128>(splitmix64(state)) * bound;
      low = static_cast<uint64_t>(product);
    }
  }
  return static_cast<uint64_t>(product >> 64);
}

// Fisher-Yates from the last slot down, drawing from `state`.
void shuffleWith(std::vector<uint32_t>& order, uint64_t state) {
  for (size_t i = 0; i < order.size(); ++i) order[i] = static_cast<uint32_t>(i);
  for (size_t i = order.size(); i > 1; --i) {
    const size_t j = static_cast<size_t>(uniformBelow(state, static_cast<uint64_t>(i)));
    std::swap(order[i - 1], order[j]);
  }
}

void checkShape(const TokenData& data, int64_t rows, int64_t seq_len, const char* who) {
  if (rows < 1 || seq_len < 1) {
    throw std::invalid_argument(std::string(who) + ": rows and seq_len must be at least 1");
  }
  if (data.size() < seq_len + 2) {
    throw UserError(data.describe() + " holds " + std::to_string(data.size()) +
                    " tokens, fewer than seq_len + 2 = " + std::to_string(seq_len + 2) +
                    ". Use more data or a smaller model.seq_len");
  }
}

}  // namespace

std::vector<uint32_t> seededPermutation(size_t n, uint64_t seed) {
  if (n > size_t{0xFFFFFFFF}) throw std::invalid_argument("seededPermutation: n >= 2^32");
  std::vector<uint32_t> order(n);
  uint64_t state = seed;
  shuffleWith(order, splitmix64(state));
  return order;
}

BatchSampler::BatchSampler(const TokenData& data, int64_t rows, int64_t seq_len, uint64_t seed,
                           int64_t budget_windows)
    : data_(data), rows_(rows), seq_len_(seq_len), seed_(seed) {
  if (rows < 1 || seq_len < 1)
    throw std::invalid_argument("BatchSampler: rows and seq_len must be at least 1");
  if (budget_windows < 0)
    throw std::invalid_argument("BatchSampler: the window budget must be 0 (all) or positive");
  const int64_t available = data.size() / (seq_len + 1);
  if (available < 1)
    throw UserError(data.describe() + " holds " + std::to_string(data.size()) +
                    " tokens, fewer than one training window of seq_len + 1 = " +
                    std::to_string(seq_len + 1) + ". Use more data or a smaller model.seq_len");
  epoch_windows_ = budget_windows == 0 ? available : std::min(budget_windows, available);
  if (epoch_windows_ > int64_t{0xFFFFFFFF})
    throw std::invalid_argument("BatchSampler: more than 2^32 - 1 windows in an epoch");
}

void BatchSampler::seek(int64_t position) {
  if (position < 0) throw std::invalid_argument("BatchSampler::seek: negative position");
  position_ = position;
}

void BatchSampler::preparePermutation(int64_t epoch) {
  if (epoch == permutation_epoch_) return;
  // Epoch e's own stream, keyed by (seed, e); Fisher-Yates from the last slot down.
  uint64_t seed_state = seed_;
  uint64_t keyed = splitmix64(seed_state) ^ (static_cast<uint64_t>(epoch) * 0xD1B54A32D192ED03ULL);
  permutation_.resize(static_cast<size_t>(epoch_windows_));
  shuffleWith(permutation_, splitmix64(keyed));
  permutation_epoch_ = epoch;
}

int64_t BatchSampler::windowOfDraw(int64_t draw) {
  preparePermutation(draw / epoch_windows_);
  return permutation_[static_cast<size_t>(draw % epoch_windows_)];
}

Batch BatchSampler::next() {
  const int64_t window = seq_len_ + 1;
  Batch batch;
  batch.rows = rows_;
  batch.seq_len = seq_len_;
  batch.tokens.resize(static_cast<size_t>(rows_ * window));  // (rows, seq_len + 1)
  for (int64_t row = 0; row < rows_; ++row) {
    const int64_t index = windowOfDraw(position_ * rows_ + row);
    data_.copy(index * window, window, batch.tokens.data() + row * window);
  }
  ++position_;
  return batch;
}

std::vector<Batch> fixedValidationBatches(const TokenData& data, int64_t count, int64_t rows,
                                          int64_t seq_len) {
  if (count < 0) throw std::invalid_argument("fixedValidationBatches: count must be >= 0");
  checkShape(data, rows, seq_len, "fixedValidationBatches");
  const int64_t window = seq_len + 1;
  const int64_t last_start = data.size() - window;
  const int64_t total = count * rows;
  // Window k of `total` starts at k * last_start / (total - 1): the first at 0, the last at the
  // end. Batch b takes windows b, b + count, b + 2 count, ... so each batch spans the split.
  std::vector<Batch> batches(static_cast<size_t>(count));
  for (int64_t b = 0; b < count; ++b) {
    Batch& batch = batches[static_cast<size_t>(b)];
    batch.rows = rows;
    batch.seq_len = seq_len;
    batch.tokens.resize(static_cast<size_t>(rows * window));  // (rows, seq_len + 1)
    for (int64_t row = 0; row < rows; ++row) {
      const int64_t k = row * count + b;
      const int64_t start =
          total <= 1 ? 0
                     : static_cast<int64_t>(static_cast<__int128>(k) * last_start / (total - 1));
      data.copy(start, window, batch.tokens.data() + row * window);
    }
  }
  return batches;
}

std::vector<Batch> contiguousValidationBatches(const TokenData& data, int64_t max_tokens,
                                               int64_t rows, int64_t seq_len) {
  checkShape(data, rows, seq_len, "contiguousValidationBatches");
  const int64_t window = seq_len + 1;
  const int64_t windows = std::min(max_tokens, data.size()) / window;
  if (windows == 0)  // a validation loss over no tokens would read as 0
    throw UserError("data.val_tokens: " + std::to_string(std::min(max_tokens, data.size())) +
                    " validation tokens hold no window of seq_len + 1 = " + std::to_string(window) +
                    " tokens. Raise val_tokens (or use more data)");
  std::vector<Batch> batches;
  for (int64_t first = 0; first < windows; first += rows) {
    Batch batch;
    batch.rows = std::min(rows, windows - first);
    batch.seq_len = seq_len;
    batch.tokens.resize(static_cast<size_t>(batch.rows * window));  // (rows, seq_len + 1)
    for (int64_t row = 0; row < batch.rows; ++row)
      data.copy((first + row) * window, window, batch.tokens.data() + row * window);
    batches.push_back(std::move(batch));
  }
  return batches;
}

std::vector<Batch> validationBatches(const DataConfig& config, const TokenData& data,
                                     int64_t eval_batches, int64_t rows, int64_t seq_len) {
  if (config.kind == DataKind::shards)
    return contiguousValidationBatches(data, config.val_tokens, rows, seq_len);
  return fixedValidationBatches(data, eval_batches, rows, seq_len);
}

}  // namespace deepladder::data

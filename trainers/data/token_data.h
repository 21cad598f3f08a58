// Token data for language-model training, without LibTorch: where tokens come from (the built-in
// corpus, a byte-level text file, llm.c / modded-nanogpt .bin shards) and how batches are drawn
// from them reproducibly. The training loop turns a Batch into tensors.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/run_config.h"

namespace deepladder::data {

enum class Split { kTrain, kValidation };

// A read-only sequence of token ids of one split.
class TokenData {
 public:
  virtual ~TokenData() = default;
  // Number of tokens.
  virtual int64_t size() const = 0;
  // Writes tokens [offset, offset + count) to out; std::out_of_range outside [0, size()).
  virtual void copy(int64_t offset, int64_t count, int32_t* out) const = 0;
  // E.g. "builtin KJV train '/usr/local/share/deepladder/corpus/kjv.txt' (3.93M tokens)".
  virtual std::string describe() const = 0;
  // The largest token id, for vocab checks. Computed on first call (for shards and text files
  // that reads every token once, about as long as reading the files), then cached.
  virtual int64_t maxTokenId() const = 0;
};

// Opens the split named by `config`. Throws UserError naming the file and what to do (missing
// file, bad shard magic/version, truncated shard, too few tokens for one window of seq_len+1).
std::unique_ptr<TokenData> openTokenData(const DataConfig& config, Split split, int64_t seq_len);

// A batch of `rows` windows of seq_len + 1 tokens: inputs are [:, :-1], targets [:, 1:].
struct Batch {
  int64_t rows = 0;
  int64_t seq_len = 0;
  std::vector<int32_t> tokens;  // (rows, seq_len + 1), row-major
};

// Training batches without replacement. The split is cut into non-overlapping windows of
// seq_len + 1 tokens (window i = tokens [i (T+1), (i+1) (T+1)); inputs [:-1], targets [1:]); the
// sampler reads the first W of them (W = min(budget_windows, windows in the split); budget 0: all
// of them), each epoch in its own seeded permutation: draw k (row r of batch p is draw p rows + r)
// is window perm_e[k mod W] of epoch e = k / W, so no window repeats within an epoch and the order
// is a function of (seed, W, k) alone. A run of S steps of B rows passes budget_windows = S B (the
// token budget's prefix, core/data_budget.h): when the split holds that many, the run is one
// epoch over a shuffled prefix, as the growth paper trains. The state a checkpoint must save is
// `position()` (batches drawn); `seek(position)` makes the following batches identical to an
// uninterrupted run's. Permutations are Fisher-Yates shuffles driven by splitmix64 and Lemire's
// bounded integers, so they are the same with every standard library and on every machine.
class BatchSampler {
 public:
  // Throws UserError when the split holds no window; std::invalid_argument for rows or seq_len
  // below 1, a negative budget, or more than 2^32 - 1 windows an epoch.
  BatchSampler(const TokenData& data, int64_t rows, int64_t seq_len, uint64_t seed,
               int64_t budget_windows = 0);
  Batch next();
  int64_t position() const { return position_; }
  void seek(int64_t position);
  int64_t epochWindows() const { return epoch_windows_; }  // W
  // The epoch (0-based) the next batch's first row comes from.
  int64_t epoch() const { return position_ * rows_ / epoch_windows_; }
  // The window index (into the split) of draw k; for tests and diagnostics.
  int64_t windowOfDraw(int64_t draw);

 private:
  void preparePermutation(int64_t epoch);
  const TokenData& data_;
  int64_t rows_, seq_len_;
  uint64_t seed_;
  int64_t epoch_windows_ = 0;
  int64_t position_ = 0;
  int64_t permutation_epoch_ = -1;     // whose permutation `permutation_` holds
  std::vector<uint32_t> permutation_;  // (W) window indices of that epoch
};

// Validation batches: a fixed, deterministic set of `count` batches of `rows` windows spread
// evenly over the split (the same every eval and every run with the same data).
std::vector<Batch> fixedValidationBatches(const TokenData& data, int64_t count, int64_t rows,
                                          int64_t seq_len);

// Validation batches for shards (the growth recipe): the first min(max_tokens, size) tokens cut
// into contiguous, non-overlapping windows of seq_len + 1 tokens (window i covers tokens
// [i (seq_len + 1), (i + 1) (seq_len + 1))), all of them, `rows` windows a batch (the last batch
// may hold fewer rows). A tail shorter than one window is left out.
std::vector<Batch> contiguousValidationBatches(const TokenData& data, int64_t max_tokens,
                                               int64_t rows, int64_t seq_len);

// The validation set of a run: contiguousValidationBatches over data.val_tokens for
// data.kind = "shards", else fixedValidationBatches with `eval_batches` batches.
std::vector<Batch> validationBatches(const DataConfig& config, const TokenData& data,
                                     int64_t eval_batches, int64_t rows, int64_t seq_len);

// Path of a built-in corpus (a text file scripts/setup writes from a Debian package, one passage
// or entry a line); the environment variable DEEPLADDER_CORPUS overrides it.
std::string builtinCorpusPath(BuiltinCorpus corpus);

// The built-in corpus's split rule: lines are grouped in blocks of kBuiltinBlockLines
// consecutive lines; block i is validation when i % kBuiltinValidationEvery ==
// kBuiltinValidationEvery - 1, else train (5% held out, spread through the text).
inline constexpr int64_t kBuiltinBlockLines = 50;
inline constexpr int64_t kBuiltinValidationEvery = 20;
Split builtinSplitOfLine(int64_t line_index);  // line_index counts from 0
// The training split's order: its lines in units of kBuiltinShuffleLines consecutive lines (a
// unit never crosses a held-out block), the units in a fixed permutation seeded with
// kBuiltinShuffleSeed, so any prefix a short run reads samples the whole book, not Genesis.
// The validation split keeps the file's order.
inline constexpr int64_t kBuiltinShuffleLines = 10;
inline constexpr uint64_t kBuiltinShuffleSeed = 20240520;

// 0..n-1 in the Fisher-Yates order of splitmix64 seeded with `seed` (the same on every machine
// and standard library; batch_sampler.cpp).
std::vector<uint32_t> seededPermutation(size_t n, uint64_t seed);

// Token data held in memory (tests, small synthetic corpora); describe() is `description` plus
// the token count.
std::unique_ptr<TokenData> makeInMemoryTokenData(std::vector<int32_t> tokens,
                                                 std::string description);

// Byte-level tokenizer (vocab 256): the token ids are the bytes.
std::vector<int32_t> encodeBytes(const std::string& text);
std::string decodeBytes(const std::vector<int32_t>& tokens);  // std::invalid_argument if not 0..255

// llm.c shard format: 256 x int32 header (magic 20240520, version 1, token count), then uint16
// tokens. Writes one (used by tests and by users converting data).
void writeShard(const std::string& path, const std::vector<uint16_t>& tokens);

}  // namespace deepladder::data

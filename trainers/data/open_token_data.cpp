// openTokenData(): picks the source for data.kind and checks the split holds one window.
#include <cstdio>
#include <stdexcept>

#include "core/errors.h"
#include "trainers/data/token_sources.h"

namespace deepladder::data {

std::string splitKey(Split split) {
  return split == Split::kTrain ? "data.train" : "data.val";
}

std::string formatTokenCount(int64_t count) {
  char text[32];
  if (count >= 1'000'000'000) {
    std::snprintf(text, sizeof(text), "%.2fB", count / 1e9);
  } else if (count >= 1'000'000) {
    std::snprintf(text, sizeof(text), "%.2fM", count / 1e6);
  } else if (count >= 10'000) {
    std::snprintf(text, sizeof(text), "%.1fK", count / 1e3);
  } else {
    std::snprintf(text, sizeof(text), "%lld", static_cast<long long>(count));
  }
  return text;
}

void requireOneWindow(const TokenData& data, int64_t seq_len, const std::string& key) {
  if (data.size() < seq_len + 2) {
    throw UserError(key + ": " + data.describe() + " holds " + std::to_string(data.size()) +
                    " tokens, fewer than seq_len + 2 = " + std::to_string(seq_len + 2) +
                    " needed for one window of seq_len + 1 tokens. Use more data or a smaller "
                    "model.seq_len");
  }
}

std::unique_ptr<TokenData> openTokenData(const DataConfig& config, Split split, int64_t seq_len) {
  if (seq_len < 1) throw std::invalid_argument("openTokenData: seq_len must be at least 1");
  const std::string key = splitKey(split);
  const std::string& path = split == Split::kTrain ? config.train : config.val;
  std::unique_ptr<TokenData> data;
  if (config.kind == DataKind::builtin) {
    data = openBuiltinTokenData(config.corpus, split);
  } else {
    if (path.empty()) {
      throw UserError(
          key + ": missing: data.kind = \"" + enumName(config.kind) + "\" needs " + key +
          (config.kind == DataKind::text ? " (a text file)" : " (a shard file or glob)"));
    }
    data = config.kind == DataKind::text ? openTextTokenData(path, key)
                                         : openShardTokenData(path, key);
  }
  requireOneWindow(*data, seq_len, key);
  return data;
}

}  // namespace deepladder::data

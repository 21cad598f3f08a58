// llm.c / modded-nanogpt token shards: reading (memory-mapped, checked on open) and writing.
//
// Format (llm.c dev/data/data_common.py): a header of 256 little-endian int32, of which
// header[0] = 20240520 (magic), header[1] = 1 (version: uint16 tokens, GPT-2 vocab),
// header[2] = token count; then `count` little-endian uint16 tokens. Nothing follows.
// Several shards of one split are concatenated in sorted path order.
#include <fcntl.h>
#include <glob.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "core/errors.h"
#include "trainers/data/mapped_file.h"
#include "trainers/data/token_sources.h"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "token shards are read in place as little-endian uint16; port the reader for big-endian"
#endif

namespace deepladder::data {
namespace {

constexpr int32_t kShardMagic = 20240520;
constexpr int32_t kShardVersion = 1;
constexpr int64_t kHeaderInts = 256;
constexpr int64_t kHeaderBytes = kHeaderInts * 4;

const char* const kPrepareHint =
    "Prepare shards with llm.c's dev/data scripts (e.g. fineweb.py) or modded-nanogpt's "
    "data/cached_fineweb10B.py, or use data.kind = \"text\" for a plain text file";

int32_t readLittleEndianInt32(const unsigned char* bytes) {
  const uint32_t value = uint32_t(bytes[0]) | uint32_t(bytes[1]) << 8 | uint32_t(bytes[2]) << 16 |
                         uint32_t(bytes[3]) << 24;
  return static_cast<int32_t>(value);
}

// Checks magic, version and size; returns the token count. Throws UserError naming the file.
int64_t checkShard(const MappedFile& file, const std::string& key) {
  const auto fail = [&](const std::string& problem, const std::string& hint = kPrepareHint) {
    throw UserError(locatedMessage(file.path(), 0, key, problem, hint));
  };
  if (file.size() < kHeaderBytes) {
    fail("too short for an llm.c token shard: " + std::to_string(file.size()) +
         " bytes, but the header alone is " + std::to_string(kHeaderBytes) + " bytes");
  }
  const int32_t magic = readLittleEndianInt32(file.data());
  const int32_t version = readLittleEndianInt32(file.data() + 4);
  const int32_t count = readLittleEndianInt32(file.data() + 8);
  if (magic != kShardMagic) {
    fail("bad magic " + std::to_string(magic) + " (expected " + std::to_string(kShardMagic) +
         "): not an llm.c token shard");
  }
  if (version != kShardVersion) {
    std::string problem = "unsupported shard version " + std::to_string(version) + " (expected " +
                          std::to_string(kShardVersion) + ": uint16 tokens, GPT-2 vocab)";
    if (version == 2) problem += "; version 2 holds uint32 (LLaMA-3) tokens, not supported";
    fail(problem);
  }
  if (count < 0) fail("bad header: negative token count " + std::to_string(count));
  const int64_t expected_size = kHeaderBytes + 2 * int64_t{count};
  const int64_t held = (file.size() - kHeaderBytes) / 2;
  if (file.size() < expected_size) {
    fail("truncated: header says " + std::to_string(count) + " tokens but the file holds " +
             std::to_string(held) + " (" + std::to_string(file.size()) + " bytes, expected " +
             std::to_string(expected_size) + ")",
         "Copy or regenerate the shard; an interrupted download or write leaves it short");
  }
  if (file.size() > expected_size) {
    fail("size mismatch: header says " + std::to_string(count) + " tokens but the file holds " +
         std::to_string(file.size() - kHeaderBytes) + " bytes of tokens (" +
         std::to_string(file.size()) + " bytes, expected " + std::to_string(expected_size) + ")");
  }
  return count;
}

bool isGlobPattern(const std::string& text) {
  return text.find_first_of("*?[") != std::string::npos;
}

std::vector<std::string> matchingPaths(const std::string& pattern, const std::string& key) {
  glob_t matches{};
  const int status = glob(pattern.c_str(), 0, nullptr, &matches);
  std::vector<std::string> paths;
  if (status == 0) {
    for (size_t i = 0; i < matches.gl_pathc; ++i) paths.emplace_back(matches.gl_pathv[i]);
  }
  globfree(&matches);
  if (status != 0 && status != GLOB_NOMATCH) {
    throw UserError(locatedMessage(pattern, 0, key, "cannot expand the pattern (glob failed)",
                                   "Check the directory exists and is readable"));
  }
  if (paths.empty()) {
    throw UserError(locatedMessage(
        pattern, 0, key, isGlobPattern(pattern) ? "no files match this pattern" : "file not found",
        "Set " + key + " to a shard file or a glob pattern such as \"data/fineweb_" +
            (key == "data.val" ? std::string("val") : std::string("train")) + "_*.bin\""));
  }
  // Byte order, independent of the locale glob(3) sorts by.
  std::sort(paths.begin(), paths.end());
  return paths;
}

class ShardTokenData : public TokenData {
 public:
  ShardTokenData(const std::string& pattern, const std::string& key) : pattern_(pattern) {
    int64_t total = 0;
    for (const std::string& path : matchingPaths(pattern, key)) {
      MappedFile file = MappedFile::open(path, key);
      const int64_t count = checkShard(file, key);
      starts_.push_back(total);
      tokens_.push_back(reinterpret_cast<const uint16_t*>(file.data() + kHeaderBytes));
      files_.push_back(std::move(file));
      total += count;
    }
    starts_.push_back(total);
  }

  int64_t size() const override { return starts_.back(); }

  void copy(int64_t offset, int64_t count, int32_t* out) const override {
    if (offset < 0 || count < 0 || offset + count > size()) {
      throw std::out_of_range("ShardTokenData::copy: [" + std::to_string(offset) + ", " +
                              std::to_string(offset + count) + ") outside [0, " +
                              std::to_string(size()) + ")");
    }
    // The last shard that starts at or before `offset` (empty shards are skipped over).
    size_t shard = std::upper_bound(starts_.begin(), starts_.end(), offset) - starts_.begin() - 1;
    while (count > 0) {
      const int64_t local = offset - starts_[shard];
      const int64_t take = std::min(count, starts_[shard + 1] - offset);
      const uint16_t* source = tokens_[shard] + local;
      for (int64_t i = 0; i < take; ++i) out[i] = source[i];
      out += take;
      offset += take;
      count -= take;
      ++shard;
    }
  }

  std::string describe() const override {
    const std::string files =
        files_.size() == 1 ? "1 file" : std::to_string(files_.size()) + " files";
    return "llm.c shards '" + pattern_ + "' (" + files + ", " + formatTokenCount(size()) +
           " tokens)";
  }

  int64_t maxTokenId() const override {
    // Lazy: reads every token once, so huge splits pay only when someone asks.
    std::call_once(max_once_, [this] {
      uint16_t largest = 0;
      for (size_t shard = 0; shard < tokens_.size(); ++shard) {
        const uint16_t* source = tokens_[shard];
        const int64_t count = starts_[shard + 1] - starts_[shard];
        for (int64_t i = 0; i < count; ++i) largest = std::max(largest, source[i]);
      }
      max_id_ = largest;
    });
    return max_id_;
  }

 private:
  std::string pattern_;
  std::vector<MappedFile> files_;
  std::vector<const uint16_t*> tokens_;  // each shard's first token, inside its mapping
  std::vector<int64_t> starts_;          // shard i holds tokens [starts_[i], starts_[i+1])
  mutable std::once_flag max_once_;
  mutable int64_t max_id_ = 0;
};

}  // namespace

std::unique_ptr<TokenData> openShardTokenData(const std::string& pattern, const std::string& key) {
  return std::make_unique<ShardTokenData>(pattern, key);
}

void writeShard(const std::string& path, const std::vector<uint16_t>& tokens) {
  if (tokens.size() > static_cast<size_t>(INT32_MAX)) {
    throw UserError(locatedMessage(
        path, 0, "", "too many tokens for one shard (" + std::to_string(tokens.size()) + ")",
        "Split the tokens over several shards"));
  }
  int32_t header[kHeaderInts] = {};
  header[0] = kShardMagic;
  header[1] = kShardVersion;
  header[2] = static_cast<int32_t>(tokens.size());

  // Atomic: write a temporary file next to the target, fsync, then rename over it.
  const std::string temporary = path + ".tmp." + std::to_string(getpid());
  const auto fail = [&](const std::string& what) {
    const int error = errno;
    unlink(temporary.c_str());
    throw UserError(locatedMessage(path, 0, "",
                                   "cannot write shard: " + what + ": " + strerror(error),
                                   "Check the directory exists and is writable"));
  };
  FILE* out = std::fopen(temporary.c_str(), "wb");
  if (out == nullptr) fail("open " + temporary);
  bool ok = std::fwrite(header, sizeof(header), 1, out) == 1;
  if (ok && !tokens.empty()) {
    ok = std::fwrite(tokens.data(), sizeof(uint16_t), tokens.size(), out) == tokens.size();
  }
  ok = ok && std::fflush(out) == 0 && fsync(fileno(out)) == 0;
  ok = (std::fclose(out) == 0) && ok;
  if (!ok) fail("write " + temporary);
  if (std::rename(temporary.c_str(), path.c_str()) != 0) fail("rename " + temporary);
}

}  // namespace deepladder::data

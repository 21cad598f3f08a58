// Mutation operators and dictionaries (see mutator.h).
#include "tests/fuzz/mutator.h"

#include <algorithm>
#include <cstring>

namespace deepladder::fuzz {

namespace {

constexpr size_t kMaxMutantBytes = 1 << 20;

const char* const kInterestingBytes = "\x00\xff\x7f\x80\xc3\"'[]{}.=,\n\r#\\:-+e ";
constexpr int kInterestingByteCount = 23;  // the literal holds a NUL: count, not strlen

const int64_t kInterestingInts[] = {0,        1,          -1,        2,
                                    255,      256,        65535,     65536,
                                    20240520, INT32_MAX,  INT32_MIN, INT32_MAX - 1,
                                    1 << 30,  -(1 << 30), 1024};

std::string repeated(const std::string& unit, int times) {
  std::string out;
  for (int i = 0; i < times; ++i) out += unit;
  return out;
}

}  // namespace

Mutator::Mutator(std::vector<std::string> seeds, std::vector<std::string> dictionary, uint64_t seed)
    : seeds_(std::move(seeds)), dictionary_(std::move(dictionary)), random_(seed) {}

size_t Mutator::position(const std::string& bytes, bool inclusive_end) {
  const size_t limit = bytes.size() + (inclusive_end ? 1 : 0);
  if (limit == 0) return 0;
  return std::uniform_int_distribution<size_t>(0, limit - 1)(random_);
}

std::string Mutator::next() {
  std::string bytes = seeds_[std::uniform_int_distribution<size_t>(0, seeds_.size() - 1)(random_)];
  const int count = std::uniform_int_distribution<int>(1, 4)(random_);
  for (int i = 0; i < count; ++i) mutateOnce(bytes);
  if (bytes.size() > kMaxMutantBytes) bytes.resize(kMaxMutantBytes);
  return bytes;
}

void Mutator::mutateOnce(std::string& bytes) {
  switch (std::uniform_int_distribution<int>(0, 8)(random_)) {
    case 0:  // flip a bit
      if (!bytes.empty()) bytes[position(bytes, false)] ^= char(1 << (random_() % 8));
      break;
    case 1:  // an interesting byte
      if (!bytes.empty())
        bytes[position(bytes, false)] = kInterestingBytes[random_() % kInterestingByteCount];
      break;
    case 2: {  // delete a range
      if (bytes.empty()) break;
      const size_t at = position(bytes, false);
      const size_t length = std::min<size_t>(bytes.size() - at, 1 + random_() % 64);
      bytes.erase(at, length);
      break;
    }
    case 3: {  // duplicate a range
      if (bytes.empty()) break;
      const size_t at = position(bytes, false);
      const size_t length = std::min<size_t>(bytes.size() - at, 1 + random_() % 256);
      bytes.insert(position(bytes, true), bytes.substr(at, length));
      break;
    }
    case 4:  // truncate
      bytes.resize(position(bytes, true));
      break;
    case 5: {  // an interesting 32-bit integer (binary formats: headers, counts, lengths)
      if (bytes.size() < 4) break;
      const int64_t value =
          kInterestingInts[random_() % (sizeof kInterestingInts / sizeof(int64_t))];
      const int32_t v32 = static_cast<int32_t>(value);
      const size_t at = (position(bytes, false) / 4) * 4;
      if (at + 4 <= bytes.size()) std::memcpy(&bytes[at], &v32, 4);
      break;
    }
    case 6: {  // splice in part of another seed
      const std::string& other =
          seeds_[std::uniform_int_distribution<size_t>(0, seeds_.size() - 1)(random_)];
      if (other.empty()) break;
      const size_t from = position(other, false);
      const size_t length = std::min<size_t>(other.size() - from, 1 + random_() % 512);
      bytes.insert(position(bytes, true), other.substr(from, length));
      break;
    }
    default: {  // a dictionary token, inserted or overwriting
      if (dictionary_.empty()) break;
      const std::string& token = dictionary_[random_() % dictionary_.size()];
      const size_t at = position(bytes, true);
      if (random_() % 2 == 0 || at + token.size() > bytes.size())
        bytes.insert(at, token);
      else
        bytes.replace(at, token.size(), token);
      break;
    }
  }
}

std::vector<std::string> dictionaryFor(const std::string& parser) {
  const std::vector<std::string> numbers = {"0",
                                            "-1",
                                            "1e300",
                                            "-1e300",
                                            "nan",
                                            "inf",
                                            "-inf",
                                            "1e-320",
                                            "9223372036854775807",
                                            "9223372036854775808",
                                            "-9223372036854775808",
                                            "18446744073709551616",
                                            "0x7fffffff",
                                            "2e9",
                                            "4096",
                                            "1e6",
                                            "3.0",
                                            "\xff\xfe",
                                            "\xc3\x28",
                                            "\xed\xa0\x80",
                                            "\xef\xbb\xbf"};
  std::vector<std::string> out = numbers;
  auto add = [&](std::initializer_list<std::string> tokens) {
    out.insert(out.end(), tokens.begin(), tokens.end());
  };
  if (parser == "ladder_toml" || parser == "run_toml") {
    add({"[",
         "]",
         "[[",
         "]]",
         "{",
         "}",
         ".",
         "=",
         "\"",
         "'",
         "\"\"\"",
         "'''",
         "#",
         "\n",
         ",",
         "true",
         "false",
         "1979-05-27T07:32:00Z",
         "\\u0000",
         "\\",
         "a.b.c = 1\n",
         "[arms.x]\n",
         "[[sizes.list]]\nname = \"z\"\n",
         "seeds = [1, 1]\n",
         "name = \"../x\"\n",
         "[resources]\nthreads_per_slot = 4096\n",
         "depths = [1024]\n",
         "width_per_depth = 16384\n",
         "head_dim = 2\n",
         "tokens_per_param = 1e9\n",
         repeated("a.", 200) + "a = 1\n",
         repeated("[", 100),
         repeated("{x=", 100),
         "d_model",
         "n_head",
         "n_layer",
         "seq_len",
         "batch_size",
         "steps",
         "vocab_size",
         "head_dim",
         "grow_passes",
         "passes",
         "ranks",
         "eval_batches",
         "threads",
         "flops",
         "rule",
         "preset",
         "untied_grow",
         "loop_grow",
         "recipe",
         "growth-paper",
         "squaring",
         "task",
         "tier",
         "kind",
         "shards",
         "val_tokens",
         "eval_passes",
         "1..1000000"});
  } else if (parser == "results_csv") {
    add({",", "\n", "\r\n", "#", "arm", "compute_flops", "val_loss", "params", "tokens", "depth",
         "loss", ",,", "vanilla", "1e999", "-0", " ", "\t", "\"", "\xef\xbb\xbf"});
  } else if (parser == "protocol_line") {
    add({"{",
         "}",
         "[",
         "]",
         ":",
         ",",
         "\"",
         "\"type\"",
         "\"hello\"",
         "\"metric\"",
         "\"eval\"",
         "\"lens\"",
         "\"checkpoint\"",
         "\"event\"",
         "\"done\"",
         "\"error\"",
         "\"status\"",
         "\"exploded\"",
         "\"values\"",
         "\"step\"",
         "\"kl\"",
         "null",
         "true",
         "\"nan\"",
         "\"inf\"",
         "\\u0000",
         "\\ud800",
         repeated("[", 1000),
         "1e400",
         "-0.0"});
  } else if (parser == "shard_header" || parser == "checkpoint") {
    add({std::string("\x00\x00\x00\x00", 4), "\xff\xff\xff\xff", "\xff\xff\xff\x7f",
         std::string("\x00\x00\x00\x80", 4), "PK\x03\x04", "PK\x01\x02", "PK\x05\x06", "PK\x06\x06",
         "data.pkl", "state.step", "model.", "optim.", "version", "constants.pkl"});
  }
  return out;
}

}  // namespace deepladder::fuzz

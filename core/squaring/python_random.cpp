// Python's random.Random, call for call (see python_random.h).
#include "core/squaring/python_random.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>
#include <unordered_set>

#include "core/errors.h"

namespace deepladder::squaring {

namespace {

constexpr int kN = 624;
constexpr int kM = 397;
constexpr uint32_t kMatrixA = 0x9908b0dfU;
constexpr uint32_t kUpperMask = 0x80000000U;
constexpr uint32_t kLowerMask = 0x7fffffffU;

// Drops high zero words (CPython passes the minimal number of words), keeping at least one.
std::vector<uint32_t> minimalKey(std::vector<uint32_t> key) {
  while (key.size() > 1 && key.back() == 0) key.pop_back();
  if (key.empty()) key.push_back(0);
  return key;
}

}  // namespace

// --- seeding ----------------------------------------------------------------------------------

PythonRandom::PythonRandom(uint64_t seed)
    : PythonRandom(
          std::vector<uint32_t>{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)}) {}

PythonRandom::PythonRandom(const std::vector<uint32_t>& key) {
  initByArray(minimalKey(key));
}

std::vector<uint32_t> PythonRandom::seedWords(const std::string& decimal) {
  size_t start = 0;
  if (!decimal.empty() && (decimal[0] == '-' || decimal[0] == '+')) start = 1;
  if (start == decimal.size())
    throw UserError("seed \"" + decimal + "\": not an integer. Use decimal digits, e.g. 45");
  std::vector<uint32_t> words{0};  // little-endian base 2^32
  for (size_t i = start; i < decimal.size(); ++i) {
    const char c = decimal[i];
    if (c < '0' || c > '9')
      throw UserError("seed \"" + decimal + "\": not an integer. Use decimal digits, e.g. 45");
    uint64_t carry = static_cast<uint64_t>(c - '0');
    for (auto& w : words) {
      const uint64_t v = static_cast<uint64_t>(w) * 10 + carry;
      w = static_cast<uint32_t>(v);
      carry = v >> 32;
    }
    if (carry) words.push_back(static_cast<uint32_t>(carry));
  }
  return minimalKey(words);
}

void PythonRandom::initGenrand(uint32_t s) {
  mt_[0] = s;
  for (int i = 1; i < kN; ++i)
    mt_[i] = 1812433253U * (mt_[i - 1] ^ (mt_[i - 1] >> 30)) + static_cast<uint32_t>(i);
  index_ = kN;
}

void PythonRandom::initByArray(const std::vector<uint32_t>& key) {
  initGenrand(19650218U);
  const size_t key_length = key.size();
  size_t i = 1, j = 0;
  for (size_t k = std::max<size_t>(kN, key_length); k; --k) {
    mt_[i] = (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1664525U)) + key[j] +
             static_cast<uint32_t>(j);
    ++i;
    ++j;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
    if (j >= key_length) j = 0;
  }
  for (size_t k = kN - 1; k; --k) {
    mt_[i] =
        (mt_[i] ^ ((mt_[i - 1] ^ (mt_[i - 1] >> 30)) * 1566083941U)) - static_cast<uint32_t>(i);
    ++i;
    if (i >= kN) {
      mt_[0] = mt_[kN - 1];
      i = 1;
    }
  }
  mt_[0] = 0x80000000U;  // non-zero initial array
}

// --- raw draws --------------------------------------------------------------------------------

uint32_t PythonRandom::genrandUint32() {
  if (index_ >= kN) {  // regenerate all kN words at once
    int kk = 0;
    uint32_t y;
    for (; kk < kN - kM; ++kk) {
      y = (mt_[kk] & kUpperMask) | (mt_[kk + 1] & kLowerMask);
      mt_[kk] = mt_[kk + kM] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    for (; kk < kN - 1; ++kk) {
      y = (mt_[kk] & kUpperMask) | (mt_[kk + 1] & kLowerMask);
      mt_[kk] = mt_[kk + (kM - kN)] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    }
    y = (mt_[kN - 1] & kUpperMask) | (mt_[0] & kLowerMask);
    mt_[kN - 1] = mt_[kM - 1] ^ (y >> 1) ^ ((y & 1U) ? kMatrixA : 0U);
    index_ = 0;
  }
  uint32_t y = mt_[index_++];
  y ^= (y >> 11);
  y ^= (y << 7) & 0x9d2c5680U;
  y ^= (y << 15) & 0xefc60000U;
  y ^= (y >> 18);
  return y;
}

double PythonRandom::random() {
  const uint32_t a = genrandUint32() >> 5, b = genrandUint32() >> 6;
  return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

uint64_t PythonRandom::getrandbits(int k) {
  if (k < 0 || k > 64) throw std::invalid_argument("getrandbits: k must lie in [0, 64]");
  if (k == 0) return 0;
  if (k <= 32) return genrandUint32() >> (32 - k);
  const uint64_t low = genrandUint32();               // least significant word first
  const uint64_t high = genrandUint32() >> (64 - k);  // the last word keeps its top bits
  return low | (high << 32);
}

uint64_t PythonRandom::randbelow(uint64_t n) {
  if (n == 0) throw std::invalid_argument("randbelow: n must be at least 1");
  const int k = 64 - __builtin_clzll(n);  // n.bit_length()
  uint64_t r = getrandbits(k);
  while (r >= n) r = getrandbits(k);
  return r;
}

int64_t PythonRandom::randrange(int64_t start, int64_t stop) {
  if (stop <= start)
    throw std::invalid_argument("randrange: empty range [" + std::to_string(start) + ", " +
                                std::to_string(stop) + ")");
  const uint64_t width = static_cast<uint64_t>(stop) - static_cast<uint64_t>(start);
  return static_cast<int64_t>(static_cast<uint64_t>(start) + randbelow(width));
}

// --- sequences --------------------------------------------------------------------------------

size_t pythonSampleSetSize(size_t k) {
  size_t setsize = 21;
  if (k > 5) {
    // math.log(k * 3, 4) is log(3k) / log(4) in doubles; 4 ** ceil(...) is exact.
    const double e = std::ceil(std::log(static_cast<double>(k * 3)) / std::log(4.0));
    setsize += size_t{1} << (2 * static_cast<int>(e));
  }
  return setsize;
}

std::vector<size_t> PythonRandom::sampleIndices(size_t n, size_t k) {
  if (k > n) throw std::invalid_argument("sample: larger than the population");
  std::vector<size_t> result(k);
  if (n <= pythonSampleSetSize(k)) {
    std::vector<size_t> pool(n);
    std::iota(pool.begin(), pool.end(), size_t{0});
    for (size_t i = 0; i < k; ++i) {
      const size_t j = randbelow(n - i);
      result[i] = pool[j];
      pool[j] = pool[n - i - 1];  // the unselected tail element fills the vacancy
    }
  } else {
    std::unordered_set<size_t> selected;
    selected.reserve(k * 2);
    for (size_t i = 0; i < k; ++i) {
      size_t j = randbelow(n);
      while (selected.count(j)) j = randbelow(n);
      selected.insert(j);
      result[i] = j;
    }
  }
  return result;
}

size_t PythonRandom::weightedChoiceIndex(const std::vector<uint64_t>& cumulative_weights) {
  if (cumulative_weights.empty()) throw std::invalid_argument("choices: empty population");
  const double total = static_cast<double>(cumulative_weights.back());
  if (total <= 0.0) throw std::invalid_argument("choices: total of weights must be positive");
  // Python compares the float with each int exactly; long double holds both exactly on x86-64.
  const long double x = static_cast<long double>(random() * total);
  size_t lo = 0, hi = cumulative_weights.size() - 1;
  while (lo < hi) {  // bisect_right(cum, x, 0, n - 1)
    const size_t mid = (lo + hi) / 2;
    if (x < static_cast<long double>(cumulative_weights[mid]))
      hi = mid;
    else
      lo = mid + 1;
  }
  return lo;
}

}  // namespace deepladder::squaring

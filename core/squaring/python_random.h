// Python's `random.Random` in C++, call for call: the same seed gives the same draws as CPython
// 3.11 (Debian 12's python3), so the benchmark's generator can be replayed record for record.
//   - MT19937 (Matsumoto and Nishimura) seeded like random.seed(int): init_by_array over the
//     32-bit words of |seed|, least significant first (one word 0 for seed 0);
//   - random(): 53 bits from two words, (a >> 5) * 2^26 + (b >> 6), over 2^53;
//   - getrandbits(k): 32-bit words, the last one shifted right, least significant word first;
//   - randbelow(n): _randbelow_with_getrandbits, getrandbits(bit_length(n)) until below n;
//   - randrange / randint / shuffle / sample (its pool and set branches) / choices (plain:
//     floor(random() n); weighted: bisect_right over the cumulative weights of random() total) /
//     uniform, each as random.py of CPython 3.11 writes it.
// Integers are limited to 64 bits (getrandbits(k) for k <= 64); nothing else of Python's
// arbitrary-size integers is needed by the generator. tests/core/python_random_vectors.py
// regenerates the test vectors with Debian's python3.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace deepladder::squaring {

class PythonRandom {
 public:
  // random.Random(seed) for a non-negative seed.
  explicit PythonRandom(uint64_t seed);
  // random.Random(n) for any integer n given as the 32-bit words of |n|, least significant first
  // (what CPython feeds init_by_array); an empty key is seed 0.
  explicit PythonRandom(const std::vector<uint32_t>& key);
  // The words of |n| for a decimal integer of any size ("-12", "2535301200456458802993406410753").
  // Throws UserError for text that is not an integer.
  static std::vector<uint32_t> seedWords(const std::string& decimal);

  uint32_t genrandUint32();        // the next MT19937 output
  double random();                 // [0, 1), 53 bits
  uint64_t getrandbits(int k);     // 0 <= k <= 64
  uint64_t randbelow(uint64_t n);  // [0, n), n >= 1 (throws std::invalid_argument for 0)
  int64_t randrange(int64_t start, int64_t stop);  // [start, stop); ValueError analogue if empty
  int64_t randint(int64_t a, int64_t b) { return randrange(a, b + 1); }
  double uniform(double a, double b) { return a + (b - a) * random(); }

  template <typename T>
  void shuffle(std::vector<T>& x) {
    for (size_t i = x.size(); i-- > 1;) std::swap(x[i], x[randbelow(i + 1)]);
  }

  // k distinct positions of a population of n, in selection order (random.sample(range(n), k)).
  std::vector<size_t> sampleIndices(size_t n, size_t k);
  template <typename T>
  std::vector<T> sample(const std::vector<T>& population, size_t k) {
    std::vector<T> out;
    out.reserve(k);
    for (size_t i : sampleIndices(population.size(), k)) out.push_back(population[i]);
    return out;
  }

  // One draw of random.choices(population of n) (k = 1).
  size_t choiceIndex(size_t n) {
    return static_cast<size_t>(std::floor(random() * static_cast<double>(n)));
  }
  // One draw of random.choices(population, weights=...) given the cumulative integer weights
  // (k = 1): bisect_right(cum, random() * total, 0, n - 1).
  size_t weightedChoiceIndex(const std::vector<uint64_t>& cumulative_weights);

 private:
  void initGenrand(uint32_t s);
  void initByArray(const std::vector<uint32_t>& key);
  uint32_t mt_[624];
  int index_ = 625;
};

// The table size test random.sample uses to pick its branch: 21, plus 4^ceil(log4(3k)) for k > 5.
// A population of n <= this size takes the pool branch, a larger one the set branch.
size_t pythonSampleSetSize(size_t k);

}  // namespace deepladder::squaring

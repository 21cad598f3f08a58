// Tests of the squaring task's data side (core/squaring): primality, semiprime sampling, the
// shortcut label against direct squaring, token layouts, tier presets, dataset uniqueness and
// split determinism, JSON-lines files, exact match, accuracy maps, chance levels and Max T.
// Fixtures marked "python" were computed with Python 3's pow(x, 2**T, N) and sympy.isprime.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

#include "core/errors.h"
#include "core/squaring/dataset.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/evaluation.h"
#include "core/squaring/modular_arithmetic.h"
#include "core/squaring/semiprime.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"

namespace sq = deepladder::squaring;
using deepladder::UserError;

namespace {

std::vector<bool> sieve(uint64_t limit) {
  std::vector<bool> prime(limit, true);
  prime[0] = prime[1] = false;
  for (uint64_t i = 2; i * i < limit; ++i)
    if (prime[i])
      for (uint64_t m = i * i; m < limit; m += i) prime[m] = false;
  return prime;
}

// Distinct (N, x) prompts of `bits` bits by brute force: every N of that size that factors as
// p (floor(b/2) bits) times q (ceil(b/2) bits), p != q prime; phi(N) units each.
uint64_t bruteForcePromptCount(int bits) {
  const auto prime = sieve(uint64_t{1} << bits);
  const int pb = bits / 2, qb = bits - pb;
  uint64_t total = 0;
  for (uint64_t n = uint64_t{1} << (bits - 1); n < (uint64_t{1} << bits); ++n) {
    for (uint64_t p = 3; p * p < n; p += 2) {
      if (n % p != 0) continue;
      const uint64_t q = n / p;
      if (prime[p] && prime[q] && p != q &&
          ((sq::bitLength(p) == pb && sq::bitLength(q) == qb) ||
           (sq::bitLength(q) == pb && sq::bitLength(p) == qb)))
        total += (p - 1) * (q - 1);
      break;  // the smallest factor decides: a semiprime has exactly one split
    }
  }
  return total;
}

std::set<std::tuple<uint64_t, uint64_t, int64_t>> promptSet(const std::vector<sq::Example>& v) {
  std::set<std::tuple<uint64_t, uint64_t, int64_t>> out;
  for (const auto& e : v) out.insert({e.n, e.x, e.t});
  return out;
}

}  // namespace

// --- number theory --------------------------------------------------------------------------

TEST(SquaringPrimality, MatchesSieveBelow100000) {
  const auto prime = sieve(100000);
  for (uint64_t n = 0; n < 100000; ++n) {
    ASSERT_EQ(sq::isPrime(n), prime[n]) << n;
    ASSERT_EQ(sq::isPrimeFast(n), prime[n]) << n;
  }
}

TEST(SquaringPrimality, FastPathAgreesWithTwelveBaseMillerRabin) {
  sq::Rng rng(11);
  for (int i = 0; i < 200000; ++i) {
    const uint64_t n = rng.below(uint64_t{1} << 23);
    ASSERT_EQ(sq::isPrimeFast(n), sq::isPrime(n)) << n;
  }
  for (int i = 0; i < 200000; ++i) {  // the four-base range below 3,215,031,751
    const uint64_t n = rng.below(3215031751ULL) | 1;
    ASSERT_EQ(sq::isPrimeFast(n), sq::isPrime(n)) << n;
  }
  for (uint64_t n = 3215031751ULL - 2000; n < 3215031751ULL + 2000; ++n)
    ASSERT_EQ(sq::isPrimeFast(n), sq::isPrime(n)) << n;
  EXPECT_FALSE(sq::isPrimeFast(3215031751ULL));  // fools bases 2, 3, 5, 7 only
}

TEST(SquaringPrimality, Known64BitPrimesAndPseudoprimes) {
  EXPECT_TRUE(sq::isPrime((uint64_t{1} << 61) - 1));   // Mersenne prime M61
  EXPECT_TRUE(sq::isPrime(18446744073709551557ULL));   // largest prime below 2^64
  EXPECT_TRUE(sq::isPrime(2147483647ULL));             // M31
  EXPECT_TRUE(sq::isPrime(4294967311ULL));             // smallest prime above 2^32
  EXPECT_FALSE(sq::isPrime(18446744073709551615ULL));  // 2^64 - 1
  EXPECT_FALSE(sq::isPrime((uint64_t{1} << 61) - 3));  // (python: sympy says composite)
  for (uint64_t carmichael : {561ULL, 1105ULL, 1729ULL, 2465ULL, 2821ULL, 6601ULL, 8911ULL,
                              41041ULL, 825265ULL, 321197185ULL, 5394826801ULL})
    EXPECT_FALSE(sq::isPrime(carmichael)) << carmichael;
  // Strong pseudoprimes to many small bases (OEIS A014233): fooled by fewer bases, not by 12.
  EXPECT_FALSE(sq::isPrime(3215031751ULL));           // spsp to 2, 3, 5, 7
  EXPECT_FALSE(sq::isPrime(3825123056546413051ULL));  // spsp to 2 .. 23
  EXPECT_FALSE(sq::isPrime(4294967297ULL));           // F5 = 641 * 6700417
}

TEST(SquaringArithmetic, MontgomeryPowMatchesGenericOnFull64BitOddModuli) {
  sq::Rng rng(5);
  for (int i = 0; i < 20000; ++i) {
    const uint64_t m = rng.next() | 1;
    const uint64_t base = rng.next(), exponent = rng.next() >> (rng.next() % 64);
    ASSERT_EQ(sq::powMod(base, exponent, m), sq::powModGeneric(base, exponent, m)) << m;
  }
  EXPECT_EQ(sq::powMod(5, 0, 7), 1u);
  EXPECT_EQ(sq::powMod(5, 3, 1), 0u);
  EXPECT_EQ(sq::gcd(0, 12), 12u);
  EXPECT_EQ(sq::gcd(84, 36), 12u);
}

// --- semiprimes and labels ------------------------------------------------------------------

TEST(SquaringSemiprime, SampledModuliHaveExactBitLengthsAndDistinctPrimeFactors) {
  sq::Rng rng(3);
  for (int bits = sq::kMinModulusBits; bits <= sq::kMaxModulusBits; ++bits) {
    for (int i = 0; i < 300; ++i) {
      const sq::Semiprime s = sq::sampleSemiprime(bits, rng);
      ASSERT_EQ(sq::bitLength(s.n), bits);
      ASSERT_EQ(s.bits, bits);
      ASSERT_EQ(sq::bitLength(s.p), bits / 2);
      ASSERT_EQ(sq::bitLength(s.q), bits - bits / 2);
      ASSERT_NE(s.p, s.q);
      ASSERT_TRUE(sq::isPrime(s.p) && sq::isPrime(s.q));
      ASSERT_EQ(s.n, s.p * s.q);
      ASSERT_EQ(s.phi, (s.p - 1) * (s.q - 1));
    }
  }
}

TEST(SquaringSemiprime, SampledUnitsAreCoprimeAndInRange) {
  sq::Rng rng(4);
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  std::set<uint64_t> seen;
  for (int i = 0; i < 20000; ++i) {
    const uint64_t x = sq::sampleUnit(s, rng);
    ASSERT_GE(x, 1u);
    ASSERT_LT(x, s.n);
    ASSERT_EQ(sq::gcd(x, s.n), 1u);
    seen.insert(x);
  }
  EXPECT_EQ(seen.size(), 288u);  // every unit drawn (uniform over 288)
}

TEST(SquaringLabel, ShortcutMatchesDirectSquaringOnRandomCases) {
  sq::Rng rng(17);
  int cases = 0;
  for (int bits = sq::kMinModulusBits; bits <= sq::kMaxModulusBits; ++bits) {
    for (int i = 0; i < 100; ++i, ++cases) {
      const sq::Semiprime s = sq::sampleSemiprime(bits, rng);
      const uint64_t x = sq::sampleUnit(s, rng);
      const int64_t t = static_cast<int64_t>(rng.below(200));
      ASSERT_EQ(sq::squaringAnswer(s, x, t), sq::directSquaring(s.n, x, t))
          << "N=" << s.n << " x=" << x << " T=" << t;
    }
  }
  EXPECT_EQ(cases, 5800);
  // T = 0 is x itself, T = 1 is x^2 mod N.
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  EXPECT_EQ(sq::squaringAnswer(s, 5, 0), 5u);
  EXPECT_EQ(sq::squaringAnswer(s, 5, 1), 25u);
  // T beyond 64 goes through the generic power of 2 mod phi.
  EXPECT_EQ(sq::squaringAnswer(s, 7, 1000), sq::directSquaring(s.n, 7, 1000));
}

TEST(SquaringLabel, MatchesPythonFixtures) {
  // python: pow(x, 2**T, N)
  const sq::Semiprime big = sq::semiprimeFromFactors(2147483647ULL, 2147483629ULL);
  EXPECT_EQ(big.n, 4611685975477714963ULL);
  EXPECT_EQ(big.bits, 62);
  EXPECT_EQ(sq::squaringAnswer(big, 123456789, 64), 3576243654570752098ULL);
  EXPECT_EQ(sq::squaringAnswer(big, 987654321987ULL, 37), 49093652209433713ULL);
  EXPECT_EQ(sq::squaringAnswer(sq::semiprimeFromFactors(101, 103), 1234, 16), 723u);
  EXPECT_EQ(sq::squaringAnswer(sq::semiprimeFromFactors(29, 31), 10, 12), 692u);
  EXPECT_EQ(sq::squaringAnswer(sq::semiprimeFromFactors(17, 19), 2, 3), 256u);
}

TEST(SquaringLabel, N323AnswersTakeNineValuesWithPeriodSixFromT4) {
  // (Z/323)* = C16 x C18: four squarings kill C16, one kills C2, and squaring permutes C9 with
  // order 6 (2 has order 6 mod 9). So for T >= 4 there are 9 answers, periodic with period 6.
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  for (int64_t t = 4; t <= 64; ++t) {
    const auto examples = sq::allUnitExamples(s, t);
    ASSERT_EQ(examples.size(), 288u);
    std::set<uint64_t> answers;
    for (const auto& e : examples) {
      answers.insert(e.z);
      ASSERT_EQ(e.z, sq::squaringAnswer(s, e.x, t + 6)) << "x=" << e.x << " T=" << t;
    }
    ASSERT_EQ(answers.size(), 9u) << "T=" << t;
  }
  std::set<uint64_t> t3;
  for (const auto& e : sq::allUnitExamples(s, 3)) t3.insert(e.z);
  EXPECT_GT(t3.size(), 9u);  // not yet collapsed at T = 3
}

TEST(SquaringBadInput, ClearErrors) {
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  EXPECT_THROW(sq::squaringAnswer(s, 2, -1), UserError);
  EXPECT_THROW(sq::allUnitExamples(s, -3), UserError);
  sq::Rng rng(1);
  EXPECT_THROW(sq::sampleUniqueExamples(10, -1, 5, rng), UserError);
  EXPECT_THROW(sq::semiprimeFromFactors(15, 19), UserError);  // 15 is not prime
  EXPECT_THROW(sq::semiprimeFromFactors(17, 1), UserError);
  EXPECT_THROW(sq::semiprimeFromFactors(17, 17), UserError);                        // p == q
  EXPECT_THROW(sq::semiprimeFromFactors(2, 17), UserError);                         // even N
  EXPECT_THROW(sq::semiprimeFromFactors(4294967311ULL, 2147483647ULL), UserError);  // 64 bits
  EXPECT_THROW(sq::sampleSemiprime(63, rng), UserError);
  EXPECT_THROW(sq::sampleSemiprime(4, rng), UserError);
  EXPECT_THROW(sq::ExampleGenerator(70, 1), UserError);
  try {
    sq::semiprimeFromFactors(17, 17);
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("distinct"), std::string::npos) << e.what();
  }
  try {
    sq::tierPreset("E9");
    FAIL() << "unknown tier accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("E1, E2, E3, E4, E5, M1, M2, M3, M4, M5"),
              std::string::npos)
        << e.what();
  }
  EXPECT_THROW(sq::parseLayout("bidirectional"), UserError);
}

// --- tokens and layouts ---------------------------------------------------------------------

TEST(SquaringTokens, HandWrittenPromptAndAnswerForN323X2T3) {
  // N 3 2 3 X 2 T 3 -> tokens N=2, digits d -> 7 + d; z = 2^8 mod 323 = 256.
  EXPECT_EQ(sq::promptTokens(323, 2, 3), (std::vector<int32_t>{2, 10, 9, 10, 3, 9, 4, 10}));
  EXPECT_EQ(sq::answerTokens(256), (std::vector<int32_t>{9, 12, 13}));
  EXPECT_EQ(sq::causalTokens(323, 2, 3, 256),
            (std::vector<int32_t>{1, 2, 10, 9, 10, 3, 9, 4, 10, 5, 9, 12, 13, 6}));
  // Multi-digit T and zeros: N=10403 x=1000 T=16.
  EXPECT_EQ(sq::promptTokens(10403, 1000, 16),
            (std::vector<int32_t>{2, 8, 7, 11, 7, 10, 3, 8, 7, 7, 7, 4, 8, 13}));
  EXPECT_EQ(sq::answerTokens(0), (std::vector<int32_t>{7}));
  EXPECT_EQ(sq::answerValue({9, 12, 13}), 256);
  EXPECT_EQ(sq::answerValue({9, 5}), -1);
  EXPECT_EQ(sq::answerValue({}), -1);
  EXPECT_EQ(sq::kVocabSize, 17);
}

TEST(SquaringTokens, SeparateLayoutRightAlignsPromptAndPutsAnswerLast) {
  const sq::Example e{323, 2, 256, 3};
  const auto batch = sq::makeSeparateBatch({e, sq::Example{899, 10, 692, 12}}, 11);
  ASSERT_EQ(batch.rows, 2);
  const int32_t I = sq::kIgnoreTarget;
  EXPECT_EQ(std::vector<int32_t>(batch.inputs.begin(), batch.inputs.begin() + 11),
            (std::vector<int32_t>{0, 0, 0, 2, 10, 9, 10, 3, 9, 4, 10}));
  EXPECT_EQ(std::vector<uint8_t>(batch.input_mask.begin(), batch.input_mask.begin() + 11),
            (std::vector<uint8_t>{0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1}));
  EXPECT_EQ(std::vector<int32_t>(batch.targets.begin(), batch.targets.begin() + 11),
            (std::vector<int32_t>{I, I, I, I, I, I, I, I, 9, 12, 13}));
  EXPECT_EQ(std::vector<uint8_t>(batch.target_mask.begin(), batch.target_mask.begin() + 11),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1}));
  // Row 2: N 8 9 9 X 1 0 T 1 2 -> 10 tokens after one PAD; answer 692 -> 13 16 9.
  EXPECT_EQ(std::vector<int32_t>(batch.inputs.begin() + 11, batch.inputs.end()),
            (std::vector<int32_t>{0, 2, 15, 16, 16, 3, 8, 7, 4, 8, 9}));
  EXPECT_EQ(std::vector<int32_t>(batch.targets.begin() + 11, batch.targets.end()),
            (std::vector<int32_t>{I, I, I, I, I, I, I, I, 13, 16, 9}));
  EXPECT_THROW(sq::makeSeparateBatch({e}, 7), UserError);  // prompt of 8 does not fit
}

TEST(SquaringTokens, CausalLayoutShiftsByOneAndMasksAnswerAndEos) {
  const sq::Example e{323, 2, 256, 3};
  const int32_t I = sq::kIgnoreTarget;
  const auto batch = sq::makeCausalBatch({e}, 15);
  // BOS N 3 2 3 X 2 T 3 ANS 2 5 6 EOS: inputs drop the last token, targets the first.
  EXPECT_EQ(batch.inputs, (std::vector<int32_t>{1, 2, 10, 9, 10, 3, 9, 4, 10, 5, 9, 12, 13, 0, 0}));
  EXPECT_EQ(batch.targets, (std::vector<int32_t>{I, I, I, I, I, I, I, I, I, 9, 12, 13, 6, I, I}));
  EXPECT_EQ(batch.loss_mask, (std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0}));
  EXPECT_NO_THROW(sq::makeCausalBatch({e}, 13));  // 14 tokens need seq_len 13
  EXPECT_THROW(sq::makeCausalBatch({e}, 12), UserError);
}

TEST(SquaringTokens, LengthBoundsCoverTheTiers) {
  for (const auto& tier : sq::tierPresets()) {
    const int bound = sq::promptLengthBound(tier.maxBits(), tier.maxT());
    const uint64_t n_max = (uint64_t{1} << tier.maxBits()) - 1;
    EXPECT_EQ(static_cast<int>(sq::promptTokens(n_max, n_max - 1, tier.maxT()).size()), bound);
  }
  EXPECT_EQ(sq::promptLengthBound(9, 64), 3 + 3 + 3 + 2);
  EXPECT_EQ(sq::answerLengthBound(62), 19);
}

// --- tiers ----------------------------------------------------------------------------------

TEST(SquaringTiers, PresetParametersAsInTheCompetition) {
  ASSERT_EQ(sq::tierNames(),
            (std::vector<std::string>{"E1", "E2", "E3", "E4", "E5", "M1", "M2", "M3", "M4", "M5"}));
  struct Expected {
    const char* name;
    uint64_t p, q;
    std::vector<int> bits;
    std::vector<int64_t> train_t;
    int64_t ood_t;
    std::vector<int> ood_bits;
  };
  const std::vector<Expected> expected = {
      {"E1", 17, 19, {9}, {1, 2, 3}, 6, {10, 11}},
      {"E2", 29, 31, {10}, {1, 2, 4}, 7, {11, 12}},
      {"E3", 0, 0, {10, 11}, {2}, 4, {12, 13}},
      {"E4", 0, 0, {11, 12}, {2}, 4, {13, 14}},
      {"E5", 0, 0, {10, 11}, {1, 2, 3}, 6, {12, 13}},
      {"M1", 101, 103, {14}, {4, 8, 16}, 32, {15, 16}},
      {"M2", 193, 197, {16}, {4, 8, 16}, 32, {17, 18}},
      {"M3", 0, 0, {11, 13, 15}, {2}, 4, {12, 14, 16}},
      {"M4", 0, 0, {14, 18, 22}, {8}, 16, {16, 20, 24}},
      {"M5", 0, 0, {12, 14, 16}, {2, 4, 8}, 16, {13, 15, 18}},
  };
  for (const auto& want : expected) {
    const sq::TierPreset& tier = sq::tierPreset(want.name);
    SCOPED_TRACE(want.name);
    EXPECT_EQ(tier.fixed_p, want.p);
    EXPECT_EQ(tier.fixed_q, want.q);
    EXPECT_EQ(tier.modulus_bits, want.bits);
    EXPECT_EQ(tier.train_t, want.train_t);
    EXPECT_EQ(tier.ood_t, want.ood_t);
    EXPECT_EQ(tier.ood_modulus_bits, want.ood_bits);
    EXPECT_EQ(tier.depth_ladder, (std::vector<int64_t>{1, 2, 4, 8, 16, 32, 64}));
    const bool easy = want.name[0] == 'E';
    EXPECT_EQ(tier.difficulty, easy ? "easy" : "medium");
    EXPECT_DOUBLE_EQ(tier.train_fraction, easy ? 0.8 : 0.9);
    EXPECT_DOUBLE_EQ(tier.test_fraction, easy ? 0.2 : 0.1);
  }
  EXPECT_EQ(sq::tierPreset("e1").fixedN(), 323u);
  EXPECT_EQ(sq::tierPreset("M2").fixedN(), 38021u);
}

TEST(SquaringTiers, PromptSpaceCountsMatchBruteForce) {
  for (int bits = 5; bits <= 14; ++bits)
    EXPECT_EQ(sq::distinctPromptsPerT(bits), bruteForcePromptCount(bits)) << bits;
  EXPECT_EQ(sq::distinctPromptsPerT(10), 3640u);  // python: 6 moduli, sum of phi
}

TEST(SquaringTiers, CellSizes) {
  EXPECT_EQ(sq::trainCellSize(sq::tierPreset("E1"), 9), 288);
  EXPECT_EQ(sq::trainCellSize(sq::tierPreset("M2"), 16), 192 * 196);
  EXPECT_EQ(sq::trainCellSize(sq::tierPreset("E3"), 10), 1820);    // half of 3640
  EXPECT_EQ(sq::trainCellSize(sq::tierPreset("E3"), 11), 10000);   // easy cap
  EXPECT_EQ(sq::trainCellSize(sq::tierPreset("M4"), 22), 100000);  // medium cap
  EXPECT_EQ(sq::evalCellSize(sq::tierPreset("E3"), 12), 512);
}

// --- datasets -------------------------------------------------------------------------------

TEST(SquaringDataset, E1HasAll288UnitsPerTSplit80To20AndIsDeterministic) {
  const sq::TierPreset& tier = sq::tierPreset("E1");
  const auto a = sq::generateTierDataset(tier, 7);
  const auto b = sq::generateTierDataset(tier, 7);
  const auto c = sq::generateTierDataset(tier, 8);
  EXPECT_EQ(a.train.size(), 691u);  // round(0.8 * 864)
  EXPECT_EQ(a.test.size(), 173u);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.test, b.test);
  EXPECT_EQ(a.depth_ood_n, b.depth_ood_n);
  EXPECT_NE(promptSet(a.test), promptSet(c.test));  // another seed, another split
  auto all = promptSet(a.train);
  const auto test = promptSet(a.test);
  EXPECT_EQ(all.size(), a.train.size());
  for (const auto& p : test) EXPECT_EQ(all.count(p), 0u) << "test prompt also in train";
  all.insert(test.begin(), test.end());
  EXPECT_EQ(all.size(), 864u);  // all 288 x at T = 1, 2, 3
  for (const auto& e : a.train) ASSERT_EQ(e.z, sq::directSquaring(e.n, e.x, e.t));
  EXPECT_EQ(a.ood_t.size(), 288u);
  for (const auto& e : a.ood_t) EXPECT_EQ(e.t, 6);
  EXPECT_EQ(a.depth_seen.size(), 7u * 288u);
  EXPECT_EQ(a.depth_ood_n.size(), 2u * 7u * 512u);
  for (const auto& e : a.depth_ood_n) {
    const int bits = sq::bitLength(e.n);
    ASSERT_TRUE(bits == 10 || bits == 11);
    ASSERT_EQ(e.z, sq::directSquaring(e.n, e.x, e.t));
  }
}

TEST(SquaringDataset, E5PromptsAreUniqueInEveryFileAndSplitsDisjoint) {
  const sq::TierPreset& tier = sq::tierPreset("E5");
  const auto d = sq::generateTierDataset(tier, 3);
  const size_t pool = 3 * (1820 + 10000);
  EXPECT_EQ(d.train.size() + d.test.size(), pool);
  EXPECT_EQ(d.train.size(), static_cast<size_t>(std::llround(pool * 0.8)));
  for (const auto* set : {&d.train, &d.test, &d.ood_t, &d.depth_seen, &d.depth_ood_n})
    EXPECT_EQ(promptSet(*set).size(), set->size());
  const auto train = promptSet(d.train);
  for (const auto& e : d.test) ASSERT_EQ(train.count({e.n, e.x, e.t}), 0u);
  for (const auto& e : d.test) {
    ASSERT_TRUE(e.t >= 1 && e.t <= 3);
    const int bits = sq::bitLength(e.n);
    ASSERT_TRUE(bits == 10 || bits == 11);
  }
  // Same seed, same data; the test set of b = 10 covers part of the 3640-prompt space.
  EXPECT_EQ(sq::generateTierDataset(tier, 3).test, d.test);
}

TEST(SquaringDataset, UniqueSamplerFailsLoudlyWhenTheSpaceIsTooSmall) {
  sq::Rng rng(2);
  EXPECT_THROW(sq::sampleUniqueExamples(5, 1, 13, rng), std::logic_error);  // only 8 units of 21
  const auto all = sq::sampleUniqueExamples(6, 2, 24, rng);  // N = 35, phi = 24: every unit
  EXPECT_EQ(promptSet(all).size(), 24u);
}

TEST(SquaringDataset, JsonLinesRoundTripAndAtomicWrite) {
  const auto dir = std::filesystem::temp_directory_path() / "deepladder_squaring_test";
  std::filesystem::remove_all(dir);
  const sq::TierPreset& tier = sq::tierPreset("E1");
  const auto d = sq::generateTierDataset(tier, 1);
  const auto written = sq::writeTierDataset(dir.string(), tier, d);
  ASSERT_EQ(written.size(), 6u);
  EXPECT_EQ(sq::readExamplesJsonl((dir / "train.jsonl").string()), d.train);
  EXPECT_EQ(sq::readExamplesJsonl((dir / "depth_ood_n.jsonl").string()), d.depth_ood_n);
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_NE(entry.path().extension(), ".tmp") << entry.path();
  EXPECT_EQ(sq::exampleJsonLine({323, 2, 256, 3}),
            "{\"n\":323,\"x\":2,\"t\":3,\"answer\":256,\"tokens\":[2,10,9,10,3,9,4,10],"
            "\"answer_tokens\":[9,12,13]}");
  std::ifstream manifest(dir / "manifest.json");
  const std::string text((std::istreambuf_iterator<char>(manifest)), {});
  EXPECT_NE(text.find("\"train.jsonl\": 691"), std::string::npos) << text;
  // A broken line is reported with its line number.
  {
    std::ofstream bad(dir / "bad.jsonl");
    bad << sq::exampleJsonLine({323, 2, 256, 3})
        << "\n{\"n\":323,\"x\":400,\"t\":1,\"answer\":1}\n";
  }
  try {
    sq::readExamplesJsonl((dir / "bad.jsonl").string());
    FAIL() << "bad line accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("bad.jsonl:2: x"), std::string::npos) << e.what();
  }
  std::filesystem::remove_all(dir);
}

// --- evaluation -----------------------------------------------------------------------------

TEST(SquaringEvaluation, ExactMatchNeedsEveryDigit) {
  const sq::Example e{323, 2, 256, 3};
  EXPECT_TRUE(sq::exactMatch({9, 12, 13}, e));
  EXPECT_FALSE(sq::exactMatch({9, 12, 14}, e));
  EXPECT_FALSE(sq::exactMatch({9, 12}, e));
  EXPECT_FALSE(sq::exactMatch({7, 9, 12, 13}, e));  // a leading zero is a different answer

  // Rows of argmax predictions: a model that outputs exactly the targets matches.
  const auto separate = sq::makeSeparateBatch({e}, 11);
  std::vector<int32_t> row(separate.targets);
  for (auto& tok : row) tok = tok == sq::kIgnoreTarget ? 0 : tok;
  EXPECT_TRUE(sq::exactMatchSeparateRow(row.data(), 11, e));
  row[9] = 7;
  EXPECT_FALSE(sq::exactMatchSeparateRow(row.data(), 11, e));
  const auto causal = sq::makeCausalBatch({e}, 15);
  row = causal.targets;
  for (auto& tok : row) tok = tok == sq::kIgnoreTarget ? 0 : tok;
  EXPECT_TRUE(sq::exactMatchCausalRow(row.data(), 15, e));
  row[12] = 0;  // EOS wrong: the answer digits still match
  EXPECT_TRUE(sq::exactMatchCausalRow(row.data(), 15, e));
  row[11] = 8;
  EXPECT_FALSE(sq::exactMatchCausalRow(row.data(), 15, e));
  EXPECT_EQ(sq::causalSeqLenBound(9, 3), 1 + 10 + 1 + 3 + 1 - 1);  // prompt bound 10 at 9 bits
}

TEST(SquaringEvaluation, ChanceLevelOfConstructedCells) {
  EXPECT_DOUBLE_EQ(sq::chanceLevel({5, 5, 5, 7}), 0.75);
  EXPECT_DOUBLE_EQ(sq::chanceLevel({}), 0.0);
  const sq::Semiprime s = sq::semiprimeFromFactors(17, 19);
  sq::AccuracyMap map(sq::tierPreset("E1"));
  for (const auto& e : sq::allUnitExamples(s, 4)) map.add(e, e.x % 2 == 0);
  const sq::AccuracyCell* cell = map.find(9, 4);
  ASSERT_NE(cell, nullptr);
  EXPECT_EQ(cell->total, 288);
  EXPECT_EQ(cell->distinct_answers, 9);
  EXPECT_EQ(cell->most_common_answer_count, 32);  // 288 / 9: each answer equally often
  EXPECT_DOUBLE_EQ(cell->chance(), 32.0 / 288.0);
  EXPECT_EQ(cell->kind, sq::CellKind::kOodT);
}

TEST(SquaringEvaluation, MapMarksCellsAndMaxTFromConstructedPredictions) {
  const sq::TierPreset& tier = sq::tierPreset("E1");
  const auto d = sq::generateTierDataset(tier, 1);
  sq::AccuracyMap map(tier);
  // Seen modulus (9 bits): T = 1, 2 all right, one miss at T = 4. Unseen: right up to T = 8.
  bool missed_one = false;
  for (const auto& e : d.depth_seen) {
    bool correct = e.t <= 2;
    if (e.t == 4) {
      correct = missed_one;  // the first T = 4 example is wrong, the rest right
      missed_one = true;
    }
    map.add(e, correct);
  }
  for (const auto& e : d.depth_ood_n) map.add(e, e.t <= 8);
  EXPECT_EQ(map.maxT(tier.depth_ladder, /*seen_moduli=*/true), 2);
  EXPECT_EQ(map.maxT(tier.depth_ladder, /*seen_moduli=*/false), 8);
  ASSERT_NE(map.find(9, 4), nullptr);
  EXPECT_EQ(map.find(9, 4)->correct, 287);
  EXPECT_EQ(map.find(9, 1)->kind, sq::CellKind::kInDistribution);
  EXPECT_EQ(map.find(9, 8)->kind, sq::CellKind::kOodT);
  EXPECT_EQ(map.find(10, 2)->kind, sq::CellKind::kOodN);
  EXPECT_EQ(map.find(11, 64)->kind, sq::CellKind::kOodBoth);
  EXPECT_EQ(map.cells().size(), 3u * 7u);
  EXPECT_EQ(map.find(12, 1), nullptr);
  const std::string text = map.format();
  EXPECT_NE(text.find("1.000/"), std::string::npos) << text;
  EXPECT_NE(text.find("*0.000/"), std::string::npos) << text;

  EXPECT_EQ(sq::maxTFromRungs({1, 2, 4}, {{1, 0.99}, {2, 1.0}}), 0);
  EXPECT_EQ(sq::maxTFromRungs({1, 2, 4}, {{1, 1.0}, {4, 1.0}}), 1);  // rung 2 missing
  EXPECT_EQ(sq::maxTFromRungs({1, 2, 4}, {{1, 1.0}, {2, 1.0}, {4, 1.0}}), 4);
}

// Tests of the squaring task's number theory and encoding (core/squaring): primality, semiprime
// sampling, the shortcut label against direct squaring, token layouts and tier presets (the
// datasets are squaring_dataset_test.cpp's, the scoring squaring_evaluation_test.cpp's).
// Fixtures marked "python" were computed with Python 3's pow(x, 2**T, N) and sympy.isprime.
#include <gtest/gtest.h>

#include <cmath>
#include <set>
#include <tuple>

#include "core/errors.h"
#include "core/squaring/dataset.h"
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

TEST(SquaringTokens, SeparateLayoutLeftAlignsPromptWithTheAnswerAtItsLastPositions) {
  // As the benchmark's collate_squaring_mod: prompt from position 0, PAD after it, targets at
  // target_positions = arange(len(prompt) - len(answer), len(prompt)).
  const sq::Example e{323, 2, 256, 3};
  const auto batch = sq::makeSeparateBatch({e, sq::Example{899, 10, 692, 12}}, 11);
  ASSERT_EQ(batch.rows, 2);
  const int32_t I = sq::kIgnoreTarget;
  EXPECT_EQ(std::vector<int32_t>(batch.inputs.begin(), batch.inputs.begin() + 11),
            (std::vector<int32_t>{2, 10, 9, 10, 3, 9, 4, 10, 0, 0, 0}));
  EXPECT_EQ(std::vector<uint8_t>(batch.input_mask.begin(), batch.input_mask.begin() + 11),
            (std::vector<uint8_t>{1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0}));
  EXPECT_EQ(std::vector<int32_t>(batch.targets.begin(), batch.targets.begin() + 11),
            (std::vector<int32_t>{I, I, I, I, I, 9, 12, 13, I, I, I}));
  EXPECT_EQ(std::vector<uint8_t>(batch.target_mask.begin(), batch.target_mask.begin() + 11),
            (std::vector<uint8_t>{0, 0, 0, 0, 0, 1, 1, 1, 0, 0, 0}));
  // Row 2: N 8 9 9 X 1 0 T 1 2 -> 10 tokens and one PAD; answer 692 -> 13 16 9 at 7..9.
  EXPECT_EQ(std::vector<int32_t>(batch.inputs.begin() + 11, batch.inputs.end()),
            (std::vector<int32_t>{2, 15, 16, 16, 3, 8, 7, 4, 8, 9, 0}));
  EXPECT_EQ(std::vector<int32_t>(batch.targets.begin() + 11, batch.targets.end()),
            (std::vector<int32_t>{I, I, I, I, I, I, I, 13, 16, 9, I}));
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
    int64_t examples, ood_examples, depth_examples;  // generate_datasets.sh (0: exhaustive x)
  };
  const std::vector<Expected> expected = {
      {"E1", 17, 19, {9}, {1, 2, 3}, 6, {10, 11}, 250, 100, 0},
      {"E2", 29, 31, {10}, {1, 2, 4}, 7, {11, 12}, 800, 300, 0},
      {"E3", 0, 0, {10, 11}, {2}, 4, {12, 13}, 2000, 400, 256},
      {"E4", 0, 0, {11, 12}, {2}, 4, {13, 14}, 4000, 600, 256},
      {"E5", 0, 0, {10, 11}, {1, 2, 3}, 6, {12, 13}, 1000, 300, 256},
      {"M1", 101, 103, {14}, {4, 8, 16}, 32, {15, 16}, 10000, 3000, 192},
      {"M2", 193, 197, {16}, {4, 8, 16}, 32, {17, 18}, 30000, 5000, 768},
      {"M3", 0, 0, {11, 13, 15}, {2}, 4, {12, 14, 16}, 8000, 1000, 256},
      {"M4", 0, 0, {14, 18, 22}, {8}, 16, {16, 20, 24}, 30000, 3000, 256},
      {"M5", 0, 0, {12, 14, 16}, {2, 4, 8}, 16, {13, 15, 18}, 10000, 1000, 256},
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
    EXPECT_EQ(tier.examples_per_setting, want.examples);
    EXPECT_EQ(tier.ood_examples_per_setting, want.ood_examples);
    EXPECT_EQ(tier.depth_exhaustive_x, want.depth_examples == 0);
    EXPECT_EQ(tier.depth_examples_per_setting, want.depth_examples);
    EXPECT_EQ(tier.ood_n_examples_per_setting, 256);
    EXPECT_EQ(tier.single_t_flag, want.p == 0 && want.train_t.size() == 1);
  }
  EXPECT_EQ(sq::tierPreset("e1").fixedN(), 323u);
  EXPECT_EQ(sq::tierPreset("M2").fixedN(), 38021u);
}

TEST(SquaringTiers, PromptSpaceCountsMatchBruteForce) {
  for (int bits = 5; bits <= 14; ++bits)
    EXPECT_EQ(sq::distinctPromptsPerT(bits), bruteForcePromptCount(bits)) << bits;
  EXPECT_EQ(sq::distinctPromptsPerT(10), 3640u);  // python: 6 moduli, sum of phi
}

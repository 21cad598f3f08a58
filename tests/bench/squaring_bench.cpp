// Benchmark of the squaring-task generator on one core: examples per second (fresh semiprime,
// unit x, shortcut label and prompt tokens, no allocation) for b in {10, 16, 22, 32, 62}, the same
// with one fixed modulus, the shortcut against its baseline of T direct squarings, and whole tier
// datasets (the benchmark's records), and the compatible mode's speed: the benchmark's records
// per tier with and without their JSON lines. Goals (bench_goals.h, exit 1 on a miss): over one
// million examples a second for b <= 22; the shortcut label equals T direct squarings (judged in
// smoke mode too). --smoke: 0.05 s per figure, the first tier only.
#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

#include "core/squaring/dataset.h"
#include "core/squaring/reference_generator.h"
#include "core/squaring/reference_io.h"
#include "core/squaring/semiprime.h"
#include "core/squaring/tiers.h"
#include "core/squaring/tokens.h"
#include "tests/bench/bench_goals.h"

namespace sq = deepladder::squaring;

namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

// Runs `step` in blocks until `min_seconds` have passed; returns calls per second.
double figure_seconds = 0.4;  // --smoke: 0.05

template <typename Step>
double callsPerSecond(Step&& step, double min_seconds = figure_seconds) {
  int64_t calls = 0;
  const auto start = Clock::now();
  double elapsed = 0;
  do {
    for (int i = 0; i < 4096; ++i) step();
    calls += 4096;
    elapsed = secondsSince(start);
  } while (elapsed < min_seconds);
  return static_cast<double>(calls) / elapsed;
}

const int64_t kLadder[] = {1, 2, 4, 8, 16, 32, 64};

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  if (goals.smoke()) figure_seconds = 0.05;
  uint64_t checksum = 0;  // keeps the work observable
  int32_t tokens[64];
  std::printf("# squaring generator, one core; T cycles over the ladder 1..64\n");
  for (int bits : {10, 16, 22, 32, 62}) {
    sq::ExampleGenerator generator(bits, 42);
    int64_t k = 0;
    const double fresh = callsPerSecond([&] {
      const sq::Example e = generator.next(kLadder[k++ % 7]);
      checksum += e.z + static_cast<uint64_t>(sq::writePromptTokens(e.n, e.x, e.t, tokens));
    });
    sq::Rng rng(7);
    const sq::Semiprime s = sq::sampleSemiprime(bits, rng);
    const sq::SquaringOracle oracle(s);
    const double fixed = callsPerSecond([&] {
      const uint64_t x = sq::sampleUnit(s, rng);
      const int64_t t = kLadder[k++ % 7];
      const uint64_t z = oracle.answer(x, t);
      checksum += z + static_cast<uint64_t>(sq::writePromptTokens(s.n, x, t, tokens));
    });
    std::printf(
        "squaring_gen bits=%d examples_per_s=%.0f ns_per_example=%.1f fixed_n_examples_per_s=%.0f "
        "fresh_n_cost_ratio=%.2f\n",
        bits, fresh, 1e9 / fresh, fixed, fixed / fresh);
    if (bits <= 22)
      goals.atLeast("examples per second, fresh semiprimes, b = " + std::to_string(bits), fresh,
                    1e6, "/s");
  }

  std::printf("# label: shortcut pow(x, 2^T mod phi, N) vs the baseline of T direct squarings\n");
  for (int bits : {22, 62}) {
    sq::Rng rng(9);
    const sq::Semiprime s = sq::sampleSemiprime(bits, rng);
    const sq::SquaringOracle oracle(s);
    for (int64_t t : {64, 1024}) {
      bool same = true;
      for (uint64_t x = 2; x < 66; ++x)
        same = same && oracle.answer(x, t) == sq::directSquaring(s.n, x, t);
      goals.holds("shortcut label equals " + std::to_string(t) +
                      " direct squarings, b = " + std::to_string(bits),
                  same);
      uint64_t x = 3;
      const double shortcut =
          callsPerSecond([&] { checksum += oracle.answer(x++, t); }, figure_seconds / 2);
      const double direct =
          callsPerSecond([&] { checksum += sq::directSquaring(s.n, x++, t); }, figure_seconds / 2);
      std::printf(
          "squaring_label bits=%d T=%lld shortcut_per_s=%.0f direct_per_s=%.0f "
          "speedup=%.1f\n",
          bits, static_cast<long long>(t), shortcut, direct, shortcut / direct);
    }
  }

  std::printf("# whole tier datasets (train + test + evaluation sets, unique prompts)\n");
  auto tiers = sq::tierPresets();
  if (goals.smoke()) tiers.resize(1);
  for (const auto& tier : tiers) {
    const auto start = Clock::now();
    const auto data = sq::generateTierDataset(tier, 1);
    const double seconds = secondsSince(start);
    const size_t total = data.train.size() + data.test.size() + data.ood_t.size() +
                         data.depth_seen.size() + data.depth_ood_n.size();
    checksum += total;
    std::printf(
        "squaring_tier tier=%s train=%zu test=%zu ood_t=%zu depth_seen=%zu "
        "depth_ood_n=%zu seconds=%.3f examples_per_s=%.0f\n",
        tier.name.c_str(), data.train.size(), data.test.size(), data.ood_t.size(),
        data.depth_seen.size(), data.depth_ood_n.size(), seconds, total / seconds);
  }
  // Compatible mode (--compat reference): the benchmark's records, drawn with Python's random
  // semantics in its call order (prime candidates by getrandbits, units by randrange, cohorts by
  // sample and weighted choices), then formatted as its JSON lines (sort_keys, ", " separators).
  std::printf("# compatible mode: the benchmark's records (seed 45), then with their JSON lines\n");
  for (const auto& tier : tiers) {
    const sq::ReferenceConfig config = sq::referenceConfig(tier, 45, "out");
    const auto start = Clock::now();
    const auto records = sq::generateReferenceRecords(config);
    const double generate_s = secondsSince(start);
    std::string text;
    text.reserve(records.size() * 330);
    for (size_t i = 0; i < records.size(); ++i) {
      sq::appendReferenceRecordJson(text, config, records[i], static_cast<int64_t>(i));
      text += '\n';
    }
    const double total_s = secondsSince(start);
    checksum += text.size();
    std::printf(
        "squaring_compat tier=%s records=%zu generate_s=%.3f examples_per_s=%.0f "
        "with_json_lines_s=%.3f json_examples_per_s=%.0f bytes=%zu\n",
        tier.name.c_str(), records.size(), generate_s,
        static_cast<double>(records.size()) / generate_s, total_s,
        static_cast<double>(records.size()) / total_s, text.size());
  }
  std::printf("# checksum %llu\n", static_cast<unsigned long long>(checksum));
  return goals.exitCode();
}

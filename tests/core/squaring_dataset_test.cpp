// Tests of the squaring task's datasets (core/squaring/reference_generator.h, dataset.h,
// dataset_io.h, reference_io.h): the benchmark's split counts, its files byte for byte (a golden
// digest), every tier's counts and cohort rules, and both file layouts read back.
//
// Golden values: the benchmark's own generator (tilde-research/one-layer-deeper at e32c2f9,
// data/squaring_mod.py, run with Debian 12's python3 and the E1 arguments of
// scripts/generate_datasets.sh: seed 45, output_dir
// data/generated/squaring_mod_new11_easy_bidirectional_fixed_n_323_t123); `sha256sum *` of its
// output directory and its compute_split_counts.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <tuple>

#include "core/errors.h"
#include "core/sha256.h"
#include "core/squaring/dataset.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/reference_generator.h"
#include "core/squaring/reference_io.h"

namespace sq = deepladder::squaring;
using deepladder::UserError;

namespace {

using PairKey = std::pair<uint64_t, uint64_t>;  // (N, x)

std::filesystem::path freshDir(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / ("deepladder_" + name);
  std::filesystem::remove_all(dir);
  return dir;
}

std::set<PairKey> pairs(const std::vector<sq::Example>& v) {
  std::set<PairKey> out;
  for (const auto& e : v) out.insert({e.n, e.x});
  return out;
}

// The cohort's (N, x) sequence at each rung; every rung must repeat the first one.
void expectSameCohortAtEveryRung(const std::vector<sq::Example>& cohort,
                                 const std::vector<int64_t>& ladder, size_t per_rung) {
  ASSERT_EQ(cohort.size(), ladder.size() * per_rung);
  for (size_t r = 0; r < ladder.size(); ++r)
    for (size_t i = 0; i < per_rung; ++i) {
      const auto& e = cohort[r * per_rung + i];
      ASSERT_EQ(e.t, ladder[r]);
      ASSERT_EQ(e.n, cohort[i].n);
      ASSERT_EQ(e.x, cohort[i].x);
    }
}

}  // namespace

TEST(SquaringReference, SplitCountsAsTheBenchmarkComputesThem) {
  EXPECT_EQ(sq::splitCounts(250, {0.8, 0.2}), (std::vector<int64_t>{200, 50}));
  EXPECT_EQ(sq::splitCounts(2000, {0.8, 0.2}), (std::vector<int64_t>{1600, 400}));
  EXPECT_EQ(sq::splitCounts(10000, {0.9, 0.1}), (std::vector<int64_t>{9000, 1000}));
  EXPECT_EQ(sq::splitCounts(7, {0.5, 0.5}), (std::vector<int64_t>{4, 3}));  // tie: first split
  EXPECT_EQ(sq::splitCounts(3, {0.9, 0.1}), (std::vector<int64_t>{2, 1}));  // every split >= 1
  EXPECT_EQ(sq::splitCounts(5, {0.7, 0.3}), (std::vector<int64_t>{4, 1}));  // 5 * 0.7 > 3.5
  EXPECT_THROW(sq::splitCounts(1, {0.9, 0.1}), UserError);
}

TEST(SquaringReference, E1Seed45FilesAreTheBenchmarksByteForByte) {
  const auto dir = freshDir("reference_e1");
  // The benchmark's output_dir string: dataset_config.json repeats it.
  const auto config =
      sq::referenceConfig(sq::tierPreset("E1"), 45,
                          "data/generated/squaring_mod_new11_easy_bidirectional_fixed_n_323_t123");
  const auto records = sq::generateReferenceRecords(config);
  ASSERT_EQ(records.size(), 4700u);
  EXPECT_EQ(sq::referenceRecordJson(config, records[0], 0),
            "{\"configured_modulus_bits\": null, \"generator_family\": \"rsa_repeated_squaring\", "
            "\"input_ids\": [2, 10, 9, 10, 3, 9, 14, 12, 4, 8], \"instance_id\": "
            "\"squaring_mod_bfixed_t1_s45_00000000\", \"label_exact\": true, \"label_method\": "
            "\"trapdoor_phi\", \"labels\": [11, 10], \"modulus\": 323, \"modulus_bits\": 9, "
            "\"result\": 43, \"seed\": 45, \"split\": \"train\", \"time_steps\": 1, \"x\": 275}");
  const auto written = sq::writeReferenceDataset(dir.string(), config, records);
  EXPECT_EQ(written.size(), 18u);
  const std::map<std::string, std::string> golden = {
      {"dataset_config.json", "6cdd6ed38f3a08ce57b62b574a8312c703b73373d11fa58e740f1ac586bda92f"},
      {"depth_ood_n_t_1.jsonl", "0df610000141e4cad43a885c58179000b65f8a09798af22a6a19cacc9be2d2cf"},
      {"depth_ood_n_t_16.jsonl",
       "cce37c26673e16b40c3ea390fa75a27b1569cf4251f2539ebfa7e4e6dc3daef0"},
      {"depth_ood_n_t_2.jsonl", "35040bbc11e1f4ed39c861b7da1c098c55643927a075c8ecaf09d8cc69192440"},
      {"depth_ood_n_t_32.jsonl",
       "a9d8a26f9a4ec573bdcfcf9a7acc6bc1b5e894f89a3e43efcc4de716ccb7bd54"},
      {"depth_ood_n_t_4.jsonl", "6220ab9aa771db399ca8be71cdd7d568ede8d442121d7ec81f1755b295d76f02"},
      {"depth_ood_n_t_64.jsonl",
       "d6a81bfad7f859484e2cf46db886454f31f6465b19ce588a482022563df6cfbb"},
      {"depth_ood_n_t_8.jsonl", "07e0b481652b9ebcd931287367eb29165f93dbe13c41da2f619cf060dca6022f"},
      {"depth_t_1.jsonl", "25aa436a63d44df6535f64380198267c3a1c46fd73f831c87862f71ad638ee06"},
      {"depth_t_16.jsonl", "a2bff225a69494d1c9022507dcfd6f36faea6dc54cef76e79725c80c7677c2c9"},
      {"depth_t_2.jsonl", "159ef426286c4a4ba8924e87e9dcb7290e06f54272670ca58286433f2ffd952a"},
      {"depth_t_32.jsonl", "4b26a77f428a8354ca11f674b9faa195a29abadc0516b70b336fb6f5e80f3bfe"},
      {"depth_t_4.jsonl", "4e3bfff10d88b911c5ccf3351f50a97a0d732fdf61d67bde2f166a35b2713c6c"},
      {"depth_t_64.jsonl", "d265e7807426e0e5871c6c908352b90a889f683beafb0c411786249c2ada1f30"},
      {"depth_t_8.jsonl", "b95a6053326fc88caa31808afa808632fd57df96124d2fdb0d495dfe4d72c625"},
      {"ood.jsonl", "03b74617bbf9b60cf96658b4677a6683746702708d351d1e6783eef19b193613"},
      {"test.jsonl", "3f47f4d259c597d848518d1f415728d9efb328dd72e08b3fcb2c176d81ff4fa8"},
      {"train.jsonl", "d64fae6d2077b40db4dd962624dfa9575a072e8fa4950470aeeff081b0cd3146"}};
  std::set<std::string> on_disk;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    on_disk.insert(entry.path().filename().string());
  EXPECT_EQ(on_disk.size(), golden.size());  // no .tmp left, nothing extra
  for (const auto& [name, digest] : golden)
    EXPECT_EQ(deepladder::sha256File((dir / name).string()), digest) << name;
  std::filesystem::remove_all(dir);
}

TEST(SquaringReference, EveryTierHasTheBenchmarksCountsAndCohortRules) {
  for (const sq::TierPreset& tier : sq::tierPresets()) {
    SCOPED_TRACE(tier.name);
    const auto d = sq::generateTierDataset(tier, 3);
    const size_t cells = tier.modulus_bits.size() * tier.train_t.size();
    const auto counts =
        sq::splitCounts(tier.examples_per_setting, {tier.train_fraction, tier.test_fraction});
    EXPECT_EQ(d.train.size(), cells * static_cast<size_t>(counts[0]));
    EXPECT_EQ(d.test.size(), cells * static_cast<size_t>(counts[1]));
    EXPECT_EQ(d.ood_t.size(),
              tier.modulus_bits.size() * static_cast<size_t>(tier.ood_examples_per_setting));
    for (const auto& e : d.ood_t) ASSERT_EQ(e.t, tier.ood_t);

    // Seen-N cohort: never a train, test or OOD pair; the same pairs at every rung.
    std::set<PairKey> used = pairs(d.train);
    for (const auto& p : pairs(d.test)) used.insert(p);
    for (const auto& p : pairs(d.ood_t)) used.insert(p);
    const size_t per_rung = d.depth_seen.size() / tier.depth_ladder.size();
    if (tier.depth_exhaustive_x) {  // every unit x of N never used: E1 38, E2 40
      const uint64_t phi = (tier.fixed_p - 1) * (tier.fixed_q - 1);
      EXPECT_EQ(per_rung, phi - used.size());
    } else {
      EXPECT_EQ(per_rung,
                tier.modulus_bits.size() * static_cast<size_t>(tier.depth_examples_per_setting));
    }
    expectSameCohortAtEveryRung(d.depth_seen, tier.depth_ladder, per_rung);
    std::set<uint64_t> train_moduli;
    for (const auto& e : d.train) train_moduli.insert(e.n);
    for (size_t i = 0; i < per_rung; ++i) {
      const auto& e = d.depth_seen[i];
      ASSERT_EQ(used.count({e.n, e.x}), 0u) << "depth pair also in train/test/OOD";
      ASSERT_EQ(train_moduli.count(e.n), 1u) << "depth modulus not a training modulus";
    }
    EXPECT_EQ(pairs(d.depth_seen).size(), per_rung);

    // OOD-N cohort: 256 pairs per unseen size, the same at every rung, moduli used nowhere else.
    const size_t ood_per_rung = tier.ood_modulus_bits.size() * 256;
    expectSameCohortAtEveryRung(d.depth_ood_n, tier.depth_ladder, ood_per_rung);
    std::set<uint64_t> other_moduli = train_moduli;
    for (const auto* set : {&d.test, &d.ood_t, &d.depth_seen})
      for (const auto& e : *set) other_moduli.insert(e.n);
    for (size_t i = 0; i < ood_per_rung; ++i) {
      const auto& e = d.depth_ood_n[i];
      ASSERT_EQ(other_moduli.count(e.n), 0u);
      ASSERT_EQ(sq::bitLength(e.n), tier.ood_modulus_bits[i / 256]);
    }
    EXPECT_EQ(pairs(d.depth_ood_n).size(), ood_per_rung);
    for (const auto* set : {&d.train, &d.test, &d.ood_t, &d.depth_seen, &d.depth_ood_n})
      for (size_t i = 0; i < set->size(); i += 97)
        ASSERT_EQ((*set)[i].z, sq::directSquaring((*set)[i].n, (*set)[i].x, (*set)[i].t));
  }
  // E1: 600/150 train/test (250 x per T, 200/50), 100 OOD at T = 6, the 38 reserved x.
  const auto e1 = sq::generateTierDataset(sq::tierPreset("E1"), 45);
  EXPECT_EQ(e1.train.size(), 600u);
  EXPECT_EQ(e1.test.size(), 150u);
  EXPECT_EQ(e1.ood_t.size(), 100u);
  EXPECT_EQ(e1.depth_seen.size(), 7u * 38u);
}

TEST(SquaringReference, TheSameSeedGivesTheSameDataAnotherSeedOtherData) {
  const sq::TierPreset& tier = sq::tierPreset("E5");
  const auto a = sq::generateTierDataset(tier, 7), b = sq::generateTierDataset(tier, 7);
  const auto c = sq::generateTierDataset(tier, 8);
  EXPECT_EQ(a.train, b.train);
  EXPECT_EQ(a.depth_ood_n, b.depth_ood_n);
  EXPECT_NE(a.test, c.test);
}

TEST(SquaringReference, ASeedTheBenchmarkCannotGenerateFailsWithItsError) {
  // M1 with seed 2^32: the 192 fresh seen-N depth pairs need more than 10,000 draws; the
  // benchmark's generator raises the same ValueError.
  try {
    sq::generateTierDataset(sq::tierPreset("M1"), uint64_t{1} << 32);
    FAIL() << "generated";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("use another seed"), std::string::npos) << e.what();
  }
}

TEST(SquaringDatasetIo, BothLayoutsReadBackToTheSameRecords) {
  const sq::TierPreset& tier = sq::tierPreset("E1");
  const auto d = sq::generateTierDataset(tier, 45);
  const auto native = freshDir("native_e1"), reference = freshDir("reference_e1_read");
  const auto written = sq::writeTierDataset(native.string(), tier, d);
  ASSERT_EQ(written.size(), 6u);
  const auto config = sq::referenceConfig(tier, 45, reference.string());
  sq::writeReferenceDataset(reference.string(), config, sq::generateReferenceRecords(config));
  for (const auto& dir : {native, reference}) {
    SCOPED_TRACE(dir.string());
    const auto back = sq::readTierDirectory(dir.string());
    EXPECT_EQ(back.tier, "E1");
    EXPECT_EQ(back.seed, 45u);
    EXPECT_EQ(back.train, d.train);
    EXPECT_EQ(back.test, d.test);
    EXPECT_EQ(back.ood_t, d.ood_t);
    EXPECT_EQ(back.depth_seen, d.depth_seen);
    EXPECT_EQ(back.depth_ood_n, d.depth_ood_n);
  }
  std::ifstream manifest(native / "manifest.json");
  const std::string text((std::istreambuf_iterator<char>(manifest)), {});
  EXPECT_NE(text.find("\"train.jsonl\": 600"), std::string::npos) << text;
  EXPECT_EQ(sq::exampleJsonLine({323, 2, 256, 3}),
            "{\"n\":323,\"x\":2,\"t\":3,\"answer\":256,\"tokens\":[2,10,9,10,3,9,4,10],"
            "\"answer_tokens\":[9,12,13]}");
  EXPECT_THROW(sq::readTierDirectory(native.parent_path().string() + "/no_such_dir"), UserError);
  EXPECT_THROW(sq::parseCompat("python"), UserError);
  std::filesystem::remove_all(native);
  std::filesystem::remove_all(reference);
}

TEST(SquaringDatasetIo, CausalReferenceLinesParseAndBrokenLinesNameFileLineAndField) {
  sq::ReferenceConfig config = sq::referenceConfig(sq::tierPreset("E1"), 45, "out");
  config.separate_input_output = false;
  sq::ReferenceRecord r;
  r.p = 17;
  r.q = 19;
  r.modulus = 323;
  r.x = 2;
  r.time_steps = 3;
  r.result = 256;
  const std::string causal = sq::referenceRecordJson(config, r, 12);
  EXPECT_NE(causal.find("\"input_ids\": [1, 2, 10, 9, 10, 3, 9, 4, 10, 5, 9, 12, 13, 6]"),
            std::string::npos)
      << causal;
  EXPECT_NE(causal.find("\"labels\": [-100, -100, -100, -100, -100, -100, -100, -100, -100, "
                        "-100, 9, 12, 13, 6]"),
            std::string::npos)
      << causal;
  EXPECT_NE(causal.find("\"instance_id\": \"squaring_mod_bfixed_t3_s45_00000012\""),
            std::string::npos);
  const auto dir = freshDir("reference_lines");
  std::filesystem::create_directories(dir);
  {
    std::ofstream out(dir / "mixed.jsonl");
    out << causal << "\n" << sq::exampleJsonLine({323, 2, 256, 3}) << "\n";
    std::string bad = sq::referenceRecordJson(config, r, 13);
    const std::string labels = "\"labels\": [-100";
    bad.replace(bad.find(labels), labels.size(), "\"labels\": [-101");
    out << bad << "\n";
  }
  try {
    sq::readExamplesJsonl((dir / "mixed.jsonl").string());
    FAIL() << "broken labels accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("mixed.jsonl:3: input_ids/labels"), std::string::npos)
        << e.what();
  }
  {
    std::ofstream out(dir / "two.jsonl");
    out << causal << "\n" << sq::exampleJsonLine({323, 2, 256, 3}) << "\n";
  }
  const auto two = sq::readExamplesJsonl((dir / "two.jsonl").string());
  ASSERT_EQ(two.size(), 2u);
  EXPECT_EQ(two[0], two[1]);
  std::filesystem::remove_all(dir);
}

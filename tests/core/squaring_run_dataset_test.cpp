// Tests of a squaring run's data from its config (core/squaring/run_dataset.h): generated from
// (tier, data_seed) without data_dir, the directory's files with it, and errors naming
// squaring.data_dir for a missing directory or another tier.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/errors.h"
#include "core/squaring/dataset_io.h"
#include "core/squaring/run_dataset.h"
#include "core/squaring/tiers.h"

namespace sq = deepladder::squaring;
using deepladder::SquaringConfig;
using deepladder::UserError;

namespace {

std::string errorOf(const SquaringConfig& c) {
  try {
    sq::runDataset(c);
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(SquaringRunDataset, GeneratesWithoutADirectoryAndReadsOneWithIt) {
  const auto dir = std::filesystem::temp_directory_path() / "deepladder-run-dataset";
  std::filesystem::remove_all(dir);
  const sq::TierPreset& tier = sq::tierPreset("E1");
  const sq::TierDataset seeded = sq::generateTierDataset(tier, 45);
  sq::writeTierDataset(dir.string(), tier, seeded);

  SquaringConfig c;
  c.tier = "E1";
  c.data_seed = 45;
  const sq::TierDataset generated = sq::runDataset(c);
  EXPECT_EQ(generated.test, seeded.test);
  c.data_seed = 0;
  EXPECT_NE(sq::runDataset(c).test, seeded.test);  // another seed, other prompts

  c.data_dir = dir.string();
  const sq::TierDataset read = sq::runDataset(c);
  EXPECT_EQ(read.train, seeded.train);
  EXPECT_EQ(read.test, seeded.test);
  EXPECT_EQ(read.ood_t, seeded.ood_t);

  c.tier = "E2";
  EXPECT_NE(errorOf(c).find("squaring.data_dir " + dir.string() + " holds tier E1"),
            std::string::npos)
      << errorOf(c);
  c.tier = "E1";
  c.data_dir = (dir / "missing").string();
  EXPECT_EQ(errorOf(c).rfind("squaring.data_dir: ", 0), 0u) << errorOf(c);
  std::filesystem::remove_all(dir);
}

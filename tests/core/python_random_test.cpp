// Tests of core/squaring/python_random.h against draws of CPython 3.11's random.Random
// (fixture tests/core/fixtures/python_random_vectors.json, written by
// tests/core/python_random_vectors.py with Debian 12's python3): each case replays the same
// sequence of calls on one generator, so the state must stay in step through every kind of call.
#include "core/squaring/python_random.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <numeric>
#include <set>

#include "core/errors.h"

namespace sq = deepladder::squaring;

namespace {

nlohmann::json loadVectors() {
  std::ifstream in(std::string(DEEPLADDER_SOURCE_DIR) +
                   "/tests/core/fixtures/python_random_vectors.json");
  EXPECT_TRUE(in.good());
  return nlohmann::json::parse(in);
}

std::vector<uint64_t> cumulative(const nlohmann::json& weights) {
  std::vector<uint64_t> cum;
  uint64_t sum = 0;
  for (const auto& w : weights) cum.push_back(sum += w.get<uint64_t>());
  return cum;
}

}  // namespace

TEST(PythonRandom, ReplaysCPythonDrawsForEveryCallKind) {
  const auto vectors = loadVectors();
  ASSERT_EQ(vectors["cases"].size(), 9u);
  std::set<std::string> kinds;
  for (const auto& c : vectors["cases"]) {
    const std::string seed = c["seed"];
    sq::PythonRandom rng(sq::PythonRandom::seedWords(seed));
    int index = 0;
    for (const auto& op : c["ops"]) {
      const std::string kind = op["op"];
      const auto& args = op["args"];
      const auto& out = op["out"];
      kinds.insert(kind);
      SCOPED_TRACE("seed " + seed + ", call " + std::to_string(index++) + " " + kind);
      if (kind == "genrand") {
        EXPECT_EQ(rng.genrandUint32(), out.get<uint32_t>());
      } else if (kind == "random") {
        EXPECT_EQ(rng.random(), out.get<double>());  // bit for bit
      } else if (kind == "getrandbits") {
        EXPECT_EQ(rng.getrandbits(args[0].get<int>()), out.get<uint64_t>());
      } else if (kind == "randbelow") {
        EXPECT_EQ(rng.randbelow(args[0].get<uint64_t>()), out.get<uint64_t>());
      } else if (kind == "randrange") {
        EXPECT_EQ(rng.randrange(args[0].get<int64_t>(), args[1].get<int64_t>()),
                  out.get<int64_t>());
      } else if (kind == "randint") {
        EXPECT_EQ(rng.randint(args[0].get<int64_t>(), args[1].get<int64_t>()), out.get<int64_t>());
      } else if (kind == "shuffle") {
        std::vector<int> items(args[0].get<size_t>());
        std::iota(items.begin(), items.end(), 0);
        rng.shuffle(items);
        EXPECT_EQ(items, out.get<std::vector<int>>());
      } else if (kind == "sample") {
        EXPECT_EQ(rng.sampleIndices(args[0].get<size_t>(), args[1].get<size_t>()),
                  out.get<std::vector<size_t>>());
      } else if (kind == "choice_index") {
        EXPECT_EQ(rng.choiceIndex(args[0].get<size_t>()), out.get<size_t>());
      } else if (kind == "weighted_choice") {
        EXPECT_EQ(rng.weightedChoiceIndex(cumulative(args)), out.get<size_t>());
      } else if (kind == "uniform") {
        EXPECT_EQ(rng.uniform(args[0].get<double>(), args[1].get<double>()), out.get<double>());
      } else {
        ADD_FAILURE() << "unknown op " << kind;
      }
    }
  }
  EXPECT_EQ(kinds.size(), 11u);  // every kind of call was exercised
}

TEST(PythonRandom, SeedWordsAreTheMinimalLittleEndianWordsOfTheMagnitude) {
  EXPECT_EQ(sq::PythonRandom::seedWords("0"), (std::vector<uint32_t>{0}));
  EXPECT_EQ(sq::PythonRandom::seedWords("-45"), (std::vector<uint32_t>{45}));
  EXPECT_EQ(sq::PythonRandom::seedWords("4294967296"), (std::vector<uint32_t>{0, 1}));
  EXPECT_EQ(sq::PythonRandom::seedWords("18446744073709551615"),
            (std::vector<uint32_t>{0xffffffffU, 0xffffffffU}));
  EXPECT_THROW(sq::PythonRandom::seedWords("4x"), deepladder::UserError);
  EXPECT_THROW(sq::PythonRandom::seedWords("-"), deepladder::UserError);
  // The uint64 constructor and the word constructor agree.
  sq::PythonRandom a(uint64_t{12345678901234567890ULL});
  sq::PythonRandom b(sq::PythonRandom::seedWords("12345678901234567890"));
  for (int i = 0; i < 5; ++i) EXPECT_EQ(a.genrandUint32(), b.genrandUint32());
}

TEST(PythonRandom, SampleBranchSizesAsCPython) {
  // setsize = 21 + 4^ceil(log4(3k)) for k > 5: k = 38 -> 277, so 288 units take the set branch.
  EXPECT_EQ(sq::pythonSampleSetSize(5), 21u);
  EXPECT_EQ(sq::pythonSampleSetSize(6), 85u);
  EXPECT_EQ(sq::pythonSampleSetSize(38), 277u);
  EXPECT_EQ(sq::pythonSampleSetSize(256), 1045u);
}

TEST(PythonRandom, RefusesEmptyRanges) {
  sq::PythonRandom rng(uint64_t{1});
  EXPECT_THROW(rng.randbelow(0), std::invalid_argument);
  EXPECT_THROW(rng.randrange(5, 5), std::invalid_argument);
  EXPECT_THROW(rng.sampleIndices(3, 4), std::invalid_argument);
  EXPECT_THROW(rng.weightedChoiceIndex({0, 0}), std::invalid_argument);
  EXPECT_THROW(rng.getrandbits(65), std::invalid_argument);
}

// Run config reading: defaults, every bad-input path names file, line and key.
#include "core/run_config.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/errors.h"

using namespace deepladder;

namespace {

std::string errorOf(const std::string& text) {
  try {
    parseRunConfigToml(text, "run.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(RunConfig, ReadsAllSectionsAndKeepsDefaults) {
  RunConfig c = parseRunConfigToml(R"(
name = "tiny"
[model]
d_model = 128
n_layer = 3
n_head = 4
mlp = "swiglu"
[train]
steps = 10
warmup_steps = 2
lr = 1e-3
)",
                                   "run.toml");
  EXPECT_EQ(c.name, "tiny");
  EXPECT_EQ(c.model.d_model, 128);
  EXPECT_EQ(c.model.mlp, MlpKind::swiglu);
  EXPECT_EQ(c.model.mlpHidden(), 512);  // 256 ceil(floor(8*128/3)/256) = 256 ceil(341/256)
  EXPECT_EQ(c.train.steps, 10);
  EXPECT_DOUBLE_EQ(c.train.lr, 1e-3);
  EXPECT_EQ(c.train.batch_size, TrainConfig{}.batch_size);
  EXPECT_EQ(c.data.kind, DataKind::builtin);
}

TEST(RunConfig, UnknownKeyNamesFileLineAndKey) {
  const std::string e = errorOf("[model]\nd_model = 64\nn_layers = 3\n");
  EXPECT_NE(e.find("run.toml:3"), std::string::npos) << e;
  EXPECT_NE(e.find("model.n_layers"), std::string::npos) << e;
  EXPECT_NE(e.find("unknown key"), std::string::npos) << e;
}

TEST(RunConfig, WrongTypeIsReported) {
  const std::string e = errorOf("[train]\nsteps = \"many\"\n");
  EXPECT_NE(e.find("run.toml:2"), std::string::npos) << e;
  EXPECT_NE(e.find("train.steps"), std::string::npos) << e;
  EXPECT_NE(e.find("expected an integer"), std::string::npos) << e;
}

TEST(RunConfig, OutOfRangeIsReportedWithTheRange) {
  const std::string e = errorOf("[train]\nsteps = 0\n");
  EXPECT_NE(e.find("train.steps"), std::string::npos) << e;
  EXPECT_NE(e.find("out of range"), std::string::npos) << e;
}

TEST(RunConfig, SyntaxErrorHasLineAndColumn) {
  const std::string e = errorOf("[model\nd_model = 3\n");
  EXPECT_NE(e.find("run.toml:1:"), std::string::npos) << e;
  EXPECT_NE(e.find("syntax"), std::string::npos) << e;
}

TEST(RunConfig, IndivisibleHeadsAreRejected) {
  const std::string e = errorOf("[model]\nd_model = 64\nn_head = 3\n");
  EXPECT_NE(e.find("model.n_head"), std::string::npos) << e;
}

TEST(RunConfig, TextDataNeedsPaths) {
  const std::string e = errorOf("[data]\nkind = \"text\"\n");
  EXPECT_NE(e.find("data.train"), std::string::npos) << e;
}

// data.corpus names a built-in corpus: with another data kind it is refused, not ignored; left at
// its default it stays out of the config hash, so runs made before the option keep their hash.
TEST(RunConfig, BuiltinCorpusChoiceIsCheckedAndHashedOnlyOffItsDefault) {
  const std::string e =
      errorOf("[data]\nkind = \"text\"\ntrain = \"a.txt\"\nval = \"b.txt\"\ncorpus = \"gcide\"\n");
  EXPECT_NE(e.find("data.corpus"), std::string::npos) << e;
  EXPECT_NE(errorOf("[data]\ncorpus = \"wiki\"\n").find("\"gcide\""), std::string::npos);
  RunConfig kjv, gcide;
  gcide.data.corpus = BuiltinCorpus::gcide;
  EXPECT_EQ(parseRunConfigToml("[data]\ncorpus = \"gcide\"\n", "run.toml").data.corpus,
            BuiltinCorpus::gcide);
  EXPECT_NE(configHash(gcide), configHash(kjv));
  EXPECT_EQ(toJson(kjv)["data"].count("corpus"), 1u);  // stored, though not hashed at kjv
}

TEST(RunConfig, BadChoiceListsTheAllowedValues) {
  const std::string e = errorOf("[train]\nschedule = \"linear\"\n");
  EXPECT_NE(e.find("\"cosine\""), std::string::npos) << e;
  EXPECT_NE(e.find("\"wsd\""), std::string::npos) << e;
}

TEST(RunConfig, MissingFileIsAUserError) {
  EXPECT_THROW(loadRunConfigToml("/nonexistent/run.toml"), UserError);
}

TEST(RunConfig, JsonRoundTripKeepsEveryFieldAndHash) {
  RunConfig c;
  c.name = "x";
  c.model.d_model = 96;
  c.model.n_head = 3;
  c.train.lr = 0.01;
  c.data.kind = DataKind::shards;
  c.data.train = "a.bin";
  c.data.val = "b.bin";
  RunConfig back = runConfigFromJson(toJson(c));
  EXPECT_EQ(toJson(back), toJson(c));
  EXPECT_EQ(configHash(back), configHash(c));
  c.train.lr = 0.02;
  EXPECT_NE(configHash(back), configHash(c));
}

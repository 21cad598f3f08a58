// The run-option schema: every option round-trips TOML -> struct -> JSON -> struct, enters the
// hash exactly when it is marked hashed, is documented (`deepladder options`, docs/options.md) and
// validated from one place; unknown keys are refused with the nearest known name.
#include "core/options/option_schema.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/options/option_docs.h"
#include "core/options/option_json.h"
#include "core/options/option_toml.h"
#include "core/options/validate.h"

namespace deepladder::options {
namespace {

// A value of the option's type that is not its default.
OptionValue otherValue(const OptionSpec& spec) {
  switch (spec.type) {
    case OptionType::integer: {
      const int64_t d = std::get<int64_t>(spec.default_value);
      return d + 1 <= static_cast<int64_t>(spec.max) ? d + 1 : d - 1;
    }
    case OptionType::number: {
      const double d = std::get<double>(spec.default_value);
      return d + 0.25 <= spec.max ? d + 0.25 : d - 0.25;
    }
    case OptionType::boolean:
      return !std::get<bool>(spec.default_value);
    case OptionType::string:
      return std::get<std::string>(spec.default_value) + "x";
    case OptionType::choice: {
      const std::string d = std::get<std::string>(spec.default_value);
      return std::string(spec.choices[0] == d ? spec.choices[1] : spec.choices[0]);
    }
  }
  return {};
}

std::string tomlLine(const OptionSpec& spec, const OptionValue& value) {
  const std::string section(sectionName(spec.section));
  return (section.empty() ? "" : "[" + section + "]\n") + std::string(spec.key) + " = " +
         formatValue(value) + "\n";
}

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

UserError errorOf(const std::function<void()>& action) {
  try {
    action();
  } catch (const UserError& e) {
    return e;
  }
  ADD_FAILURE() << "expected a UserError";
  return UserError("");
}

TEST(OptionSchema, EveryOptionRoundTripsThroughTomlAndJson) {
  ASSERT_GT(runOptionSchema().size(), 70u);
  for (const OptionSpec& spec : runOptionSchema()) {
    SCOPED_TRACE(spec.qualifiedKey());
    const OptionValue value = otherValue(spec);
    ASSERT_NE(value, spec.default_value);
    const toml::table doc = parseTomlString(tomlLine(spec, value), "t.toml");
    TomlReader reader(doc, "t.toml");
    RunConfig config;
    if (spec.section == Section::root) {
      applyTomlSection(reader, Section::root, config, nullptr);
    } else {
      TomlReader table = reader.table(std::string(sectionName(spec.section)));
      applyTomlSection(table, spec.section, config, nullptr);
    }
    EXPECT_EQ(spec.get(config), value);
    const nlohmann::json json = encodeRunConfig(config, false);
    const RunConfig back = decodeRunConfig(nlohmann::json::parse(json.dump()));
    EXPECT_EQ(spec.get(back), value);
    EXPECT_EQ(encodeRunConfig(back, false), json);
    // The hash sees exactly the hashed options.
    EXPECT_EQ(configHash(config) != configHash(RunConfig{}), spec.hashed());
  }
}

TEST(OptionSchema, DefaultsComeFromTheStructsAndEveryKeyIsUnique) {
  std::set<std::string> keys;
  for (const OptionSpec& spec : runOptionSchema()) {
    EXPECT_TRUE(keys.insert(spec.qualifiedKey()).second) << spec.qualifiedKey();
    EXPECT_TRUE(spec.isDefault(RunConfig{})) << spec.qualifiedKey();
    EXPECT_FALSE(spec.help.empty()) << spec.qualifiedKey();
    EXPECT_NE(spec.flags & kBothTasks, 0u) << spec.qualifiedKey();
    EXPECT_EQ(findOption(spec.qualifiedKey()), &spec);
  }
  EXPECT_EQ(findOption("model.d_modle"), nullptr);
}

TEST(OptionSchema, UnknownKeysNameTheNearestKnownOne) {
  const UserError toml_error =
      errorOf([] { parseRunConfigToml("[model]\nd_model = 64\nn_layr = 3\n", "r.toml"); });
  EXPECT_NE(std::string(toml_error.what()).find("r.toml:3"), std::string::npos)
      << toml_error.what();
  EXPECT_NE(std::string(toml_error.what()).find("did you mean n_layer?"), std::string::npos);
  const UserError top = errorOf([] { parseRunConfigToml("nmae = \"x\"\n", "r.toml"); });
  EXPECT_NE(std::string(top.what()).find("did you mean name?"), std::string::npos) << top.what();
  const UserError json_error =
      errorOf([] { decodeRunConfig(nlohmann::json::parse(R"({"train": {"learning_rate": 1}})")); });
  EXPECT_NE(std::string(json_error.what()).find("learning_rate"), std::string::npos);
  const UserError section =
      errorOf([] { decodeRunConfig(nlohmann::json::parse(R"({"modle": {}})")); });
  EXPECT_NE(std::string(section.what()).find("mean model?"), std::string::npos) << section.what();
  const UserError choice =
      errorOf([] { parseRunConfigToml("[model]\nmlp = \"swishglu\"\n", "r.toml"); });
  EXPECT_NE(std::string(choice.what()).find("\"gelu\", \"swiglu\""), std::string::npos)
      << choice.what();
}

TEST(OptionSchema, ValidationNamesTheLineWhereTheValueWasSet) {
  const UserError range =
      errorOf([] { parseRunConfigToml("[train]\nsteps = 10\nlr = 50.0\n", "r.toml"); });
  EXPECT_NE(std::string(range.what()).find("r.toml:3: train.lr: value 50"), std::string::npos)
      << range.what();
  // A cross-field rule in a ladder names the arm override that broke it.
  const std::string ladder =
      "[ladder]\nname = \"l\"\n[sizes]\ndepths = [3]\nwidth_per_depth = 32\nhead_dim = 16\n"
      "[budget]\nrule = \"tokens\"\ntokens = 10000\n[arms.vanilla]\n"
      "[arms.grown]\nmodel = { grow_layers = 2 }\n";
  const UserError arm = errorOf([&] { ladder::parseLadder(ladder, "l.toml"); });
  EXPECT_NE(std::string(arm.what()).find("l.toml:12: arms.grown.model.grow_layers"),
            std::string::npos)
      << arm.what();
}

TEST(OptionSchema, ATrainerRefusesAnOptionOfAnotherTaskByName) {
  RunConfig c;
  c.task = Task::squaring;
  c.model.vocab_size = 17;
  c.model.positions = Positions::learned;
  c.model.attention = AttentionMask::bidirectional;
  c.model.seq_len = 64;
  EXPECT_NO_THROW(validateRunConfig(c, "c"));
  c.model.qk_norm = true;
  const UserError e = errorOf([&] { validateRunConfig(c, "c"); });
  EXPECT_NE(std::string(e.what()).find("model.qk_norm: true is not supported by the "
                                       "squaring trainer"),
            std::string::npos)
      << e.what();
  RunConfig lm;
  lm.squaring.tier = "E3";
  EXPECT_THROW(validateRunConfig(lm, "c"), UserError);
}

TEST(OptionSchema, JsonAndTomlPathsRunTheSameValidation) {
  RunConfig c;
  c.model.n_head = 128;  // more heads than width: a head size of 0
  nlohmann::json json = encodeRunConfig(c, false);
  EXPECT_THROW(runConfigFromJson(json), UserError);
  EXPECT_THROW(parseRunConfigToml("[model]\nn_head = 128\n", "r.toml"), UserError);
  c = RunConfig{};
  c.train.device = "cuda:abc";
  EXPECT_THROW(runConfigFromJson(encodeRunConfig(c, false)), UserError);
  c.train.device = "cuda:1";
  EXPECT_NO_THROW(runConfigFromJson(encodeRunConfig(c, false)));
}

TEST(OptionSchema, EveryOptionIsDocumentedAndTheOptionsPageIsCurrent) {
  const std::string markdown = optionsReferenceMarkdown();
  for (const OptionSpec& spec : runOptionSchema())
    EXPECT_NE(markdown.find("| `" + std::string(spec.key) + "`"), std::string::npos)
        << spec.qualifiedKey();
  const std::string page = readFile(std::string(DEEPLADDER_SOURCE_DIR) + "/docs/options.md");
  const std::string begin = "<!-- options:begin -->\n", end = "<!-- options:end -->";
  const size_t a = page.find(begin), b = page.find(end);
  ASSERT_NE(a, std::string::npos) << "docs/options.md has no generated options section";
  ASSERT_NE(b, std::string::npos);
  EXPECT_EQ(page.substr(a + begin.size(), b - a - begin.size()), markdown)
      << "docs/options.md is out of date: run "
         "scripts/update-readme-options (deepladder options --markdown)";
}

}  // namespace
}  // namespace deepladder::options

namespace deepladder::options {
namespace {

// Every shipped run and ladder file reads and validates under the schema.
TEST(OptionSchema, EveryShippedRunAndLadderFileIsValid) {
  namespace fs = std::filesystem;
  const fs::path resources = fs::path(DEEPLADDER_SOURCE_DIR) / "resources";
  int files = 0;
  for (const auto& entry : fs::directory_iterator(resources / "runs")) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(loadRunConfigToml(entry.path().string()));
    ++files;
  }
  for (const auto& entry : fs::directory_iterator(resources / "ladders")) {
    SCOPED_TRACE(entry.path().string());
    EXPECT_NO_THROW(ladder::loadLadder(entry.path().string()));
    ++files;
  }
  EXPECT_GE(files, 10);
}

}  // namespace
}  // namespace deepladder::options

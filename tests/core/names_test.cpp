// Names that become paths or job names: one rule (core/names.h) for ladder, arm, size and run
// names, checked when a ladder is read, with FILE:LINE and a bounded echo; no two runs of a
// ladder can share a directory (repeated seeds, arm/size names that collide).
#include "core/names.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"

using namespace deepladder;

namespace {

std::string ladderWith(const std::string& name, const std::string& arms,
                       const std::string& sizes =
                           "{ name = \"s\", d_model = 32, n_layer = 1, "
                           "n_head = 2 }",
                       const std::string& seeds = "[1]") {
  return "[ladder]\nname = \"" + name + "\"\nseeds = " + seeds +
         "\n[model]\nseq_len = 16\n[train]\nbatch_size = 2\n[sizes]\nlist = [ " + sizes +
         " ]\n[budget]\nrule = \"tokens\"\ntokens = 3200\n" + arms;
}

std::string errorOf(const std::string& text) {
  try {
    ladder::parseLadder(text, "l.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(Names, TheRuleAcceptsPlainNamesAndRefusesTheRest) {
  for (const char* good : {"vanilla", "d12", "untied_grow", "a.b", "x+y", "-", "A-9_.+"})
    EXPECT_FALSE(nameProblem(good)) << good;
  for (const std::string& bad :
       {std::string(), std::string("."), std::string(".."), std::string("../x"),
        std::string("/abs"), std::string("a b"), std::string("a\nb"), std::string("a\0b", 3),
        std::string("\x1b[31mred"), std::string("caf\xc3\xa9"), std::string(65, 'a')})
    EXPECT_TRUE(nameProblem(bad)) << bad;
  EXPECT_FALSE(nameProblem(std::string(kMaxNameLength, 'a')));
}

TEST(Names, PathTraversalInEveryNameIsRefusedAtItsLine) {
  std::string e = errorOf(ladderWith("../../etc", "[arms.vanilla]\n"));
  EXPECT_NE(e.find("l.toml:2: ladder.name: ladder name \"../../etc\""), std::string::npos) << e;
  e = errorOf(ladderWith("ok", "[arms.\"../escape\"]\n"));
  EXPECT_NE(e.find("l.toml:13:"), std::string::npos) << e;
  EXPECT_NE(e.find("arm name \"../escape\""), std::string::npos) << e;
  e = errorOf(
      ladderWith("ok", "[arms.vanilla]\n", "{ name = \"/tmp/x\", d_model = 32, n_layer = 1 }"));
  EXPECT_NE(e.find("size name \"/tmp/x\""), std::string::npos) << e;
  EXPECT_NE(e.find("l.toml:9:"), std::string::npos) << e;
  e = errorOf(ladderWith("ok", "[arms.\"\"]\n"));
  EXPECT_NE(e.find("is empty"), std::string::npos) << e;
  e = errorOf(ladderWith("new\\nline", "[arms.vanilla]\n"));
  EXPECT_NE(e.find("\\x0A"), std::string::npos) << e;  // shown escaped, never raw
  EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  e = errorOf(ladderWith("ok", "[arms.\"\\u001b[2J\"]\n"));
  EXPECT_NE(e.find("\\x1B"), std::string::npos) << e;
  EXPECT_EQ(e.find('\x1b'), std::string::npos) << e;
}

TEST(Names, AHugeNameIsEchoedAsABoundedPrefix) {
  const std::string huge(5 << 20, 'n');
  for (const std::string& text :
       {ladderWith(huge, "[arms.vanilla]\n"), ladderWith("ok", "[arms." + huge + "]\n")}) {
    const std::string e = errorOf(text);
    EXPECT_NE(e.find("characters long"), std::string::npos) << e.substr(0, 300);
    EXPECT_LT(e.size(), 1000u);
  }
}

TEST(Names, RepeatedSeedsWouldShareADirectory) {
  const std::string e = errorOf(ladderWith(
      "ok", "[arms.vanilla]\n", "{ name = \"s\", d_model = 32, n_layer = 1 }", "[1, 1]"));
  EXPECT_NE(e.find("l.toml:3: ladder.seeds: seed 1 appears twice"), std::string::npos) << e;
}

TEST(Names, CollidingArmAndSizeNamesAreRefusedNamingBoth) {
  const std::string e =
      errorOf(ladderWith("ok", "[arms.a-b]\npreset = \"vanilla\"\n[arms.a]\npreset = \"vanilla\"\n",
                         "{ name = \"c\", d_model = 32, n_layer = 1 }, "
                         "{ name = \"b-c\", d_model = 32, n_layer = 1 }"));
  EXPECT_NE(e.find("arm \"a-b\" size \"c\""), std::string::npos) << e;
  EXPECT_NE(e.find("arm \"a\" size \"b-c\""), std::string::npos) << e;
  EXPECT_NE(e.find("\"a-b-c-s1\""), std::string::npos) << e;
  EXPECT_NE(e.find("l.toml:"), std::string::npos) << e;
}

TEST(Names, RunDirectoriesMustLieUnderTheirRoot) {
  EXPECT_TRUE(isInsideDirectory("/work/root", "/work/root/l-1234/run"));
  EXPECT_TRUE(isInsideDirectory("/work/root/", "/work/root/run"));
  EXPECT_FALSE(isInsideDirectory("/work/root", "/work/root"));
  EXPECT_FALSE(isInsideDirectory("/work/root", "/work/root/.."));
  EXPECT_FALSE(isInsideDirectory("/work/root", "/work/root/../root2/x"));
  EXPECT_FALSE(isInsideDirectory("/work/root", "/work/rootish/x"));
  EXPECT_FALSE(isInsideDirectory("/work/root", "/etc/passwd"));
  EXPECT_THROW(requireInsideDirectory("/work/root", "/work/root/../../etc"), std::logic_error);
}

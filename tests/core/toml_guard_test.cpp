// The TOML nesting guard: a dotted key of 40,000 parts (an 80 KB file) overflowed the stack of
// Debian's toml++ 3.3 in plan, run, train and the worker; now every TOML entry point refuses it
// with FILE:LINE before toml++ sees it. Every shipped ladder and run file passes the guard.
#include "core/toml_guard.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/run_config.h"

using namespace deepladder;

namespace {

std::string dottedKey(int parts) {
  std::string key = "a";
  for (int i = 1; i < parts; ++i) key += ".a";
  return key;
}

std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string ladderError(const std::string& text) {
  try {
    ladder::parseLadder(text, "deep.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST(TomlGuard, FortyThousandDottedPartsAreRefusedByTheLadderReader) {
  const std::string text = "[ladder]\nname = \"x\"\n" + dottedKey(40000) + " = 1\n";
  const std::string error = ladderError(text);
  EXPECT_NE(error.find("deep.toml:3:"), std::string::npos) << error.substr(0, 200);
  EXPECT_NE(error.find("nested too deeply"), std::string::npos) << error.substr(0, 200);
  EXPECT_LT(error.size(), 400u);
}

TEST(TomlGuard, DeepHeadersArraysAndInlineTablesAreRefused) {
  EXPECT_TRUE(tomlGuardProblem("[" + dottedKey(40000) + "]\n", "f"));
  EXPECT_TRUE(tomlGuardProblem("[[" + dottedKey(100) + "]]\n", "f"));
  EXPECT_TRUE(tomlGuardProblem("x = " + std::string(300, '[') + std::string(300, ']'), "f"));
  std::string inline_tables = "x = ";
  for (int i = 0; i < 100; ++i) inline_tables += "{ a = ";
  EXPECT_TRUE(tomlGuardProblem(inline_tables + "1" + std::string(100, '}'), "f"));
  // A dotted key inside an inline table inside an array: the levels add up.
  EXPECT_TRUE(tomlGuardProblem("x = " + std::string(50, '[') + "{" + dottedKey(50) + " = 1}", "f"));
}

TEST(TomlGuard, DotsAndBracketsInStringsAndCommentsDoNotCount) {
  const std::string many_dots(100000, '.');
  EXPECT_FALSE(tomlGuardProblem("a = \"" + many_dots + "\"\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = '" + std::string(1000, '[') + "'\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = \"\"\"\n" + many_dots + "\n\"\"\"\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = '''" + std::string(1000, '{') + "'''\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("# " + many_dots + std::string(1000, '[') + "\na = 1\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = \"\\\"" + many_dots + "\"\n", "f"));  // escaped quote
  EXPECT_FALSE(tomlGuardProblem("x = [1.5, 2.5, 3.5]\ny = 1979-05-27T07:32:00.999\n", "f"));
  // Lines are counted through multi-line strings.
  const auto problem = tomlGuardProblem("a = \"\"\"\n\n\n\"\"\"\n" + dottedKey(100) + " = 1", "f");
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("f:5:"), std::string::npos) << *problem;
}

TEST(TomlGuard, EveryShippedFilePasses) {
  int checked = 0;
  for (const char* dir : {"resources/ladders", "resources/runs"})
    for (const auto& entry :
         std::filesystem::directory_iterator(std::string(DEEPLADDER_SOURCE_DIR) + "/" + dir)) {
      const auto problem = tomlGuardProblem(readFile(entry.path()), entry.path().string());
      EXPECT_FALSE(problem) << *problem;
      ++checked;
    }
  EXPECT_GE(checked, 10);
}

TEST(TomlGuard, RunFilesAreGuardedToo) {
  EXPECT_THROW(checkTomlGuard("name = \"x\"\n" + dottedKey(40000) + " = 1\n", "run.toml"),
               UserError);
  EXPECT_NO_THROW(checkTomlGuard("name = \"x\"\n[model]\nd_model = 32\n", "run.toml"));
}

// Found by fuzzing: toml++ 3.3 reaches an "unreachable" point (undefined behaviour) on a
// non-ASCII character where it looks for whitespace or a bare key; TOML allows none there.
TEST(TomlGuard, NonAsciiOutsideStringsIsRefusedInsideStringsAndCommentsIsFine) {
  const auto problem = tomlGuardProblem("a = 1\ncaf\xc3\xa9 = 2\n", "f.toml");
  ASSERT_TRUE(problem);
  EXPECT_NE(problem->find("f.toml:2: a non-ASCII character outside a quoted string"),
            std::string::npos)
      << *problem;
  EXPECT_TRUE(
      tomlGuardProblem("a =\xc2\xa0"
                       "1\n",
                       "f"));  // a no-break space
  EXPECT_FALSE(tomlGuardProblem("\"caf\xc3\xa9\" = 'th\xc3\xa9'  # caf\xc3\xa9\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = \"\"\"\n\xd0\x96\n\"\"\"\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("\xEF\xBB\xBFname = \"x\"\n", "f"));  // a byte order mark
  EXPECT_THROW(ladder::parseLadder("[ladder]\nname = \"x\"\n[arms.caf\xc3\xa9]\n", "l.toml"),
               UserError);
  // A quote inside a bare value opens no string for toml++, which reads on past it (fuzzing).
  EXPECT_TRUE(tomlGuardProblem("q_len = 1287-4\"l\xd0\x9a# = ", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = [ 'x', \"y\" ]\nb = { c = 'd' }\n'e'.\"f\" = 1\n", "f"));
  // In a multi-line basic string toml++ asks its whitespace table about the character after a
  // backslash and about those after a line-ending backslash (fuzzing).
  EXPECT_TRUE(tomlGuardProblem("a = \"\"\"\\\xd0\x9a\"\"\"\n", "f"));
  EXPECT_TRUE(tomlGuardProblem("a = \"\"\"x \\\n\n   \xd0\x9a\"\"\"\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = \"\"\"x \\\n   y\xd0\x9a \\n\"\"\"\n", "f"));
  EXPECT_FALSE(tomlGuardProblem("a = '''\\\xd0\x9a'''\nb = \"\\\xd0\x9a\"\n", "f"));
}

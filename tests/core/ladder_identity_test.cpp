// A ladder's identity is the hash of its parsed content (core/ladder/ladder_identity.h): a hash
// of the file's bytes made CRLF line endings or one added comment "a new ladder" whose every run
// trained again. Layout and spelling keep the hash; any changed value changes it.
#include "core/ladder/ladder_identity.h"

#include <gtest/gtest.h>

#include "core/ladder/ladder_spec.h"

using namespace deepladder;
using namespace deepladder::ladder;

namespace {

const std::string kLadder = R"([ladder]
name = "t"
seeds = [1, 2]
[model]
seq_len = 32
[train]
batch_size = 4
lr = 0.003
[sizes]
depths = [2, 3]
width_per_depth = 32
head_dim = 16
[budget]
rule = "tokens"
tokens = 2048
[arms.vanilla]
[arms.swiglu]
model = { mlp = "swiglu" }
)";

std::string withCrlf(const std::string& text) {
  std::string out;
  for (char c : text) out += c == '\n' ? std::string("\r\n") : std::string(1, c);
  return out;
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

std::string hashOf(const std::string& text) {
  return parseLadder(text, "ladder.toml").hash;
}

}  // namespace

TEST(LadderIdentity, CrlfLineEndingsAndCommentsKeepTheLadder) {
  const std::string base = hashOf(kLadder);
  EXPECT_EQ(base.size(), 16u);
  EXPECT_EQ(hashOf(withCrlf(kLadder)), base);
  EXPECT_EQ(hashOf("# my ladder, tuned on Monday\n" + kLadder + "# the end\n"), base);
  std::string commented = kLadder;
  commented = replaced(commented, "lr = 0.003", "lr = 0.003   # the paper's rate");
  EXPECT_EQ(hashOf(commented), base);
}

TEST(LadderIdentity, LayoutAndKeyOrderKeepTheLadder) {
  const std::string base = hashOf(kLadder);
  std::string spaced = kLadder;
  spaced = replaced(spaced, "batch_size = 4\nlr = 0.003", "lr=0.003\n\n  batch_size   =   4");
  EXPECT_EQ(hashOf(spaced), base);
  std::string dotted = kLadder;  // an inline table written as a sub-table
  dotted = replaced(dotted, "model = { mlp = \"swiglu\" }", "model.mlp = 'swiglu'");
  EXPECT_EQ(hashOf(dotted), base);
}

TEST(LadderIdentity, AnyChangedValueIsANewLadder) {
  const std::string base = hashOf(kLadder);
  std::string lr = kLadder;
  lr = replaced(lr, "lr = 0.003", "lr = 0.004");
  EXPECT_NE(hashOf(lr), base);
  std::string seeds = kLadder;
  seeds = replaced(seeds, "seeds = [1, 2]", "seeds = [2, 1]");  // order is the run order
  EXPECT_NE(hashOf(seeds), base);
  std::string arm = kLadder;
  arm = replaced(arm, "mlp = \"swiglu\"", "mlp = \"gelu\"");
  EXPECT_NE(hashOf(arm), base);
  // An integer and a float are different values in TOML (and to the readers of some keys).
  EXPECT_NE(ladderIdentityHash(std::string("a = 1\n"), "x"),
            ladderIdentityHash(std::string("a = 1.0\n"), "x"));
  EXPECT_NE(ladderIdentityHash(std::string("a = \"inf\"\n"), "x"),
            ladderIdentityHash(std::string("a = inf\n"), "x"));
}

TEST(LadderIdentity, TheCanonicalContentIsSortedJson) {
  EXPECT_EQ(
      canonicalLadderContent(toml::parse("b = 2\na = [1.5, true, 'x']\n[c]\nd = 1979-05-27\n")),
      R"({"a":[1.5,true,"x"],"b":2,"c":{"d":{"toml date":"1979-05-27"}}})");
}

// Input that used to pass `plan` (or `run`) and fail later, silently or with a crash: each is now
// refused when the file is read, at its line. A validation set with no window (the run "finished"
// with validation loss 0.0), a head wider than the model (SIGFPE), a device list the local
// backend cannot parse ("stoi" after queueing), an arm restricted to a size that does not exist
// (the arm vanished), and budgets that are not finite or overflow (1-step runs).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/errors.h"
#include "core/ladder/ladder_spec.h"
#include "core/options/option_toml.h"

using namespace deepladder;

namespace {

std::string ladderText(const std::string& extra_train = "",
                       const std::string& budget = "rule = \"tokens\"\ntokens = 64000\n",
                       const std::string& arms = "[arms.vanilla]\n",
                       const std::string& resources = "") {
  return "[ladder]\nname = \"t\"\n[model]\nseq_len = 32\nn_head = 2\n[train]\nbatch_size = 4\n" +
         extra_train + "[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 }, " +
         "{ name = \"b\", d_model = 64, n_layer = 2 } ]\n[budget]\n" + budget + arms +
         "[resources]\n" + resources;
}

std::string ladderError(const std::string& text) {
  try {
    ladder::parseLadder(text, "l.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string runError(const std::string& text) {
  try {
    options::parseRunConfigToml(text, "run.toml");
  } catch (const UserError& e) {
    return e.what();
  }
  return "";
}

std::string resource(const std::string& path) {
  std::ifstream in(std::string(DEEPLADDER_SOURCE_DIR) + "/" + path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  if (at != std::string::npos) text.replace(at, from.size(), to);
  return text;
}

}  // namespace

TEST(RefusedBeforeQueueing, AValidationSetWithoutOneWindow) {
  const std::string e = runError(
      "[model]\nvocab_size = 50257\nseq_len = 64\n[data]\nkind = \"shards\"\ntrain = \"t.bin\"\n"
      "val = \"v.bin\"\nval_tokens = 10\n");
  EXPECT_NE(e.find("run.toml:8: data.val_tokens: 10 tokens hold no validation window"),
            std::string::npos)
      << e;
  EXPECT_NE(
      runError("[train]\neval_batches = 1000000\nbatch_size = 64\n").find("train.eval_batches"),
      std::string::npos);
}

TEST(RefusedBeforeQueueing, AHeadWiderThanTheModel) {
  // The issue's example: head_dim 64 in growth-cpu.toml (widths 36..60).
  std::string e = ladderError(
      replaced(resource("resources/ladders/growth-cpu.toml"), "head_dim = ", "head_dim = 64 #"));
  EXPECT_NE(e.find("head_dim 64 is wider than"), std::string::npos) << e;
  e = ladderError(replaced(resource("resources/ladders/growth-fineweb.toml"), "head_dim = 128",
                           "head_dim = 771"));
  EXPECT_NE(e.find("head_dim 771 is wider than depth 6's width 768"), std::string::npos) << e;
  e = runError("[model]\nd_model = 32\nn_head = 64\n");
  EXPECT_NE(e.find("model.n_head"), std::string::npos) << e;
}

TEST(RefusedBeforeQueueing, ADeviceListTheBackendCannotRead) {
  for (const char* bad : {"gpu0", "0,,1", "0,0", "-1", "cuda:0", "0, 1", ""}) {
    const std::string e =
        ladderError(ladderText("", "rule = \"tokens\"\ntokens = 64000\n", "[arms.vanilla]\n",
                               "devices = \"" + std::string(bad) + "\"\n"));
    EXPECT_NE(e.find("l.toml:15: resources.devices"), std::string::npos) << bad << ": " << e;
  }
  for (const char* good : {"auto", "cpu", "0", "0,1,3", "12"})
    EXPECT_EQ(ladderError(ladderText("", "rule = \"tokens\"\ntokens = 64000\n", "[arms.vanilla]\n",
                                     "devices = \"" + std::string(good) + "\"\n")),
              "")
        << good;
  EXPECT_NE(runError("[train]\ndevice = \"cuda:abc\"\n").find("train.device"), std::string::npos);
}

TEST(RefusedBeforeQueueing, AnArmRestrictedToAnUnknownSize) {
  const std::string e = ladderError(ladderText("", "rule = \"tokens\"\ntokens = 64000\n",
                                               "[arms.vanilla]\nsizes = [\"a\", \"c\"]\n"));
  EXPECT_NE(e.find("l.toml:"), std::string::npos) << e;
  EXPECT_NE(e.find("arms.vanilla.sizes: unknown size \"c\""), std::string::npos) << e;
  EXPECT_NE(e.find("a, b"), std::string::npos) << e;
}

TEST(RefusedBeforeQueueing, BudgetsThatAreNotFiniteOrOverflow) {
  for (const char* flops : {"[nan]", "[inf]", "[1e300]", "[0.5]", "[-1e15]", "[1e15, nan]"}) {
    const std::string e =
        ladderError(ladderText("", "rule = \"flops\"\nflops = " + std::string(flops) + "\n"));
    EXPECT_NE(e.find("budget.flops"), std::string::npos) << flops << ": " << e;
  }
  for (const char* flops : {"nan", "inf", "1e300"})
    EXPECT_NE(ladderError(ladderText("", "rule = \"flops\"\nflops = " + std::string(flops) + "\n"))
                  .find("budget.flops"),
              std::string::npos)
        << flops;
  // 1e9 tokens per parameter is allowed by its range; the tokens it gives are what matters.
  const std::string huge =
      ladderError(replaced(replaced(ladderText(), "rule = \"tokens\"\ntokens = 64000",
                                    "rule = \"tokens_per_param\"\n"
                                    "tokens_per_param = 1e9"),
                           "d_model = 64, n_layer = 2", "d_model = 4096, n_layer = 64"));
  EXPECT_NE(huge.find("budget.tokens_per_param: the budget gives arm \"vanilla\" size \"a\""),
            std::string::npos)
      << huge;
  EXPECT_NE(huge.find("more than 2.75e+11 (at most 2147483647 steps of 128)"), std::string::npos)
      << huge;
  const std::string e = ladderError(ladderText("", "rule = \"tokens\"\ntokens = 10\n"));
  EXPECT_NE(e.find("less than one step of 128"), std::string::npos) << e;
}

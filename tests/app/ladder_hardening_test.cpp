// Careless ladders through the real binaries: sweeps the ladder would override and sweep products
// too large to plan are refused by `plan` (exit 2, before expansion); `import` never takes a
// trained ladder's name and replaces an import only with --replace; a cancelled run is continued
// with `resume --retry`, and `resume --threads` is honoured; a run stopped by a full disk (a tmpfs
// of a few pages in a private mount namespace) is interrupted, leaves no ckpt-*.pt.tmp, and
// `resume` finishes it once space is freed.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "core/ladder/ladder_spec.h"
#include "core/run_status.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// A ladder of one tiny run (`steps` x 4 x 32 tokens) on this test's corpus, plus `extra`.
std::string tinyLadder(const std::string& dir, int steps, const std::string& extra = "") {
  return "[ladder]\nname = \"h\"\nseeds = [1]\n[model]\nseq_len = 32\nn_head = 2\n[data]\n"
         "kind = \"text\"\ntrain = \"" +
         dir + "/train.txt\"\nval = \"" + dir +
         "/val.txt\"\n[train]\nbatch_size = 4\nwarmup_steps = 1\neval_every = 5\neval_batches = "
         "1\ncheckpoint_every = 5\nthreads = 1\n[sizes]\nlist = [ { name = \"a\", d_model = 32, "
         "n_layer = 1 } ]\n[budget]\nrule = \"tokens\"\ntokens = " +
         std::to_string(steps * 4 * 32) +
         "\n[arms.vanilla]\n[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 1\n"
         "retries = 0\n" +
         extra;
}

std::string frontierCsv(const std::string& arm) {
  std::string csv = "arm,compute_flops,val_loss\n";
  for (double c : {1e15, 1e16, 1e17, 1e18})
    csv += arm + "," + std::to_string(c) + "," + std::to_string(2 + 3 * std::pow(c / 1e18, -0.1)) +
           "\n";
  return csv;
}

class LadderHardeningTest : public CliTest {};

}  // namespace

// --- item 9 and 10: sweeps ---------------------------------------------------------------------

TEST_F(LadderHardeningTest, PlanRefusesSweepsTheLadderWouldOverride) {
  writeCorpus();
  write("steps.toml", tinyLadder(dir_.string(), 10, "[sweep]\ntrain.steps = [4, 8]\n"));
  CommandResult r = deepladder({"plan", path("steps.toml")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "sweep.train.steps")) << r.err;
  EXPECT_TRUE(contains(r.err, "[budget] (rule \"tokens\") sets train.steps")) << r.err;

  write("width.toml", tinyLadder(dir_.string(), 10, "[sweep]\nmodel.d_model = [32, 64]\n"));
  r = deepladder({"plan", path("width.toml")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "[sizes] sets model.d_model of each rung (size \"a\"")) << r.err;

  write("ghost.toml",
        tinyLadder(dir_.string(), 10, "[arms.vanila.sweep]\ntrain.lr_mult = [0.5, 1]\n"));
  r = deepladder({"plan", path("ghost.toml")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "arm \"vanila\" is declared by nothing but its sweep table"))
      << r.err;
  EXPECT_TRUE(contains(r.err, "the file's arms: vanilla")) << r.err;
}

TEST_F(LadderHardeningTest, PlanRefusesAHugeSweepProductAtOnce) {
  writeCorpus();
  std::string sweep = "[sweep]\n";
  for (const char* key :
       {"lr_mult", "beta1", "beta2", "weight_decay", "min_lr_ratio", "decay_fraction", "grad_clip"})
    sweep +=
        std::string("train.") + key + " = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9]\n";
  write("huge.toml", tinyLadder(dir_.string(), 10, sweep));
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = deepladder({"plan", path("huge.toml")});
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "10000000 runs (at most 10000)")) << r.err;
  EXPECT_LT(seconds, 10.0) << "43 s and 3.4 GB before the fix";
}

// --- item 12: imports --------------------------------------------------------------------------

TEST_F(LadderHardeningTest, ImportNeverTakesATrainedLaddersNameAndReplacesOnlyWhenAsked) {
  write("a.csv", frontierCsv("vanilla"));
  write("b.csv", frontierCsv("other"));
  storage::Database::open(path("runs.db"))->upsertLadder("x", "[ladder]\nname = \"x\"\n", "0123");
  CommandResult r = deepladder({"import", path("a.csv"), "--db", path("runs.db"), "--name", "x"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "\"x\" is a trained ladder")) << r.err;
  EXPECT_TRUE(storage::Database::open(path("runs.db"))->externalPoints("x").empty());

  r = deepladder({"import", path("a.csv"), "--db", path("runs.db"), "--name", "y"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = deepladder({"import", path("b.csv"), "--db", path("runs.db"), "--name", "y"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "already imported")) << r.err;
  EXPECT_EQ(storage::Database::open(path("runs.db"))->externalPoints("y")[0].arm, "vanilla");
  r = deepladder({"import", path("b.csv"), "--db", path("runs.db"), "--name", "y", "--replace"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(storage::Database::open(path("runs.db"))->externalPoints("y")[0].arm, "other");
}

// --- near misses: resume ----------------------------------------------------------------------

TEST_F(LadderHardeningTest, ACancelledRunIsContinuedWithResumeRetryOnTheThreadsAsked) {
  writeCorpus();
  write("ladder.toml", tinyLadder(dir_.string(), 10));
  {
    auto db = storage::Database::open(path("runs.db"));
    const auto spec = ladder::loadLadder(path("ladder.toml"));
    storage::enqueueLadder(*db, spec, path("work"));
  }
  CommandResult r = deepladder({"cancel", "all", "--db", path("runs.db")});
  ASSERT_EQ(r.code, 0) << r.err;
  r = deepladder({"resume", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "nothing to resume")) << r.out;
  r = deepladder({"resume", "--db", path("runs.db"), "--retry", "7"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "run 7 is not in")) << r.err;

  r = deepladder({"resume", "--db", path("runs.db"), "--retry", "1", "--threads", "3"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "run 1 queued again")) << r.err;
  EXPECT_TRUE(contains(r.err, "cpu0(3 thr)")) << r.err;
  EXPECT_EQ(storage::Database::open(path("runs.db"))->run(1)->status, RunStatus::kFinished);
  // A finished run is not retried.
  r = deepladder({"resume", "--db", path("runs.db"), "--retry", "1"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "run 1 is finished; only a failed or cancelled run is retried"))
      << r.err;
}

// --- near misses: a full disk ------------------------------------------------------------------

// A tmpfs of a few pages holds the work directory, in a mount namespace of its own (so no mount
// outlives the test): the first checkpoint does not fit. Skipped where mount namespaces are not
// allowed.
TEST_F(LadderHardeningTest, ARunStoppedByAFullDiskResumesOnceSpaceIsFreed) {
  if (std::system("unshare -m true >/dev/null 2>&1") != 0)
    GTEST_SKIP() << "no mount namespaces here (unshare -m): a full disk cannot be made";
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 20));
  const std::string bin = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder";
  const std::string work = path("small");
  const std::string script = "set -u; mkdir -p " + work + " && mount -t tmpfs -o size=64k tmpfs " +
                             work + " || exit 99; " + bin + " train " + path("run.toml") +
                             " --db " + path("runs.db") + " --workdir " + work + " > " +
                             path("train.out") + " 2> " + path("train.err") + "; echo $? > " +
                             path("train.code") + "; ls -R " + work + " > " + path("after.ls") +
                             "; mount -o remount,size=16m " + work + " && " + bin +
                             " resume --db " + path("runs.db") + " > " + path("resume.out") +
                             " 2> " + path("resume.err") + "; echo $? > " + path("resume.code");
  const int rc = std::system(("unshare -m sh -c '" + script + "'").c_str());
  if (WEXITSTATUS(rc) == 99) GTEST_SKIP() << "tmpfs cannot be mounted here";
  auto slurp = [&](const std::string& name) {
    std::ifstream in(path(name));
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string train_err = slurp("train.err");
  EXPECT_NE(std::stoi(slurp("train.code")), 0) << train_err;
  EXPECT_TRUE(contains(train_err, "full disk")) << train_err;
  EXPECT_TRUE(contains(train_err, "deepladder resume")) << train_err;
  EXPECT_FALSE(contains(slurp("after.ls"), ".tmp")) << slurp("after.ls");
  EXPECT_EQ(std::stoi(slurp("resume.code")), 0) << slurp("resume.err");
  const auto run = storage::Database::open(path("runs.db"))->run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::kFinished) << run->error;
  EXPECT_EQ(run->step, 20);
}

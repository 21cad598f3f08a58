// Sweep halving end to end through the real binaries (`deepladder run`, `deepladder resume
// --stopped`, `deepladder-worker`, real SQLite): in a tiny swept ladder whose smallest learning
// rate cannot win, halving stops that point mid-run (status stopped, its decision stored, its
// step short of the end); `resume --stopped` reopens it and trains it from its last checkpoint to
// the end, and its final loss is exactly the one the same run config reaches in one uninterrupted
// worker process. The ladder's runs validate at the halving fraction (train.eval_at). The points of
// the two smallest rungs (the calibration rungs) are never judged and run to their end.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "core/run_status.h"
#include "storage/database.h"
#include "storage/run_store_sqlite.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

// Long enough that the stop (judged at half the run, then sent at the scheduler's next
// once-a-second check) reaches the run while it still trains, on a loaded machine too. Judged at
// half, not a tenth: at a tenth the x1 points are still in their steep fall, each at its own
// pace (their gains to the end differ by 50%), so every interval spans the rung and nothing can
// be stopped; by half their gains agree within a few percent.
constexpr int kSteps = 2000;

// Three rungs of one arm, each swept over lr_mult 0.001, 1, 1.5 on one CPU slot. The rungs'
// centre points (x1) run first, then the two smallest rungs' other points (never judged), so the
// arm has finished runs at every rate (what calibrates a curve prediction's interval) before the
// biggest rung's x0.001 point is judged; x0.001 barely leaves its initial loss.
std::string sweptLadder(const std::string& dir) {
  return "[ladder]\nname = \"halved\"\nseeds = [1]\n[model]\nseq_len = 32\nn_head = 2\n[data]\n"
         "max_epochs = 20\nkind = \"text\"\ntrain = \"" +
         dir + "/train.txt\"\nval = \"" + dir +
         "/val.txt\"\n[train]\nbatch_size = 4\nwarmup_steps = 2\neval_every = 200\n"
         "eval_batches = 2\ncheckpoint_every = 50\nthreads = 1\n[sizes]\nlist = [ "
         "{ name = \"a\", d_model = 16, n_layer = 1 }, { name = \"b\", d_model = 16, n_layer = 2 "
         "}, { name = \"c\", d_model = 32, n_layer = 1 } ]\n[budget]\nrule = \"tokens\"\ntokens "
         "= " +
         std::to_string(kSteps * 4 * 32) +
         "\n[arms.vanilla]\n[sweep]\ntrain.lr_mult = [0.001, 1, 1.5]\nstop = \"halving\"\n"
         "stop_fractions = [0.5]\n[resources]\nbackend = \"local\"\ndevices = \"cpu\"\n"
         "slots = 1\nretries = 0\n";
}

// Words drawn at random from a small list (a fixed generator): a corpus no tiny model can
// memorise, so that losses settle near its entropy and a learning rate too small to learn stays
// far above them.
void writeRandomWords(const std::string& train, const std::string& val) {
  static const char* const kWords[] = {"ladder", "depth", "growth", "loss",  "curve", "rate",
                                       "sweep",  "rung",  "arm",    "seed",  "fit",   "law",
                                       "model",  "layer", "token",  "step",  "decay", "warm",
                                       "norm",   "state", "serial", "prime", "power", "mod"};
  const size_t n = sizeof(kWords) / sizeof(kWords[0]);
  uint64_t state = 20240520;
  auto text = [&](int words) {
    std::string out;
    for (int i = 0; i < words; ++i) {
      state = state * 6364136223846793005ULL + 1442695040888963407ULL;
      out += kWords[(state >> 33) % n];
      out += (i % 12 == 11) ? "\n" : " ";
    }
    return out;
  };
  std::ofstream(train) << text(24000);
  std::ofstream(val) << text(2000);
}

// The final loss in a worker's protocol lines (its "done" line).
double finalLossOf(const std::string& protocol) {
  std::istringstream lines(protocol);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] != '{') continue;
    const nlohmann::json j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_discarded() && j.value("type", "") == "done") return j.at("final_loss").get<double>();
  }
  ADD_FAILURE() << "no done line in:\n" << protocol;
  return 0;
}

class HalvingResumeTest : public CliTest {};

}  // namespace

TEST_F(HalvingResumeTest, AStoppedPointResumesToTheFinalLossOfAnUninterruptedRun) {
  writeRandomWords(path("train.txt"), path("val.txt"));
  write("ladder.toml", sweptLadder(dir_.string()));
  const CommandResult run = deepladder({"run", path("ladder.toml"), "--db", path("runs.db")});
  ASSERT_EQ(run.code, 0) << run.err;

  int64_t stopped_id = 0;
  storage::RunRecord stopped;
  {
    auto db = storage::Database::open(path("runs.db"));
    const auto ladder = db->findLadder("halved");
    ASSERT_TRUE(ladder);
    int n_stopped = 0;
    std::vector<storage::RunRecord> records;
    for (const storage::RunSummary& s : db->listRuns(*ladder)) records.push_back(s.run);
    const std::set<int64_t> calibration = storage::calibrationRuns(records);
    EXPECT_EQ(calibration.size(), 6u);  // the two smallest rungs' three points
    for (const storage::RunRecord& r : records) {
      // The two smallest rungs' points are never judged: they run to their end.
      if (calibration.count(r.id)) EXPECT_EQ(r.status, RunStatus::kFinished) << r.name;
      if (r.status != RunStatus::kStopped) continue;
      ++n_stopped;
      // Only the points that cannot win are stopped.
      EXPECT_NE(r.name.find("lr_mult0.001"), std::string::npos) << r.name;
      if (stopped_id == 0) {
        stopped_id = r.id;
        stopped = r;
      }
    }
    ASSERT_GT(n_stopped, 0) << "no point was stopped:\n" << run.err;
    EXPECT_LT(stopped.step, stopped.plan.steps) << "the stop came after the run's end";
    bool decision_stored = false;
    for (const storage::DecisionRecord& d : db->decisions(*ladder))
      decision_stored |= d.kind == "halving-stop" && d.run_id == stopped_id;
    EXPECT_TRUE(decision_stored);
    // Halving adds its fraction to train.eval_at: the point validates where it is judged.
    EXPECT_EQ(nlohmann::json::parse(stopped.config_json)["train"]["eval_at"], "0.5");
  }

  // The same run config, trained in one go by a worker of its own.
  const CommandResult uninterrupted =
      worker({"--config", stopped.workdir + "/config.json", "--workdir", path("uninterrupted"),
              "--run-id", "1", "--threads", "1"});
  ASSERT_EQ(uninterrupted.code, 0) << uninterrupted.err;
  const double reference = finalLossOf(uninterrupted.out);

  const CommandResult resumed = deepladder(
      {"resume", "--db", path("runs.db"), "--stopped", std::to_string(stopped_id), "--quiet"});
  ASSERT_EQ(resumed.code, 0) << resumed.err;
  EXPECT_NE(resumed.err.find("reopened"), std::string::npos) << resumed.err;
  const auto after = storage::Database::open(path("runs.db"))->run(stopped_id);
  ASSERT_TRUE(after);
  EXPECT_EQ(after->status, RunStatus::kFinished) << after->error;
  EXPECT_EQ(after->step, stopped.plan.steps);
  ASSERT_TRUE(after->final_loss);
  // Training on the CPU is deterministic and a checkpoint restores everything the run depends on
  // (weights, optimizer state, data position, RNG): the resumed run ends where the uninterrupted
  // one does, to the last bit.
  EXPECT_EQ(*after->final_loss, reference);
}

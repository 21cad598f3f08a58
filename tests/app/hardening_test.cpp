// Hostile and careless input through the real binaries: each case once crashed, hung, escaped the
// work directory or exited with a raw library message; now each exits 2 with a message that names
// the file (and line) in a few lines, or simply works. No case may end on a signal.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <chrono>
#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "core/ladder/ladder_spec.h"
#include "core/protocol.h"
#include "core/run_config.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "tests/app/cli_fixture.h"
#include "trainers/data/token_data.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

std::string deepKey() {
  std::string key = "a";
  for (int i = 0; i < 40000; ++i) key += ".a";  // 80 KB: overflowed toml++ 3.3's stack
  return key;
}

std::string tinyLadder(const std::string& name, const std::string& arms, const std::string& data,
                       const std::string& seeds = "[1]") {
  return "[ladder]\nname = \"" + name + "\"\nseeds = " + seeds +
         "\n[model]\nseq_len = 32\nn_head = 2\n[data]\n" + data +
         "[train]\nbatch_size = 4\nwarmup_steps = 1\neval_every = 5\neval_batches = 1\n"
         "checkpoint_every = 5\nthreads = 1\n"
         "[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 } ]\n"
         "[budget]\nrule = \"tokens\"\ntokens = 640\n" +
         arms + "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 1\nretries = 2\n";
}

// A frontier CSV the fits accept: vanilla and one more arm, four rungs each.
std::string frontierCsv(const std::string& other_arm) {
  std::string csv = "arm,compute_flops,val_loss\n";
  for (double c : {1e15, 1e16, 1e17, 1e18}) {
    csv += "vanilla," + std::to_string(c) + "," +
           std::to_string(2.0 + 3.0 * std::pow(c / 1e18, -0.1)) + "\n";
    csv += other_arm + "," + std::to_string(c) + "," +
           std::to_string(2.0 + 2.8 * std::pow(c / 1e18, -0.11)) + "\n";
  }
  return csv;
}

}  // namespace

TEST_F(CliTest, DeeplyDottedKeysExit2InEveryTomlEntryPoint) {
  writeCorpus();
  write("deep-ladder.toml", "[ladder]\nname = \"x\"\n" + deepKey() + " = 1\n");
  write("deep-run.toml", "name = \"x\"\n\n" + deepKey() + " = 1\n");
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"plan", path("deep-ladder.toml")},
           {"run", path("deep-ladder.toml"), "--db", path("runs.db")},
           {"train", path("deep-run.toml"), "--db", path("runs.db")}}) {
    const CommandResult r = deepladder(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err.substr(0, 300);
    EXPECT_NE(r.err.find(".toml:3: TOML nested too deeply"), std::string::npos)
        << args[0] << ": " << r.err.substr(0, 300);
    EXPECT_LT(r.err.size(), 1000u);
  }
  const CommandResult w =
      worker({"--config", path("deep-run.toml"), "--workdir", path("w"), "--run-id", "1"});
  EXPECT_EQ(w.code, 2) << w.err.substr(0, 300);
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, NamesThatWouldEscapeTheWorkDirectoryExit2AndWriteNothing) {
  writeCorpus();
  const std::string data =
      "kind = \"text\"\ntrain = \"" + path("train.txt") + "\"\nval = \"" + path("val.txt") + "\"\n";
  write("escape-arm.toml", tinyLadder("ok", "[arms.\"../../escaped\"]\n", data));
  write("escape-ladder.toml", tinyLadder("/tmp/escaped", "[arms.vanilla]\n", data));
  for (const char* file : {"escape-arm.toml", "escape-ladder.toml"}) {
    for (const char* command : {"plan", "run"}) {
      std::vector<std::string> args = {command, path(file)};
      if (std::string(command) == "run") args.insert(args.end(), {"--db", path("runs.db")});
      const CommandResult r = deepladder(args);
      EXPECT_EQ(r.code, 2) << file << " " << command << ": " << r.err;
      EXPECT_NE(r.err.find("name \""), std::string::npos) << r.err;
      EXPECT_NE(r.err.find(file + std::string(":")), std::string::npos) << r.err;
    }
  }
  std::string run_file = tinyConfig(dir_.string(), 3);
  run_file.replace(run_file.find("cli-tiny"), 8, "../../escaped");
  write("escape-run.toml", run_file);
  const CommandResult r = deepladder({"train", path("escape-run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("run name \"../../escaped\""), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
  EXPECT_FALSE(fs::exists(dir_.parent_path() / "escaped"));
  EXPECT_FALSE(fs::exists(path("deepladder-work")));
}

TEST_F(CliTest, RepeatedSeedsAndAHugeNameExit2WithABoundedMessage) {
  write("seeds.toml", tinyLadder("ok", "[arms.vanilla]\n", "", "[1, 1]"));
  CommandResult r = deepladder({"plan", path("seeds.toml")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("seeds.toml:3: ladder.seeds: seed 1 appears twice"), std::string::npos)
      << r.err;
  write("huge.toml", tinyLadder(std::string(5 << 20, 'n'), "[arms.vanilla]\n", ""));
  r = deepladder({"plan", path("huge.toml")});
  EXPECT_EQ(r.code, 2);
  EXPECT_LT(r.err.size(), 1000u) << "a 5 MB name was echoed";
}

TEST_F(CliTest, NonUtf8ShardNameIsACleanWorkerErrorNotAnAbort) {
  fs::create_directories(path("shards"));
  std::ofstream(path("shards/train_caf\xe9.bin"), std::ios::binary) << std::string(2048, 'x');
  RunConfig config;
  config.name = "latin1";
  config.model.vocab_size = 50257;
  config.data.kind = DataKind::shards;
  config.data.train = path("shards") + "/*.bin";
  config.data.val = config.data.train;
  write("run.json", toJson(config).dump());
  const CommandResult r =
      worker({"--config", path("run.json"), "--workdir", path("w"), "--run-id", "1"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(r.signalled);
  bool saw_error = false;
  std::istringstream lines(r.out);
  for (std::string line; std::getline(lines, line);)
    if (auto m = protocol::decode(line))
      if (auto* e = std::get_if<protocol::Error>(&*m))
        saw_error = e->message.find("bad magic") != std::string::npos;
  EXPECT_TRUE(saw_error) << r.out;
}

TEST_F(CliTest, NonUtf8ArmInACsvExits2NamingTheCell) {
  write("latin1.csv", frontierCsv("caf\xe9"));
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"fit", "--csv", path("latin1.csv"), "--json", "--bootstrap", "0"},
           {"export", "--csv", path("latin1.csv"), "--format", "json", "--bootstrap", "0"},
           {"import", path("latin1.csv"), "--db", path("runs.db")}}) {
    const CommandResult r = deepladder(args);
    EXPECT_EQ(r.code, 2) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("latin1.csv:3:1"), std::string::npos) << args[0] << ": " << r.err;
    EXPECT_NE(r.err.find("UTF-8"), std::string::npos) << args[0] << ": " << r.err;
  }
}

TEST_F(CliTest, ACsvWithAByteOrderMarkIsRead) {
  write("bom.csv", "\xEF\xBB\xBF" + frontierCsv("deep"));
  const CommandResult r =
      deepladder({"fit", "--csv", path("bom.csv"), "--json", "--bootstrap", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(nlohmann::json::accept(r.out)) << r.out;
}

TEST_F(CliTest, AnAbsurdBootstrapCountExits2AtOnce) {
  write("ok.csv", frontierCsv("deep"));
  const auto start = std::chrono::steady_clock::now();
  const CommandResult r = deepladder({"fit", "--csv", path("ok.csv"), "--bootstrap", "2000000000"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("--bootstrap"), std::string::npos) << r.err;
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30);
}

TEST_F(CliTest, AStrayCheckpointNameDoesNotBreakResume) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 3));
  fs::create_directories(path("w"));
  write("w/ckpt-99999999999999999999.pt", "not ours");
  const CommandResult r =
      worker({"--config", path("run.toml"), "--workdir", path("w"), "--run-id", "1", "--resume"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("\"type\":\"done\""), std::string::npos) << r.out;
}

TEST_F(CliTest, ADatabaseWithACorruptPageIsNotWrittenTo) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 3));
  int64_t root = 0;
  {
    auto db = storage::Database::open(path("runs.db"));
    std::vector<storage::MetricRow> rows;
    for (int step = 0; step < 20000; ++step) rows.push_back({0, "x", step, step, 1.0, 1.0, 0.0});
    storage::RunRecord run;
    run.name = "r";
    const int64_t id = db->insertRun(run);
    for (auto& row : rows) row.run_id = id;
    db->writeMetrics(rows);
    root = db->queryInt("SELECT rootpage FROM sqlite_schema WHERE name = 'metrics'");
  }
  {
    // Scribble over the header of the metrics b-tree's root page (16 KiB pages).
    std::fstream file(path("runs.db"), std::ios::in | std::ios::out | std::ios::binary);
    file.seekp((root - 1) * 16384);
    file << std::string(64, 'Z');
  }
  const CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("is damaged"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("deepladder-work")));
}

TEST_F(CliTest, StatusReadsADatabaseInAReadOnlyDirectory) {
  fs::create_directories(path("ro"));
  {
    auto db = storage::Database::open(path("ro/runs.db"));
    storage::RunRecord run;
    run.name = "visible-run";
    db->insertRun(run);
  }
  ::chmod(path("ro/runs.db").c_str(), 0444);
  ::chmod(path("ro").c_str(), 0555);
  ::chmod(dir_.c_str(), 0755);
  CommandResult r;
  if (::geteuid() == 0) {  // root writes anywhere: look as the unprivileged user instead
    if (!fs::exists("/usr/bin/setpriv")) GTEST_SKIP() << "needs setpriv to drop root";
    r = runProgram("/usr/bin/setpriv", {"--reuid=65534", "--regid=65534", "--clear-groups",
                                        std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder",
                                        "status", "--db", path("ro/runs.db")});
  } else {
    r = deepladder({"status", "--db", path("ro/runs.db")});
  }
  ::chmod(path("ro").c_str(), 0755);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("visible-run"), std::string::npos) << r.out;
}

TEST_F(CliTest, MissingDataIsFoundBeforeQueueingAndABadInputWorkerIsNotRetried) {
  const std::string data = "kind = \"text\"\ntrain = \"" + path("missing.txt") + "\"\nval = \"" +
                           path("missing.txt") + "\"\n";
  write("ladder.toml", tinyLadder("bad-data", "[arms.vanilla]\n", data));
  CommandResult r = deepladder({"run", path("ladder.toml"), "--db", path("runs.db"), "--quiet"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("missing.txt"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("ladder.toml (vanilla-a-s1))"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db"))) << "queued before its data was checked";
  // Queued anyway (say the file went away afterwards): the worker exits 2, and it is not retried.
  {
    auto db = storage::Database::open(path("runs.db"));
    storage::enqueueLadder(*db, ladder::loadLadder(path("ladder.toml")),
                           storage::defaultWorkRoot(path("runs.db")));
  }
  r = deepladder({"resume", "--db", path("runs.db"), "--quiet"});
  EXPECT_EQ(r.code, 1) << r.err;
  auto db = storage::Database::open(path("runs.db"), true);
  const auto run = db->run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_EQ(run->attempt, 1) << "retried although the worker said bad input: " << run->error;
  EXPECT_NE(run->error.find("missing.txt"), std::string::npos) << run->error;
}

TEST_F(CliTest, ShardTokenIdsBeyondTheVocabularyAreFoundBeforeQueueing) {
  std::vector<uint16_t> tokens(4000, 7);
  tokens[1234] = 300;  // beyond a byte vocabulary
  data::writeShard(path("tokens.bin"), tokens);
  write("run.toml",
        "name = \"ids\"\n[model]\nd_model = 32\nn_layer = 1\nn_head = 2\nseq_len = "
        "32\n[data]\nkind = \"shards\"\ntrain = \"" +
            path("tokens.bin") + "\"\nval = \"" + path("tokens.bin") +
            "\"\nval_tokens = 1000\n[train]\nsteps = 3\nwarmup_steps = 1\nthreads = 1\n");
  const CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("token id 300, but vocab_size is 256"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

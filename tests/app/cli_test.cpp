// The CLI as a user meets it: bad input exits 2 with a message that names the file, line or key
// and writes nothing; a tiny run trains end to end and lands in SQLite.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/worker_process.h"
#include "storage/database.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-cli-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }

  CommandResult deepladder(std::vector<std::string> args) const {
    std::vector<std::string> argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessSpec spec;
    spec.argv = argv;
    spec.stderr_path = path("stderr.txt");
    fs::remove(spec.stderr_path);
    WorkerProcess process(spec);
    CommandResult result;
    ProcessExit exit = process.runToEnd([&](const std::string& line) { result.out += line + "\n"; });
    result.code = exit.exited ? exit.code : 128 + exit.signal;
    std::ifstream in(spec.stderr_path);
    result.err.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  // A small byte-level text corpus for tiny runs.
  void writeCorpus() const {
    std::string text;
    for (int i = 0; i < 400; ++i)
      text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
    write("train.txt", text);
    write("val.txt", text.substr(0, 4000));
  }

  fs::path dir_;
};

std::string tinyConfig(const std::string& data_dir, int steps) {
  return "name = \"cli-tiny\"\n[model]\nd_model = 32\nn_layer = 1\nn_head = 2\nseq_len = 32\n"
         "[data]\nkind = \"text\"\ntrain = \"" + data_dir + "/train.txt\"\nval = \"" + data_dir +
         "/val.txt\"\n[train]\nsteps = " + std::to_string(steps) +
         "\nwarmup_steps = 2\nbatch_size = 4\neval_every = 10\neval_batches = 2\n"
         "checkpoint_every = 10\nthreads = 1\n";
}

}  // namespace

TEST_F(CliTest, MalformedTomlExits2NamingTheLineAndWritesNothing) {
  write("bad.toml", "name = \"x\"\n[model\nd_model = 64\n");
  CommandResult r = deepladder({"train", path("bad.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_NE(r.err.find("bad.toml:2"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, UnknownKeyExits2NamingTheKey) {
  write("bad.toml", "[train]\nstepz = 3\n");
  CommandResult r = deepladder({"train", path("bad.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("train.stepz"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, WrongTypeAndRangeExit2) {
  write("type.toml", "[model]\nd_model = \"wide\"\n");
  CommandResult r = deepladder({"train", path("type.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("model.d_model"), std::string::npos) << r.err;
  write("range.toml", "[train]\nlr = -1.0\n");
  r = deepladder({"train", path("range.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("train.lr"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, MissingDataFileExits2) {
  write("run.toml", "[data]\nkind = \"text\"\ntrain = \"" + path("nope.txt") + "\"\nval = \"" +
                        path("nope.txt") + "\"\n");
  CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("nope.txt"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, BadShardHeaderExits2) {
  std::ofstream(path("bad.bin"), std::ios::binary) << std::string(2048, 'x');
  write("run.toml", "[model]\nvocab_size = 50257\n[data]\nkind = \"shards\"\ntrain = \"" +
                        path("bad.bin") + "\"\nval = \"" + path("bad.bin") + "\"\n");
  CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("magic"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db")));
}

TEST_F(CliTest, UnwritableDatabaseExits2) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 5));
  CommandResult r = deepladder({"train", path("run.toml"), "--db", "/nonexistent/dir/runs.db"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("/nonexistent/dir/runs.db"), std::string::npos) << r.err;
}

TEST_F(CliTest, TinyRunTrainsEndToEndIntoSqlite) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 20));
  CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  ASSERT_EQ(r.code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("finished"), std::string::npos) << r.out;

  auto db = storage::Database::open(path("runs.db"), /*read_only=*/true);
  auto run = db->run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, "finished");
  EXPECT_EQ(run->step, 20);
  EXPECT_EQ(run->tokens, 20 * 4 * 32);
  EXPECT_NEAR(run->flops, double(run->tokens) * run->flops_per_token, 1e-6 * run->flops);
  auto loss = db->readMetric(1, "train/loss");
  ASSERT_EQ(loss.size(), 20u);
  for (size_t i = 0; i < loss.size(); ++i) EXPECT_EQ(loss[i].step, int64_t(i + 1));
  EXPECT_FALSE(db->readMetric(1, "val/loss").empty());

  CommandResult status = deepladder({"status", "--db", path("runs.db")});
  EXPECT_EQ(status.code, 0);
  EXPECT_NE(status.out.find("cli-tiny"), std::string::npos) << status.out;
  EXPECT_NE(status.out.find("finished"), std::string::npos) << status.out;

  CommandResult csv = deepladder({"metrics", "1", "--db", path("runs.db"), "--key", "train/loss", "--csv"});
  EXPECT_EQ(csv.code, 0) << csv.err;
  EXPECT_EQ(std::count(csv.out.begin(), csv.out.end(), '\n'), 21) << csv.out;
}

TEST_F(CliTest, CancelAllCancelsEveryUnfinishedRun) {
  {
    auto db = storage::Database::open(path("runs.db"));
    storage::RunRecord run;
    run.name = "a";
    db->insertRun(run);
    run.name = "b";
    run.status = "finished";
    db->insertRun(run);
  }
  CommandResult r = deepladder({"cancel", "all", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 0) << r.err;
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_EQ(db->run(1)->status, "cancelled");
  EXPECT_EQ(db->run(2)->status, "finished");
  CommandResult bad = deepladder({"cancel", "nope", "--db", path("runs.db")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("neither a run id nor a ladder"), std::string::npos) << bad.err;
}

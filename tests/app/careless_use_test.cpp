// Careless and hostile uses a probe of about 160 of them found mishandled, through the real
// binaries: two databases in one folder, links and FIFOs where files belong, outputs on a full
// device, odd --db targets, run ids out of range, imports that break the ladder files' rules,
// fits asked for the impossible. Each now exits 2 with a message naming what is wrong (or works),
// and leaves nothing half-written behind.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "storage/database.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

// A ladder of one tiny run (`steps` x 4 x 32 tokens) on this test's corpus.
std::string oneRunLadder(const std::string& name, const std::string& dir, int steps = 10) {
  return "[ladder]\nname = \"" + name +
         "\"\nseeds = [1]\n[model]\nseq_len = 32\nn_head = 2\n[data]\nkind = \"text\"\ntrain = \"" +
         dir + "/train.txt\"\nval = \"" + dir +
         "/val.txt\"\n[train]\nbatch_size = 4\nwarmup_steps = 1\neval_every = 5\neval_batches = "
         "1\ncheckpoint_every = 5\nthreads = 1\n[sizes]\nlist = [ { name = \"a\", d_model = 32, "
         "n_layer = 1 } ]\n[budget]\nrule = \"tokens\"\ntokens = " +
         std::to_string(steps * 4 * 32) +
         "\n[arms.vanilla]\n[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 1\n"
         "retries = 0\n";
}

std::string frontierCsv() {
  std::string csv = "arm,compute_flops,val_loss\n";
  for (double c : {1e15, 1e16, 1e17, 1e18}) {
    csv += "vanilla," + std::to_string(c) + "," + std::to_string(2 + 3 * std::pow(c / 1e18, -0.1)) +
           "\n";
    csv += "deep," + std::to_string(c) + "," + std::to_string(2 + 2.8 * std::pow(c / 1e18, -0.11)) +
           "\n";
  }
  return csv;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

class CarelessUseTest : public CliTest {
 protected:
  // `deepladder ARGS > redirect` through the shell (stdout to a device or a file), optionally
  // with the file size limited to `fsize_blocks` KiB (a full disk: writes fail with EFBIG).
  CommandResult shell(const std::string& args, const std::string& redirect,
                      int fsize_blocks = -1) const {
    std::string script = "trap '' XFSZ; ";
    if (fsize_blocks >= 0) script += "ulimit -f " + std::to_string(fsize_blocks) + "; ";
    script += "exec " + std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder " + args;
    if (!redirect.empty()) script += " > " + redirect;
    return runProgram("/bin/sh", {"-c", script});
  }
};

}  // namespace

// --- one work directory per database ---------------------------------------------------------

TEST_F(CarelessUseTest, SecondDatabaseInTheSameFolderIsRefusedWithBothNamed) {
  writeCorpus();
  write("ladder.toml", oneRunLadder("shared", dir_.string()));
  CommandResult a = deepladder({"run", path("ladder.toml"), "--db", path("a.db")});
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_TRUE(contains(a.err, ": finished")) << a.err;
  EXPECT_FALSE(contains(a.err, "finished: \n")) << "an empty reason was printed: " << a.err;
  CommandResult b = deepladder({"run", path("ladder.toml"), "--db", path("b.db"), "--quiet"});
  EXPECT_EQ(b.code, 2) << b.err;
  EXPECT_TRUE(contains(b.err, path("a.db"))) << b.err;
  EXPECT_TRUE(contains(b.err, path("b.db"))) << b.err;
  // With a work directory of its own, b runs.
  b = deepladder(
      {"run", path("ladder.toml"), "--db", path("b.db"), "--workdir", path("b-work"), "--quiet"});
  EXPECT_EQ(b.code, 0) << b.err;
}

TEST_F(CarelessUseTest, MovedProjectResumesInPlaceFromItsCheckpoints) {
  writeCorpus();
  fs::create_directories(path("project"));
  write("project/ladder.toml", oneRunLadder("moved", dir_.string()));
  CommandResult r =
      deepladder({"run", path("project/ladder.toml"), "--db", path("project/runs.db"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  {
    // Queue the run again as if it had been interrupted after its checkpoint at step 10.
    auto db = storage::Database::open(path("project/runs.db"));
    db->setRunStatus(1, RunStatus::kInterrupted);
  }
  fs::rename(path("project"), path("moved-project"));
  // Its newest checkpoint torn: the run falls back to the one before, and says so on the console.
  std::string newest;
  long newest_step = -1;
  for (const auto& entry : fs::recursive_directory_iterator(path("moved-project"))) {
    const std::string name = entry.path().filename().string();  // ckpt-STEP.pt
    if (entry.path().extension() != ".pt" || name.rfind("ckpt-", 0) != 0) continue;
    const long step = std::atol(name.c_str() + 5);
    if (step > newest_step) newest_step = step, newest = entry.path().string();
  }
  ASSERT_FALSE(newest.empty());
  { std::ofstream(newest, std::ios::binary | std::ios::in) << "torn"; }
  r = deepladder({"resume", "--db", path("moved-project/runs.db"), "--quiet"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "warning: ") && contains(r.err, "older checkpoint")) << r.err;
  EXPECT_FALSE(fs::exists(path("project"))) << "the old folder was made again";
  auto db = storage::Database::open(path("moved-project/runs.db"), true);
  const auto run = db->run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::kFinished) << run->error;
  EXPECT_TRUE(contains(run->workdir, path("moved-project"))) << run->workdir;
  bool resumed = false;
  for (const auto& e : db->events(1)) resumed = resumed || e.name == "resumed";
  EXPECT_TRUE(resumed) << "the run restarted from step 0 instead of its checkpoint";
}

// --- links and special files --------------------------------------------------------------------

TEST_F(CarelessUseTest, LinksInTheWorkDirectoryAreNeverWrittenThrough) {
  writeCorpus();
  write("ladder.toml", oneRunLadder("links", dir_.string()));
  // The run directory replaced by a link to a folder outside the work directory: a resume must
  // not write its checkpoints and logs there.
  fs::create_directories(path("elsewhere"));
  CommandResult r = deepladder({"run", path("ladder.toml"), "--db", path("runs.db"), "--quiet"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::string run_dir;
  {
    auto db = storage::Database::open(path("runs.db"), true);
    run_dir = db->run(1)->workdir;
    db.reset();
    auto rw = storage::Database::open(path("runs.db"));
    rw->setRunStatus(1, RunStatus::kInterrupted);
  }
  fs::remove_all(run_dir);
  fs::create_directory_symlink(path("elsewhere"), run_dir);
  r = deepladder({"resume", "--db", path("runs.db"), "--quiet"});
  EXPECT_NE(r.code, 0);
  EXPECT_TRUE(fs::is_empty(path("elsewhere"))) << "something was written through the link";
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_TRUE(contains(db->run(1)->error, "symbolic link")) << db->run(1)->error;
}

TEST_F(CarelessUseTest, AFifoAsDataIsRefusedAtOnce) {
  writeCorpus();
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  const std::string train = dir_.string() + "/train.txt";
  std::string text = oneRunLadder("fifo", dir_.string());
  text.replace(text.find(train), train.size(), path("fifo"));
  write("fifo.toml", text);
  std::string builtin = oneRunLadder("builtin", dir_.string());
  builtin.replace(builtin.find("kind = \"text\""), 13, "kind = \"builtin\"");
  write("builtin.toml", builtin);
  const auto start = std::chrono::steady_clock::now();
  CommandResult r = deepladder({"run", path("fifo.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "FIFO")) << r.err;
  // The corpus of the builtin data: `plan` says why it could not check it, and goes on.
  r = runProgram("/bin/sh",
                 {"-c", "DEEPLADDER_CORPUS=" + path("fifo") + " exec " + DEEPLADDER_BINARY_DIR +
                            "/bin/deepladder plan " + path("builtin.toml")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out + r.err, "FIFO")) << r.out << r.err;
  // /dev/zero: a device, refused as quickly.
  text.replace(text.find(path("fifo")), path("fifo").size(), "/dev/zero");
  write("zero.toml", text);
  r = deepladder({"run", path("zero.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "character device")) << r.err;
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(60));
}

// --- outputs checked at close ---------------------------------------------------------------

TEST_F(CarelessUseTest, OutputsOnAFullDeviceExit2AndLeaveNoPartialFile) {
  write("results.csv", frontierCsv());
  const std::string csv = path("results.csv");
  CommandResult r = shell("export --csv " + csv + " --out /dev/full", "");
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(contains(r.err, "wrote")) << r.err;
  for (const std::string& args : std::vector<std::string>{"fit --csv " + csv + " --bootstrap 0",
                                                          "export --csv " + csv, "options"}) {
    r = shell(args, "/dev/full");
    EXPECT_EQ(r.code, 2) << args << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "standard output")) << args << ": " << r.err;
  }
  // A full disk (no file may grow): the old file, or none, never a cut or empty one.
  write("table.md", "old table\n");
  r = shell("export --csv " + csv + " --out " + path("table.md"), "", /*fsize_blocks=*/0);
  EXPECT_EQ(r.code, 2) << r.err;
  std::ifstream old(path("table.md"));
  EXPECT_EQ(std::string((std::istreambuf_iterator<char>(old)), {}), "old table\n");
  r = shell("export --csv " + csv + " --out " + path("new.md"), "", 0);
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_FALSE(fs::exists(path("new.md")));
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_FALSE(contains(entry.path().filename().string(), "partial")) << entry.path();
  r = shell("options", path("options.txt"), 0);
  EXPECT_EQ(r.code, 2) << r.err;
  // And the normal case still writes.
  r = shell("export --csv " + csv + " --out " + path("table.md"), "");
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_GT(fs::file_size(path("table.md")), 100u);
}

// --- odd --db targets, run ids ---------------------------------------------------------------

TEST_F(CarelessUseTest, DevicesAndBadSchemaVersionsAsDatabasesExit2AndLeaveNothing) {
  for (const char* device : {"/dev/null", "/dev/full"}) {
    CommandResult r = deepladder({"status", "--db", device});
    EXPECT_EQ(r.code, 2) << device << ": " << r.err;
    r = deepladder({"import", path("none.csv"), "--db", device});
    EXPECT_EQ(r.code, 2) << r.err;
    r = deepladder({"cancel", "all", "--db", device});
    EXPECT_EQ(r.code, 2) << device << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "not a regular file")) << r.err;
    EXPECT_FALSE(fs::exists(std::string(device) + "-journal"));
    EXPECT_FALSE(fs::exists(std::string(device) + "-wal"));
  }
  for (const int version : {1, -5}) {
    const std::string db = path("v" + std::to_string(version) + ".db");
    storage::Database::open(db)->execute("PRAGMA user_version = " + std::to_string(version));
    CommandResult r = deepladder({"cancel", "all", "--db", db});
    EXPECT_EQ(r.code, 2) << version << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "user_version")) << r.err;
  }
}

TEST_F(CarelessUseTest, RunIdsOutOfRangeAreRefusedNotWrapped) {
  {
    auto db = storage::Database::open(path("runs.db"));
    storage::RunRecord run;
    run.name = "a";
    db->insertRun(run);
  }
  for (const auto& args : std::vector<std::vector<std::string>>{
           {"cancel", "9223372036854775808", "--db", path("runs.db")},
           {"metrics", "99999999999999999999", "--db", path("runs.db")},
           {"metrics", "0", "--db", path("runs.db")},
           {"lens", "18446744073709551617", "--db", path("runs.db")}}) {
    const CommandResult r = deepladder(args);
    EXPECT_EQ(r.code, 2) << args[0] << " " << args[1] << ": " << r.err;
    EXPECT_TRUE(contains(r.err, "out of range")) << r.err;
    EXPECT_FALSE(contains(r.err, "stoll")) << r.err;
  }
}

// --- cancel reports what happened --------------------------------------------------------------

TEST_F(CarelessUseTest, CancelSaysWhatBecameOfEachRun) {
  {
    auto db = storage::Database::open(path("runs.db"));
    storage::RunRecord run;
    run.name = "queued";
    db->insertRun(run);
    run.name = "done";
    run.status = RunStatus::kFinished;
    db->insertRun(run);
  }
  CommandResult r = deepladder({"cancel", "2", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.out;
  EXPECT_TRUE(contains(r.out, "run 2: finished already")) << r.out;
  r = deepladder({"cancel", "1", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 0) << r.out;
  EXPECT_TRUE(contains(r.out, "run 1: cancelled")) << r.out;
  // A run that ends while it is being cancelled keeps its end, without the cancellation as error.
  auto db = storage::Database::open(path("runs.db"));
  storage::RunRecord run;
  run.name = "racing";
  run.status = RunStatus::kRunning;
  const int64_t id = db->insertRun(run);
  r = deepladder({"cancel", std::to_string(id), "--db", path("runs.db"), "--wait", "0"});
  EXPECT_EQ(r.code, 0) << r.out;
  db->markRunDone(id, RunStatus::kFinished, 2.5, 10, 100, 1e9, 1.0, "");
  EXPECT_EQ(db->run(id)->status, RunStatus::kFinished);
  EXPECT_EQ(db->run(id)->error, "");
}

// --- import and fit ---------------------------------------------------------------------------

TEST_F(CarelessUseTest, ImportAppliesTheLadderRulesAndRefusesDuplicates) {
  write("huge.csv", "arm,compute_flops,val_loss\n" + std::string(100000, 'n') + ",1e18,2.5\n");
  CommandResult r = deepladder({"import", path("huge.csv"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err.substr(0, 300);
  EXPECT_LT(r.err.size(), 1000u);
  EXPECT_TRUE(contains(r.err, "huge.csv:2")) << r.err.substr(0, 300);
  std::string dup = "arm,compute_flops,val_loss\n";
  for (int copy = 0; copy < 2; ++copy)
    for (double c : {1e15, 1e16, 1e17})
      dup += "vanilla," + std::to_string(c) + "," +
             std::to_string(2 + 3 * std::pow(c / 1e18, -0.1)) + "\n";
  write("dup.csv", dup);
  r = deepladder({"import", path("dup.csv"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "dup.csv:5")) << r.err;
  EXPECT_TRUE(contains(r.err, "--allow-duplicates")) << r.err;
  r = deepladder({"import", path("dup.csv"), "--db", path("runs.db"), "--allow-duplicates"});
  EXPECT_EQ(r.code, 0) << r.err;
  r = deepladder({"fit", "--db", path("runs.db"), "--ladder", "dup", "--bootstrap", "0"});
  EXPECT_TRUE(contains(r.err, "no residual degrees of freedom")) << r.code << ": " << r.err;
}

TEST_F(CarelessUseTest, FitRefusesAnEmptyAtWarnsFarOutAndNamesLaddersOfOneName) {
  write("results.csv", frontierCsv());
  CommandResult r = deepladder({"fit", "--csv", path("results.csv"), "--at", ""});
  EXPECT_EQ(r.code, 2) << r.err;
  r = deepladder({"fit", "--csv", path("results.csv"), "--at", "1e308", "--bootstrap", "0"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, "beyond the largest run")) << r.err;
  {
    auto db = storage::Database::open(path("runs.db"));
    db->upsertLadder("twice", "spec one", "hash-one");
    db->upsertLadder("twice", "spec two", "hash-two");
  }
  r = deepladder({"fit", "--db", path("runs.db"), "--ladder", "twice"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "hash-one") && contains(r.err, "hash-two")) << r.err;
}

TEST_F(CarelessUseTest, UnreadableStoredResourcesStopResumeInsteadOfRunningLocally) {
  {
    auto db = storage::Database::open(path("runs.db"));
    const int64_t ladder = db->upsertLadder("slurm", "spec", "hash", "lm", "{not json");
    storage::RunRecord run;
    run.ladder_id = ladder;
    run.name = "r";
    run.status = RunStatus::kInterrupted;
    db->insertRun(run);
  }
  CommandResult r = deepladder({"resume", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "resources")) << r.err;
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_EQ(db->run(1)->status, RunStatus::kInterrupted);
}

// A closed terminal (SIGHUP) stops a ladder like Ctrl-C: its runs end interrupted, resumable,
// instead of the scheduler dying with 129 and leaving them "running".
TEST_F(CarelessUseTest, HangupStopsARunLikeTerminate) {
  std::string text;  // one pass holds the run's 3,000 steps x 4 x 32 tokens
  for (int i = 0; i < 12000; ++i)
    text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
  write("train.txt", text);
  write("val.txt", text.substr(0, 4000));
  write("long.toml", oneRunLadder("hangup", dir_.string(), /*steps=*/3000));
  ProcessSpec spec;
  spec.argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder",
               "run",
               path("long.toml"),
               "--db",
               path("runs.db"),
               "--quiet"};
  spec.stderr_path = path("scheduler.log");
  WorkerProcess scheduler(spec);
  // Waits for the run to be training (its step is stored), however slow the machine is.
  bool training = false;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(300);
  while (!training && std::chrono::steady_clock::now() < deadline) {
    scheduler.poll(100, [](const std::string&) {});
    try {
      auto db = storage::Database::open(path("runs.db"), true);
      const auto run = db->run(1);
      training = run && run->step >= 1;
    } catch (const std::exception&) {
      // not created yet
    }
  }
  ASSERT_TRUE(training);
  ASSERT_EQ(::kill(scheduler.pid(), SIGHUP), 0);
  const ProcessExit exit = scheduler.runToEnd([](const std::string&) {});
  EXPECT_TRUE(exit.exited) << exit.describe();
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_EQ(db->run(1)->status, RunStatus::kInterrupted);
}

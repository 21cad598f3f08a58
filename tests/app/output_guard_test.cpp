// Outputs that cannot destroy inputs, and commands that only read, through the real binaries:
// every `--out` (export, export-weights, plot) refuses the database and its -wal/-shm (also by a
// hard link or another spelling of the path), anything inside a work directory (the run's own
// checkpoints), a device, FIFO or directory, an empty path, a path too long for the system and,
// for export-weights, the weights' own JSON description; each exits 2 with nothing touched. A
// missing train.init_from is refused before any run row is written (and `plan` reports it);
// weights with NaN are refused before training, naming the file and tensor; `fit` reads a
// read-only or immutable database and stores its fit only with --record.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <map>

#include "core/run_status.h"
#include "storage/database.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

std::string readFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

class OutputGuardTest : public CliTest {
 protected:
  // A path of 4,200 bytes in names of 200: over PATH_MAX, though every name is short enough.
  std::string deepPath() const {
    std::string deep;
    for (int i = 0; i < 21; ++i) deep += std::string(200, 'd') + "/";
    return path(deep + "t.csv");
  }

  // Every file under the test folder with its bytes (and every node's kind), but the fixture's
  // own stderr capture: equal before and after a refused command means nothing was touched. A
  // SQLite -shm index counts by its existence only (readers mark their place in it).
  std::map<std::string, std::string> snapshot() const {
    std::map<std::string, std::string> files;
    for (const auto& entry : fs::recursive_directory_iterator(dir_)) {
      const std::string name = entry.path().string();
      if (entry.path().filename() == "stderr.txt") continue;
      struct stat st {};
      ::lstat(name.c_str(), &st);
      const bool shm = name.size() > 4 && name.compare(name.size() - 4, 4, "-shm") == 0;
      files[name] =
          S_ISREG(st.st_mode) && !shm ? readFile(name) : "mode " + std::to_string(st.st_mode);
    }
    return files;
  }

  // A database with ladder "lad": two arms on known laws, four finished rungs each.
  void writeLadderDatabase(const std::string& name) const {
    auto db = storage::Database::open(path(name));
    const int64_t ladder = db->upsertLadder("lad", "[ladder]\nname = \"lad\"\n", "ladhash");
    for (const auto& [arm, A, gamma] :
         {std::tuple{"vanilla", 3.0, 0.1}, std::tuple{"deep", 2.8, 0.11}})
      for (int i = 0; i < 4; ++i) {
        storage::RunRecord r;
        r.ladder_id = ladder;
        r.arm = arm;
        r.size = "c" + std::to_string(i);
        r.name = std::string(arm) + "-" + r.size + "-s1";
        r.flops = 1e15 * std::pow(10.0, i);
        r.status = RunStatus::kFinished;
        r.final_loss = 2.0 + A * std::pow(r.flops / 1e18, -gamma);
        r.finished = 1000 + i;
        db->insertRun(r);
      }
  }

  // `deepladder ARGS` as nobody when root (root writes any file whatever its mode).
  CommandResult unprivileged(const std::vector<std::string>& args) const {
    if (::geteuid() != 0) return deepladder(args);
    std::vector<std::string> argv = {"--reuid=65534", "--regid=65534", "--clear-groups",
                                     std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    argv.insert(argv.end(), args.begin(), args.end());
    return runProgram("/usr/bin/setpriv", argv);
  }

  // Trains run 1 (`steps` steps, checkpoints every 10) with `deepladder train` into runs.db.
  void trainRun(int steps = 10) {
    writeCorpus();
    write("run.toml", tinyConfig(dir_.string(), steps));
    const CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
    ASSERT_EQ(r.code, 0) << r.err;
  }

  // The newest checkpoint of run 1.
  std::string finalCheckpoint() const {
    std::string newest;
    for (const auto& entry : fs::recursive_directory_iterator(path("deepladder-work"))) {
      const std::string name = entry.path().filename().string();
      if (entry.path().extension() == ".pt" && name.rfind("ckpt-", 0) == 0 &&
          entry.path().string() > newest)
        newest = entry.path().string();
    }
    return newest;
  }
};

}  // namespace

// --- export-weights ------------------------------------------------------------------------------

TEST_F(OutputGuardTest, ExportWeightsRefusesEveryOutputThatWouldReplaceAnInput) {
  trainRun();
  const std::string checkpoint = finalCheckpoint();
  ASSERT_FALSE(checkpoint.empty());
  ASSERT_EQ(::link(path("runs.db").c_str(), path("alias.safetensors").c_str()), 0);
  fs::create_directories(path("folder.safetensors"));
  ASSERT_EQ(::mkfifo(path("fifo.safetensors").c_str(), 0644), 0);
  const bool root = ::geteuid() == 0;
  if (root)  // a character device like /dev/full (1, 7), made where the test may remove it
    ASSERT_EQ(::mknod(path("dev.safetensors").c_str(), S_IFCHR | 0666, makedev(1, 7)), 0);
  const std::string long_name = path(std::string(4200, 'a') + ".safetensors");
  struct Case {
    std::string out, says;
  };
  std::vector<Case> cases = {
      {path("runs.db"), "the database"},
      {path("sub/../runs.db"), "the database"},
      {path("runs.db-wal"), "write-ahead log"},
      {path("runs.db-shm"), "shared-memory index"},
      {path("alias.safetensors"), "the database"},  // a hard link: the same inode
      {checkpoint, "inside"},                       // the run's own final checkpoint
      {path("deepladder-work/model.safetensors"), "inside"},
      {path("w.json"), "description would overwrite the weights"},
      {"", "empty"},
      {path("folder.safetensors"), "directory"},
      {path("fifo.safetensors"), "FIFO"},
      {"/dev/full", "character device"},
      {long_name, "longer than the system allows"},
      {deepPath(), "longer than the system allows"},
  };
  deepladder({"status", "--db", path("runs.db")});  // what a reader leaves, before the snapshots
  if (root) cases.push_back({path("dev.safetensors"), "character device"});
  for (const Case& c : cases) {
    SCOPED_TRACE("--out " + c.out.substr(0, 200));
    const auto before = snapshot();
    const CommandResult r =
        deepladder({"export-weights", "1", "--db", path("runs.db"), "--out", c.out});
    EXPECT_EQ(r.code, 2) << r.out << r.err;
    EXPECT_TRUE(contains(r.err, c.says)) << r.err;
    EXPECT_FALSE(contains(r.err, "permissions")) << r.err;
    EXPECT_TRUE(snapshot() == before) << "a refused export touched the folder";
  }
  struct stat st {};
  ASSERT_EQ(::stat("/dev/full", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
  EXPECT_FALSE(fs::exists("/dev/full.json"));
  // The database still opens and holds the run; a good path works.
  EXPECT_TRUE(storage::Database::open(path("runs.db"), true)->run(1).has_value());
  const CommandResult ok = deepladder(
      {"export-weights", "1", "--db", path("runs.db"), "--out", path("out/model.safetensors")});
  ASSERT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(fs::is_regular_file(path("out/model.safetensors")));
  EXPECT_TRUE(fs::is_regular_file(path("out/model.json")));
  EXPECT_TRUE(contains(readFile(path("out/model.json")), "\"model\""));
}

TEST_F(OutputGuardTest, TheWorkerRefusesAnEmptyExportPathInsteadOfTraining) {
  writeCorpus();
  write("run.toml", tinyConfig(dir_.string(), 10));
  const CommandResult r = worker({"--config", path("run.toml"), "--workdir", path("w"), "--run-id",
                                  "1", "--export-weights", ""});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, "--export-weights needs a value")) << r.err;
  EXPECT_FALSE(fs::exists(path("w"))) << "the worker trained instead of refusing";
}

// --- export and plot -----------------------------------------------------------------------------

TEST_F(OutputGuardTest, ExportAndPlotRefuseTheDatabaseTheCsvAndTheWorkDirectory) {
  writeLadderDatabase("e.db");
  std::string csv = "arm,compute_flops,val_loss\n";
  for (double c : {1e15, 1e16, 1e17, 1e18})
    for (const auto& [arm, A, gamma] :
         {std::tuple{"vanilla", 3.0, 0.1}, std::tuple{"deep", 2.8, 0.11}})
      csv += std::string(arm) + "," + std::to_string(c) + "," +
             std::to_string(2.0 + A * std::pow(c / 1e18, -gamma)) + "\n";
  write("results.csv", csv);
  ASSERT_EQ(::link(path("e.db").c_str(), path("hard.csv").c_str()), 0);
  const std::vector<std::string> from_db = {"--db", path("e.db"), "--ladder", "lad"};
  const bool can_plot = deepladder({"plot", "--help"}).code == 0;
  struct Case {
    std::vector<std::string> source;
    std::string out, says;
  };
  const std::vector<Case> cases = {
      {from_db, path("e.db"), "the database"},
      {from_db, path("./e.db"), "the database"},
      {from_db, path("hard.csv"), "the database"},
      {from_db, path("e.db-wal"), "write-ahead log"},
      {from_db, path("deepladder-work/table.csv"), "inside"},
      {from_db, "", "empty"},
      {from_db, "/dev/full", "character device"},
      {{"--csv", path("results.csv")}, path("results.csv"), "the results CSV"},
      {from_db, path(std::string(300, 'n') + ".csv"), "longer than the system allows"},
      {from_db, deepPath(), "longer than the system allows"},
  };
  deepladder({"status", "--db", path("e.db")});  // what a reader leaves, before the snapshots
  for (const Case& c : cases) {
    for (const bool plot : {false, true}) {
      if (plot && !can_plot) continue;
      SCOPED_TRACE((plot ? "plot --out " : "export --out ") + c.out.substr(0, 200));
      std::vector<std::string> args = plot ? std::vector<std::string>{"plot", "frontier"}
                                           : std::vector<std::string>{"export", "--format", "csv"};
      args.insert(args.end(), c.source.begin(), c.source.end());
      args.insert(args.end(), {"--bootstrap", "0", "--out", c.out});
      const auto before = snapshot();
      const CommandResult r = deepladder(args);
      EXPECT_EQ(r.code, 2) << r.out << r.err;
      EXPECT_TRUE(contains(r.err, c.says)) << r.err;
      EXPECT_FALSE(contains(r.err, "permissions") || contains(r.err, "writable")) << r.err;
      EXPECT_TRUE(snapshot() == before) << "a refused output touched the folder";
    }
  }
  const CommandResult ok = deepladder({"export", "--format", "csv", "--db", path("e.db"),
                                       "--ladder", "lad", "--out", path("table.csv")});
  EXPECT_EQ(ok.code, 0) << ok.err;
  EXPECT_TRUE(contains(readFile(path("table.csv")), "deep")) << readFile(path("table.csv"));
}

TEST_F(OutputGuardTest, PlotErrorsNameTheOutPathNotItsTemporary) {
  if (deepladder({"plot", "--help"}).code != 0) GTEST_SKIP() << "built without the plot renderer";
  writeLadderDatabase("e.db");
  const CommandResult r = deepladder({"plot", "frontier", "--db", path("e.db"), "--ladder", "lad",
                                      "--bootstrap", "0", "--out", path("frontier.bmp")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, path("frontier.bmp"))) << r.err;
  EXPECT_FALSE(contains(r.err, "partial")) << r.err;
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_FALSE(contains(entry.path().string(), "partial")) << entry.path();
}

// --- fit only reads -----------------------------------------------------------------------------

TEST_F(OutputGuardTest, FitReadsAReadOnlyDatabaseAndStoresOnlyWithRecord) {
  writeLadderDatabase("e.db");
  const std::vector<std::string> fit = {"fit", "--db",        path("e.db"), "--ladder",
                                        "lad", "--bootstrap", "0"};
  auto fitRows = [&] {
    return storage::Database::open(path("e.db"), true)
        ->queryInt("SELECT count(*) FROM fits WHERE cache_key = ''");  // history, not the cache
  };
  const std::string bytes = readFile(path("e.db"));
  CommandResult r = deepladder(fit);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(fitRows(), 0) << "fit stored a row without --record";
  EXPECT_TRUE(readFile(path("e.db")) == bytes) << "fit changed the database file";
  // Read-only: as an unprivileged user, a fresh file and its folder not writable.
  if (::geteuid() != 0 || fs::exists("/usr/bin/setpriv")) {
    fs::create_directories(path("ro"));
    writeLadderDatabase("ro/r.db");
    ::chmod(path("ro/r.db").c_str(), 0444);
    ::chmod(path("ro").c_str(), 0555);
    ::chmod(dir_.c_str(), 0755);
    std::vector<std::string> read_only = fit;
    read_only[2] = path("ro/r.db");
    r = unprivileged(read_only);
    ::chmod(path("ro").c_str(), 0755);
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "vanilla")) << r.out;
  }
  // Immutable (chattr +i: not even root may write it), where the file system allows it.
  if (::geteuid() == 0 && runProgram("/usr/bin/chattr", {"+i", path("e.db")}).code == 0) {
    r = deepladder(fit);
    runProgram("/usr/bin/chattr", {"-i", path("e.db")});
    EXPECT_EQ(r.code, 0) << r.err;
    EXPECT_TRUE(contains(r.out, "vanilla")) << r.out;
  }
  // --record stores the fit (one row per arm), and says so.
  std::vector<std::string> record = fit;
  record.push_back("--record");
  r = deepladder(record);
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.out, "stored in the fits table")) << r.out;
  EXPECT_EQ(fitRows(), 2);
}

// --- init_from --------------------------------------------------------------------------------

TEST_F(OutputGuardTest, AMissingInitFromIsRefusedBeforeAnyRunRowAndPlanReportsIt) {
  writeCorpus();
  const std::string missing = path("missing.safetensors");
  write("run.toml", tinyConfig(dir_.string(), 10) + "init_from = \"" + missing + "\"\n");
  CommandResult r = deepladder({"train", path("run.toml"), "--db", path("runs.db")});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, missing) && contains(r.err, "train.init_from")) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db"))) << "a run row was written";
  const std::string ladder =
      "[ladder]\nname = \"init\"\nseeds = [1]\n[model]\nseq_len = 32\nn_head = 2\n[data]\n"
      "kind = \"text\"\ntrain = \"" +
      path("train.txt") + "\"\nval = \"" + path("val.txt") +
      "\"\n[train]\nbatch_size = 4\nwarmup_steps = 1\nthreads = 1\ninit_from = \"" + missing +
      "\"\n[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 } ]\n"
      "[budget]\nrule = \"tokens\"\ntokens = 640\n[arms.vanilla]\n"
      "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 1\n";
  write("ladder.toml", ladder);
  r = deepladder({"run", path("ladder.toml"), "--db", path("runs.db"), "--quiet"});
  EXPECT_EQ(r.code, 2) << r.err;
  EXPECT_TRUE(contains(r.err, missing)) << r.err;
  EXPECT_FALSE(fs::exists(path("runs.db"))) << "a run row was written";
  r = deepladder({"plan", path("ladder.toml")});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(contains(r.err, missing) && contains(r.err, "does not exist")) << r.err;
  r = deepladder({"plan", path("ladder.toml"), "--json"});
  EXPECT_TRUE(contains(r.out, "init_from_problem") && contains(r.out, missing)) << r.out;
}

TEST_F(OutputGuardTest, InitFromWeightsWithNanAreRefusedBeforeTrainingNamingTheTensor) {
  trainRun();
  ASSERT_EQ(
      deepladder({"export-weights", "1", "--db", path("runs.db"), "--out", path("w.safetensors")})
          .code,
      0);
  // The last float of the file (the last tensor's last element) made a NaN.
  std::string bytes = readFile(path("w.safetensors"));
  const float nan = std::nanf("");
  std::memcpy(bytes.data() + bytes.size() - 4, &nan, 4);
  std::ofstream(path("nan.safetensors"), std::ios::binary) << bytes;
  write("nan.toml",
        tinyConfig(dir_.string(), 10) + "init_from = \"" + path("nan.safetensors") + "\"\n");
  const CommandResult r = deepladder(
      {"train", path("nan.toml"), "--db", path("nan.db"), "--workdir", path("nan-work")});
  EXPECT_EQ(r.code, 1) << r.err;  // the run failed (bad input), it did not diverge
  EXPECT_FALSE(contains(r.err, "diverged")) << r.err;
  auto db = storage::Database::open(path("nan.db"), true);
  const auto run = db->run(1);
  ASSERT_TRUE(run);
  EXPECT_EQ(run->status, RunStatus::kFailed);
  EXPECT_TRUE(contains(run->error, path("nan.safetensors"))) << run->error;
  EXPECT_TRUE(contains(run->error, "non-finite") && contains(run->error, "tensor \""))
      << run->error;
  EXPECT_EQ(run->step, 0) << "it trained";
}

TEST_F(OutputGuardTest, InitFromFilesThatBreakTheFormatAreRefusedNamingTheTensor) {
  writeCorpus();
  // Hand-made headers: one tensor "a" of 2 floats, named twice; a gap; a trailing byte.
  auto file = [&](const std::string& name, const std::string& header, size_t data_bytes) {
    std::string padded = header;
    padded.append((8 - padded.size() % 8) % 8, ' ');
    std::string bytes(8, '\0');
    const uint64_t size = padded.size();
    std::memcpy(bytes.data(), &size, 8);
    bytes += padded + std::string(data_bytes, '\0');
    std::ofstream(path(name), std::ios::binary) << bytes;
    write(name + ".toml", tinyConfig(dir_.string(), 10) + "init_from = \"" + path(name) + "\"\n");
    return deepladder({"train", path(name + ".toml"), "--db", path(name + ".db"), "--workdir",
                       path(name + "-work")});
  };
  const std::string a = R"("a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]})";
  struct Case {
    std::string name, header;
    size_t data_bytes;
    std::string says;
  };
  for (const Case& c : std::vector<Case>{
           {"twice",
            "{" + a + "," + R"("a":{"dtype":"F32","shape":[0],"data_offsets":[8,8]})" + "}", 8,
            "tensor \"a\" appears twice"},
           {"gap", R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})", 12,
            "belong to no tensor"},
           {"trailing", "{" + a + "}", 9, "1 data bytes follow the end of the last tensor"},
       }) {
    SCOPED_TRACE(c.name);
    const CommandResult r = file(c.name, c.header, c.data_bytes);
    EXPECT_EQ(r.code, 1) << r.err;
    auto db = storage::Database::open(path(c.name + ".db"), true);
    const auto run = db->run(1);
    ASSERT_TRUE(run);
    EXPECT_TRUE(contains(run->error, path(c.name)) && contains(run->error, c.says)) << run->error;
    EXPECT_EQ(run->step, 0);
  }
}

// `deepladder plan` as a user meets it: --json gives every run's micro-batch and peak memory, a
// run that cannot fit resources.device_memory_gb is refused (exit 2) naming the run, the file and
// what would make it fit, and --db with a missing database exits 2.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "core/worker_process.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

class PlanCliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-plan-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  CommandResult deepladder(std::vector<std::string> args) const {
    std::vector<std::string> argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessSpec spec;
    spec.argv = argv;
    spec.stderr_path = path("stderr.txt");
    WorkerProcess process(spec);
    CommandResult result;
    ProcessExit exit =
        process.runToEnd([&](const std::string& line) { result.out += line + "\n"; });
    result.code = exit.exited ? exit.code : 128 + exit.signal;
    std::ifstream in(spec.stderr_path);
    result.err.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  // Two sizes of a small ladder on a device of `device_gb` GB.
  std::string writeLadder(const std::string& device_gb) const {
    const std::string file = path("ladder.toml");
    std::ofstream(file) << "[ladder]\nname = \"p\"\n[model]\nn_head = 2\nseq_len = 512\n"
                           "[data]\nkind = \"builtin\"\n[train]\nbatch_size = 32\n"
                           "[sizes]\ndepths = [2, 4]\nwidth = 64\nhead_dim = 32\n"
                           "[budget]\nrule = \"tokens\"\ntokens = 1e6\n"
                           "[resources]\ndevices = \"cpu\"\nslots = 1\ndevice_memory_gb = "
                        << device_gb << "\n";
    return file;
  }

  fs::path dir_;
};

}  // namespace

TEST_F(PlanCliTest, JsonGivesEveryRunsMicroBatchAndPeakMemory) {
  const CommandResult r = deepladder({"plan", writeLadder("8"), "--json"});
  ASSERT_EQ(r.code, 0) << r.err;
  std::istringstream lines(r.out);
  std::string line;
  int runs = 0;
  while (std::getline(lines, line)) {
    if (line.empty()) continue;
    const nlohmann::json row = nlohmann::json::parse(line);
    ASSERT_TRUE(row.contains("micro_batch")) << line;
    ASSERT_TRUE(row.contains("peak_memory_gb")) << line;
    EXPECT_GE(row["micro_batch"].get<int64_t>(), 1);
    EXPECT_LE(row["micro_batch"].get<int64_t>(), 32);
    EXPECT_GT(row["peak_memory_gb"].get<double>(), 0.0);
    EXPECT_LE(row["peak_memory_gb"].get<double>(), 0.9 * 8);
    ++runs;
  }
  EXPECT_EQ(runs, 2);
}

TEST_F(PlanCliTest, ARunThatCannotFitIsRefusedWithWhatWouldMakeItFit) {
  const std::string file = writeLadder("0.01");  // 10 MB: not even the runtime fits
  const CommandResult r = deepladder({"plan", file});
  EXPECT_EQ(r.code, 2) << r.out << r.err;
  EXPECT_NE(r.err.find("does not fit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("vanilla-d2-s1"), std::string::npos) << r.err;  // the run
  EXPECT_NE(r.err.find(file), std::string::npos) << r.err;             // the file
  EXPECT_NE(r.err.find("To make it fit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("device_memory_gb"), std::string::npos) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;  // nothing half-printed
}

TEST_F(PlanCliTest, AMissingDatabaseExits2) {
  const CommandResult r = deepladder({"plan", writeLadder("8"), "--db", path("none.db")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("none.db"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("none.db")));
}

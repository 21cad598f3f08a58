// `deepladder plan` and `run` against the training data a ladder's runs read: the plan shows
// tokens needed vs available per run (table and JSON), refuses with exit 2 and nothing written a
// ladder whose runs would read their split more than data.max_epochs times, and accepts it when
// the ladder allows the epochs. Data that is not there yet is reported as unknown, not refused.
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

struct Result {
  int code = -1;
  std::string out;
  std::string err;
};

class PlanData : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-plandata-XXXXXX";
    dir_ = mkdtemp(pattern);
    // 13,000 bytes: 200 windows of seq_len 64 (65 tokens).
    std::ofstream(path("train.txt")) << std::string(13'000, 'a');
    std::ofstream(path("val.txt")) << std::string(2'000, 'b');
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // A 2-rung ladder of 16-row steps: d2 runs `steps_small`, d3 `steps_big` steps (fixed token
  // budgets so the windows needed are known).
  std::string ladder(const std::string& data_extra, int64_t tokens) const {
    return "[ladder]\nname = \"pd\"\n[model]\nseq_len = 64\n[data]\nkind = \"text\"\ntrain = \"" +
           path("train.txt") + "\"\nval = \"" + path("val.txt") + "\"\n" + data_extra +
           "[train]\nbatch_size = 16\nwarmup_steps = 0\n[sizes]\ndepths = [2, 3]\n"
           "width_per_depth = 16\nhead_dim = 8\n[budget]\nrule = \"tokens\"\ntokens = " +
           std::to_string(tokens) + "\n[resources]\ndevices = \"cpu\"\n";
  }

  Result deepladder(std::vector<std::string> args) const {
    std::vector<std::string> argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessSpec spec;
    spec.argv = argv;
    spec.stderr_path = path("stderr.txt");
    fs::remove(spec.stderr_path);
    WorkerProcess process(spec);
    Result result;
    const ProcessExit exit =
        process.runToEnd([&](const std::string& line) { result.out += line + "\n"; });
    result.code = exit.exited ? exit.code : 128 + exit.signal;
    std::ifstream in(spec.stderr_path);
    result.err.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  fs::path dir_;
};

TEST_F(PlanData, ReportsTokensNeededAndAvailablePerRun) {
  // 10 steps x 16 windows = 160 of the split's 200 windows: one pass.
  std::ofstream(path("l.toml")) << ladder("", 10 * 16 * 64);
  const Result json = deepladder({"plan", path("l.toml"), "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  std::istringstream lines(json.out);
  std::string line;
  int rows = 0;
  while (std::getline(lines, line)) {
    const auto row = nlohmann::json::parse(line);
    EXPECT_EQ(row["data_tokens_needed"].get<int64_t>(), 160 * 65);
    EXPECT_EQ(row["data_tokens_available"].get<int64_t>(), 13'000);
    EXPECT_EQ(row["data_epochs"].get<int64_t>(), 1);
    ++rows;
  }
  EXPECT_EQ(rows, 2);
  const Result table = deepladder({"plan", path("l.toml")});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("data need/have"), std::string::npos) << table.out;
  EXPECT_NE(table.out.find("10.4k/13.0k"), std::string::npos) << table.out;
}

TEST_F(PlanData, RefusesARunThatWouldRepeatDataUnlessTheLadderAllowsEpochs) {
  // 20 steps x 16 = 320 windows of 200: two passes.
  std::ofstream(path("l.toml")) << ladder("", 20 * 16 * 64);
  for (const std::string command : {"plan", "run"}) {
    std::vector<std::string> args = {command, path("l.toml")};
    if (command == "run") args.insert(args.end(), {"--db", path("runs.db")});
    const Result r = deepladder(args);
    EXPECT_EQ(r.code, 2) << command << ": " << r.err;
    EXPECT_NE(r.err.find("l.toml"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("data.max_epochs"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("reads 20.8k tokens (320 windows of 65), data.train holds 13.0k"),
              std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("max_epochs = 2 under [data]"), std::string::npos) << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;  // refused before anything is printed
    EXPECT_FALSE(fs::exists(path("runs.db")));
  }
  std::ofstream(path("allowed.toml")) << ladder("max_epochs = 2\n", 20 * 16 * 64);
  const Result allowed = deepladder({"plan", path("allowed.toml"), "--json"});
  ASSERT_EQ(allowed.code, 0) << allowed.err;
  EXPECT_NE(allowed.out.find("\"data_epochs\":2"), std::string::npos) << allowed.out;
}

TEST_F(PlanData, DataThatIsNotThereIsReportedNotRefused) {
  std::string text = ladder("", 20 * 16 * 64);
  const std::string train = path("train.txt");
  text.replace(text.find(train), train.size(), path("missing.txt"));
  std::ofstream(path("l.toml")) << text;
  const Result r = deepladder({"plan", path("l.toml")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("/?"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("not checked"), std::string::npos) << r.out;
}

}  // namespace

// Live ladders through the real `deepladder` binary, with tests/app/fake_worker.cpp standing in
// for the worker (a run reports a final loss from a known law in a fraction of a second):
// `run` prints the projection after each finished run; `watch` follows a ladder another process
// runs; `suggest` ranks and is deterministic; `run --adaptive` stops at the budget and at the
// width and stores every decision with its candidates; each finished run is scored against the
// fit made before it (printed and stored in the error log).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "core/worker_process.h"
#include "fitting/frontier_model.h"
#include "fitting/ladder_fit.h"
#include "fitting/live_projection.h"
#include "storage/database.h"
#include "storage/result_points.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

struct CommandResult {
  int code = -1;
  std::string out;
  std::string err;
};

class LiveLadderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-live-XXXXXX";
    dir_ = mkdtemp(pattern);
    std::string text;
    for (int i = 0; i < 200; ++i) text += "a live ladder test line " + std::to_string(i) + "\n";
    std::ofstream(path("train.txt")) << text;
    std::ofstream(path("val.txt")) << text;
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  // vanilla and deep (deep_vanilla preset) at depths 1..4, width 8 per layer, one CPU slot.
  std::string writeLadder(const std::string& name, const std::string& seeds = "[1]") const {
    const std::string text =
        "[ladder]\nname = \"" + name + "\"\nseeds = " + seeds +
        "\n[model]\nseq_len = 16\n[data]\nkind = \"text\"\nmax_epochs = 1000\ntrain = \"" +
        path("train.txt") + "\"\nval = \"" + path("val.txt") +
        "\"\n[train]\nbatch_size = 2\nthreads = 1\neval_every = 1000\n"
        "[sizes]\ndepths = [1, 2, 3, 4]\nwidth_per_depth = 8\nhead_dim = 8\n"
        "[budget]\nrule = \"tokens_per_param\"\ntokens_per_param = 20\n"
        "[arms.vanilla]\n[arms.deep]\npreset = \"deep_vanilla\"\n"
        "[resources]\nbackend = \"local\"\ndevices = \"cpu\"\nslots = 1\nretries = 0\n";
    const std::string file = path(name + ".toml");
    std::ofstream(file) << text;
    return file;
  }

  ProcessSpec spec(std::vector<std::string> args, const std::string& err_name) const {
    ProcessSpec s;
    s.argv = {std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder"};
    s.argv.insert(s.argv.end(), args.begin(), args.end());
    s.stderr_path = path(err_name);
    s.env["DEEPLADDER_FAKE_SLEEP_MS"] = "100";
    fs::remove(s.stderr_path);
    return s;
  }

  CommandResult deepladder(std::vector<std::string> args) const {
    WorkerProcess process(spec(std::move(args), "stderr.txt"));
    CommandResult result;
    const ProcessExit exit =
        process.runToEnd([&](const std::string& line) { result.out += line + "\n"; });
    result.code = exit.exited ? exit.code : 128 + exit.signal;
    std::ifstream in(path("stderr.txt"));
    result.err.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  std::vector<std::string> runArgs(const std::string& ladder) const {
    return {"run", ladder, "--db", path("runs.db"), "--worker", fakeWorker(), "--quiet"};
  }

  static std::string fakeWorker() {
    return std::string(DEEPLADDER_BINARY_DIR) + "/tests/app/fake_worker";
  }

  fs::path dir_;
};

int count(const std::string& text, const std::string& what) {
  int n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

}  // namespace

TEST_F(LiveLadderTest, RunPrintsTheProjectionAfterEveryFinishedRun) {
  const CommandResult r = deepladder(runArgs(writeLadder("live")));
  ASSERT_EQ(r.code, 0) << r.err;
  // One projection line per finished run, 2 arms x 4 depths (and one line that says when the
  // first complete projection came).
  EXPECT_EQ(count(r.err, "projection: ") - count(r.err, "projection: first complete"), 8) << r.err;
  EXPECT_EQ(count(r.err, "projection: first complete"), 1) << r.err;
  // The last line projects deep's multiplier at 1e26 with its interval.
  const std::string last = r.err.substr(r.err.rfind("projection: "));
  EXPECT_NE(last.find("8 runs"), std::string::npos) << last;
  EXPECT_TRUE(std::regex_search(last, std::regex(R"(deep [0-9.e+]+x \[[0-9.e+-]+, [0-9.e+-]+\])")))
      << last;
  EXPECT_NE(last.find("at 1e+26 FLOPs"), std::string::npos) << last;
  // Before the fits are possible, the line says what it waits for.
  EXPECT_NE(r.err.find("waiting"), std::string::npos) << r.err;
  // The fits table holds the cached shares the projection used.
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_GE(db->queryInt("SELECT count(*) FROM fits WHERE cache_key != ''"), 1);
}

TEST_F(LiveLadderTest, RunScoresEachFinishedRunAgainstTheFitMadeBeforeIt) {
  const CommandResult r = deepladder(runArgs(writeLadder("scored")));
  ASSERT_EQ(r.code, 0) << r.err;
  const std::regex line(
      R"(prediction: d[0-9]+ came in at [0-9.]+, predicted [0-9.]+( \[[0-9.]+, [0-9.]+\])?)"
      R"(, [+-][0-9.]+% \((vanilla|deep)\))");
  const int printed = count(r.err, "prediction: ");
  EXPECT_GE(printed, 2) << r.err;
  EXPECT_TRUE(std::regex_search(r.err, line)) << r.err;

  auto db = storage::Database::open(path("runs.db"), true);
  const auto id = db->findLadder("scored");
  ASSERT_TRUE(id);
  const auto scores = db->projectionScores(*id);
  ASSERT_EQ(static_cast<int>(scores.size()), printed);
  const ResultsTable all = storage::ladderResults(*db, *id, "scored");
  fitting::FrontierOptions o = fitting::projectionOptions(fitting::defaultFrontierOptions(), 1e26);
  o.bootstrap = 0;  // the point fit does not depend on the resamples
  auto predict = [&](const ResultsTable& table, const RunPoint& run) {
    fitting::LadderFitter fitter(nullptr, "scored");
    const fitting::FrontierResult fit = fitter.fit(table, o, /*lenient=*/true);
    for (const auto& f : fit.arms)
      if (f.arm == run.arm)
        return fitting::frontierLoss(run.compute_flops, fit.c_ref, f.E, f.A, f.gamma);
    return fitting::kNaN;
  };
  for (const auto& s : scores) {
    size_t i = 0;
    while (i < all.points.size() && all.points[i].run_id != s.run_id) ++i;
    ASSERT_LT(i, all.points.size());
    const RunPoint& run = all.points[i];
    SCOPED_TRACE(run.arm + " " + run.size);
    EXPECT_EQ(s.fitted_runs, static_cast<int>(i));
    EXPECT_DOUBLE_EQ(s.measured_loss, run.val_loss);
    EXPECT_NEAR(s.rel_error, (s.predicted_loss - s.measured_loss) / s.measured_loss, 1e-12);
    // The fit of the runs finished before it, not the one that includes it.
    const ResultsTable before{all.source, {all.points.begin(), all.points.begin() + i}};
    ResultsTable after = before;
    after.points.push_back(run);
    EXPECT_NEAR(s.predicted_loss / predict(before, run), 1.0, 1e-9);
    EXPECT_GT(std::fabs(s.predicted_loss / predict(after, run) - 1.0), 1e-7);
    ASSERT_TRUE(s.lo && s.hi);
    EXPECT_LE(*s.lo, *s.hi);
  }
}

TEST_F(LiveLadderTest, WatchFollowsALadderRunByAnotherProcess) {
  const std::string ladder = writeLadder("watched");
  ProcessSpec run_spec = spec(runArgs(ladder), "run-stderr.txt");
  run_spec.env["DEEPLADDER_FAKE_SLEEP_MS"] = "400";
  WorkerProcess runner(run_spec);
  // Wait for the other process to create the ladder, then follow it.
  for (int i = 0; i < 200 && !fs::exists(path("runs.db")); ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  bool ladder_there = false;
  for (int i = 0; i < 200 && !ladder_there; ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
    try {
      ladder_there =
          storage::Database::open(path("runs.db"), true)->findLadder("watched").has_value();
    } catch (const std::exception&) {
    }
  }
  ASSERT_TRUE(ladder_there);
  const CommandResult w =
      deepladder({"watch", "--db", path("runs.db"), "--ladder", "watched", "--interval", "0.1"});
  ASSERT_EQ(w.code, 0) << w.err;
  const ProcessExit exit = runner.runToEnd([](const std::string&) {});
  ASSERT_TRUE(exit.exited && exit.code == 0);
  // One line per change it saw; it saw the ladder grow and ended with every run.
  const int lines = count(w.out, "projection: ");
  EXPECT_GE(lines, 3) << w.out;
  EXPECT_NE(w.out.find("8 runs"), std::string::npos) << w.out;
  EXPECT_TRUE(std::regex_search(w.out, std::regex(R"(deep [0-9.e+]+x \[)"))) << w.out;
  // Runs that finished while it watched are scored against the fit before them.
  EXPECT_TRUE(std::regex_search(w.out, std::regex(R"(prediction: d[0-9]+ came in at [0-9.]+, )")))
      << w.out;
  std::smatch m;
  std::vector<int> seen;
  std::string rest = w.out;
  while (std::regex_search(rest, m, std::regex(R"(projection: ([0-9]+) run)"))) {
    seen.push_back(std::stoi(m[1]));
    rest = m.suffix();
  }
  EXPECT_TRUE(std::is_sorted(seen.begin(), seen.end())) << w.out;
  EXPECT_EQ(seen.back(), 8);
}

TEST_F(LiveLadderTest, SuggestRanksTheMissingRungsAndIsDeterministic) {
  const std::string ladder = writeLadder("grid");
  ASSERT_EQ(deepladder(runArgs(ladder)).code, 0);
  const std::vector<std::string> args = {"suggest",     "--db",   path("runs.db"), "--ladder",
                                         "grid",        "--json", "--draws",       "4",
                                         "--bootstrap", "40"};
  const CommandResult a = deepladder(args), b = deepladder(args);
  ASSERT_EQ(a.code, 0) << a.err;
  EXPECT_EQ(a.out, b.out) << "same seed, same suggestions";
  const auto j = nlohmann::json::parse(a.out);
  ASSERT_FALSE(j["candidates"].empty());
  // Every grid run is done: candidates are extra seeds and the two larger depths per arm.
  int larger = 0;
  for (const auto& c : j["candidates"]) {
    EXPECT_NE(c["kind"], "grid rung") << c.dump();
    larger += c["kind"] == "larger size";
    EXPECT_TRUE(c["cost_flops"].get<double>() > 0) << c.dump();
    EXPECT_TRUE(c["hours"].is_number()) << c.dump();
  }
  EXPECT_EQ(larger, 4);
  const CommandResult table = deepladder({"suggest", "--db", path("runs.db"), "--ladder", "grid",
                                          "--draws", "4", "--bootstrap", "40", "--top", "3"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("| # | run | kind | cost FLOPs | hours |"), std::string::npos)
      << table.out;
  EXPECT_EQ(count(table.out, "\n| "), 4) << table.out;  // header + 3 rows
}

TEST_F(LiveLadderTest, AdaptiveRunStopsAtTheBudgetAndStoresEveryDecision) {
  const std::string ladder = writeLadder("adaptive");
  // The five cheapest runs are the ones needed before every arm can be fitted (three baseline
  // rungs, two of deep); the budget leaves less than the cheapest run after them.
  const CommandResult plan = deepladder({"plan", ladder, "--json"});
  ASSERT_EQ(plan.code, 0) << plan.err;
  std::vector<double> costs;
  std::stringstream lines(plan.out);
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) costs.push_back(nlohmann::json::parse(line)["flops"].get<double>());
  ASSERT_EQ(costs.size(), 8u);
  std::sort(costs.begin(), costs.end());
  const double budget = costs[0] + costs[1] + costs[2] + costs[3] + costs[4] + 0.5 * costs[0];
  std::vector<std::string> args = runArgs(ladder);
  args.insert(args.end(), {"--adaptive", "--budget", std::to_string(budget)});
  const CommandResult r = deepladder(args);
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.err.find("adaptive ladder stopped"), std::string::npos) << r.err;

  auto db = storage::Database::open(path("runs.db"), true);
  const int64_t id = *db->findLadder("adaptive");
  double spent = 0;
  for (const auto& s : db->listRuns(id)) spent += s.run.flops;
  EXPECT_LE(spent, budget * (1 + 1e-9));
  const auto decisions = db->decisions(id);
  ASSERT_GE(decisions.size(), 5u);
  int queued = 0;
  for (const auto& d : decisions) {
    queued += d.kind == "queue";
    EXPECT_FALSE(nlohmann::json::parse(d.candidates_json).empty()) << d.reason;
    EXPECT_LE(d.spent_flops, budget * (1 + 1e-9));
  }
  EXPECT_EQ(queued, 5);
  EXPECT_EQ(db->listRuns(id).size(), 5u);
  EXPECT_EQ(decisions.back().kind, "stop-budget") << decisions.back().reason;
}

TEST_F(LiveLadderTest, AdaptiveRunStopsAtTheWidth) {
  const std::string ladder = writeLadder("narrow");
  std::vector<std::string> args = runArgs(ladder);
  args.insert(args.end(), {"--adaptive", "--budget", "1e30", "--until-width", "1e6"});
  const CommandResult r = deepladder(args);
  ASSERT_EQ(r.code, 0) << r.err;
  auto db = storage::Database::open(path("runs.db"), true);
  const int64_t id = *db->findLadder("narrow");
  const auto decisions = db->decisions(id);
  ASSERT_FALSE(decisions.empty());
  EXPECT_EQ(decisions.back().kind, "stop-width") << decisions.back().reason;
  // It stopped as soon as every arm had an interval: 3 rungs each (deep's first 2 rungs fit its
  // A and gamma exactly, which gives no interval, so its third was needed).
  std::string names;
  for (const auto& run : db->listRuns(id)) names += run.run.name + " ";
  EXPECT_EQ(db->listRuns(id).size(), 6u) << names;
}

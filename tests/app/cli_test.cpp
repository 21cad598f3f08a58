// The CLI as a user meets it: bad input exits 2 with a message that names the file, line or key
// and writes nothing; a tiny run trains end to end and lands in SQLite; a squaring ladder is
// fitted, exported and plotted on compute vs Max T and OOD accuracy; a loss ladder is fitted by
// the estimator asked for (paper or robust) and says which, and backtested on its own top rungs;
// a depth sweep is plotted against depth.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>

#include "core/run_config.h"
#include "core/run_status.h"
#include "core/sha256.h"
#include "core/worker_process.h"
#include "storage/database.h"
#include "tests/app/cli_fixture.h"

namespace fs = std::filesystem;
using namespace deepladder;

using namespace deepladder::cli_fixture;

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
  EXPECT_EQ(run->status, RunStatus::kFinished);
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

  CommandResult csv =
      deepladder({"metrics", "1", "--db", path("runs.db"), "--key", "train/loss", "--csv"});
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
    run.status = RunStatus::kFinished;
    db->insertRun(run);
  }
  CommandResult r = deepladder({"cancel", "all", "--db", path("runs.db")});
  EXPECT_EQ(r.code, 0) << r.err;
  auto db = storage::Database::open(path("runs.db"), true);
  EXPECT_EQ(db->run(1)->status, RunStatus::kCancelled);
  EXPECT_EQ(db->run(2)->status, RunStatus::kFinished);
  CommandResult bad = deepladder({"cancel", "nope", "--db", path("runs.db")});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("neither a run id nor a ladder"), std::string::npos) << bad.err;
}

// A squaring ladder (task = "squaring") is fitted on compute vs Max T and OOD accuracy, not on
// loss. The fixture database is constructed here: an E1 ladder with two arms, two finished runs
// each, and hand-written evals (depth ladder on 9-bit and 10/11-bit moduli, OOD T, test).
TEST_F(CliTest, SquaringLadderFitExportAndPlotUseMaxTAndOodAccuracy) {
  {
    auto db = storage::Database::open(path("sq.db"));
    const int64_t ladder =
        db->upsertLadder("sq-e1", "[ladder]\nname = \"sq-e1\"\n", "sqhash", "squaring");
    RunConfig config;
    config.task = Task::squaring;
    config.model.vocab_size = 17;
    config.model.positions = Positions::learned;
    config.model.attention = AttentionMask::bidirectional;
    config.model.seq_len = 64;
    config.squaring.tier = "E1";
    // The looped arm's recipe trains on computed intermediate squarings: not admissible.
    RunConfig deep = config;
    deep.model.arch = Arch::pcc;
    deep.model.n_layer = 3;
    deep.model.core_mode = CoreMode::tied;
    deep.squaring.iterations = IterationRule::per_t;
    deep.squaring.reentry = Reentry::straight_through;
    deep.squaring.deep_supervision = 0.7;
    struct Fixture {
      const char* arm;
      double flops;
      int64_t seen_full;  // depth rungs of 9-bit moduli all right up to this T
      int64_t ood_correct;
    };
    for (const Fixture& f : {Fixture{"baseline", 1e13, 0, 10}, Fixture{"baseline", 1e14, 1, 40},
                             Fixture{"looped", 1e13, 1, 60}, Fixture{"looped", 1e14, 4, 160}}) {
      storage::RunRecord r;
      r.ladder_id = ladder;
      r.name = std::string(f.arm) + "-" + std::to_string(static_cast<long long>(f.flops));
      r.arm = f.arm;
      r.status = RunStatus::kFinished;
      r.flops = f.flops;
      r.final_loss = 1.0;
      r.config_json = toJson(std::string(f.arm) == "looped" ? deep : config).dump();
      const int64_t id = db->insertRun(r);
      std::vector<storage::EvalRow> rows = {{id, 50, "squaring/ood_t", 9, 6, f.ood_correct, 288},
                                            {id, 50, "squaring/test", 9, 1, 30, 60}};
      for (int64_t t : {1, 2, 4, 8, 16, 32, 64}) {
        rows.push_back({id, 50, "squaring/depth", 9, t, t <= f.seen_full ? 288 : 200, 288});
        rows.push_back({id, 50, "squaring/depth", 10, t, 0, 100});
      }
      db->writeEvals(rows);
    }
  }
  CommandResult fit = deepladder({"fit", "--db", path("sq.db"), "--ladder", "sq-e1", "--record"});
  ASSERT_EQ(fit.code, 0) << fit.err << fit.out;
  EXPECT_NE(fit.out.find("| looped | 4 | 1e+14 | 4 | 0 | 0.556 | 0.5 | no "
                         "(squaring.deep_supervision) |"),
            std::string::npos)
      << fit.out;
  EXPECT_NE(fit.out.find("| baseline | 2 | 1e+14 | 1 | 0 | 0.139 | 0.5 | yes |"), std::string::npos)
      << fit.out;
  // looped: OOD 60/288 -> 160/288 over one decade: b = 100/288 = 0.3472 per decade.
  EXPECT_NE(fit.out.find("| looped | OOD exact | 2 |"), std::string::npos) << fit.out;
  EXPECT_NE(fit.out.find("0.3472"), std::string::npos) << fit.out;
  {
    auto db = storage::Database::open(path("sq.db"), /*read_only=*/true);
    const auto fits = db->fits("sq-e1");
    ASSERT_EQ(fits.size(), 4u);  // two arms x (ood_exact, rungs_seen)
    EXPECT_EQ(fits[0].form, "ood_exact=a+b*log10(C/1e+15)");
  }

  CommandResult json =
      deepladder({"fit", "--db", path("sq.db"), "--ladder", "sq-e1", "--json", "--c-ref", "1e13"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto parsed = nlohmann::json::parse(json.out);
  EXPECT_DOUBLE_EQ(parsed["c_ref"].get<double>(), 1e13);
  // At C0 = 1e13 the baseline's line starts at its first run: 10/288.
  EXPECT_NEAR(parsed["arms"][0]["fits"]["ood_exact"]["a"].get<double>(), 10.0 / 288, 1e-9);

  CommandResult csv =
      deepladder({"export", "--db", path("sq.db"), "--ladder", "sq-e1", "--format", "csv"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_NE(csv.out.find("looped,4,max_t_seen,1e+14,4,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("looped,4,admissible,1e+14,0,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find("baseline,2,admissible,1e+14,1,"), std::string::npos) << csv.out;
  for (const char* format : {"md", "tex", "json"}) {
    CommandResult table =
        deepladder({"export", "--db", path("sq.db"), "--ladder", "sq-e1", "--format", format});
    ASSERT_EQ(table.code, 0) << table.err;
    EXPECT_NE(table.out.find("dmissible"), std::string::npos) << format << "\n" << table.out;
  }
  EXPECT_NE(csv.out.find("baseline,,rungs_seen.b,,1,"), std::string::npos) << csv.out;

  // Over seeds (the fixture's runs of an arm share one size): mean score, minimum Max T.
  CommandResult seeds =
      deepladder({"squaring", "eval", "--db", path("sq.db"), "--ladder", "sq-e1"});
  ASSERT_EQ(seeds.code, 0) << seeds.err;
  EXPECT_NE(seeds.out.find("looped"), std::string::npos) << seeds.out;
  EXPECT_NE(seeds.out.find("    2    0.500    0.382    0.441       1       0"), std::string::npos)
      << seeds.out;  // looped: test 30/60, OOD (60 + 160) / 576, Max T min(1, 4)
  EXPECT_NE(seeds.out.find("no (squaring.deep_supervision)"), std::string::npos) << seeds.out;
  EXPECT_NE(seeds.out.find(" yes\n"), std::string::npos) << seeds.out;  // the baseline arm
  // One run: the label beside its score; status shows it under every squaring run.
  CommandResult looped = deepladder({"squaring", "eval", "4", "--db", path("sq.db")});
  ASSERT_EQ(looped.code, 0) << looped.err;
  EXPECT_NE(looped.out.find("(mean of test and OOD exact), inadmissible "
                            "(squaring.deep_supervision)"),
            std::string::npos)
      << looped.out;
  CommandResult baseline = deepladder({"squaring", "eval", "1", "--db", path("sq.db")});
  ASSERT_EQ(baseline.code, 0) << baseline.err;
  EXPECT_NE(baseline.out.find("(mean of test and OOD exact), admissible\n"), std::string::npos)
      << baseline.out;
  CommandResult status = deepladder({"status", "--db", path("sq.db")});
  ASSERT_EQ(status.code, 0) << status.err;
  EXPECT_NE(
      status.out.find("squaring: no score logged yet, inadmissible (squaring.deep_supervision)"),
      std::string::npos)
      << status.out;
  EXPECT_EQ(deepladder({"squaring", "eval", "--db", path("sq.db")}).code, 2);  // neither named

  // No compute multiplier to project or to spend a budget on: watch and --adaptive say so.
  CommandResult watch = deepladder({"watch", "--db", path("sq.db"), "--ladder", "sq-e1"});
  EXPECT_EQ(watch.code, 2);
  EXPECT_NE(watch.err.find("squaring eval --ladder sq-e1"), std::string::npos) << watch.err;
  CommandResult adaptive = deepladder(
      {"run", std::string(DEEPLADDER_SOURCE_DIR) + "/resources/ladders/squaring-e1-reentry.toml",
       "--db", path("adaptive.db"), "--adaptive", "--budget", "1e12"});
  EXPECT_EQ(adaptive.code, 2);
  EXPECT_NE(adaptive.err.find("Run it without --adaptive"), std::string::npos) << adaptive.err;
  EXPECT_FALSE(fs::exists(path("adaptive.db")));

  CommandResult chinchilla =
      deepladder({"fit", "--db", path("sq.db"), "--ladder", "sq-e1", "--form", "chinchilla"});
  EXPECT_EQ(chinchilla.code, 2);
  EXPECT_NE(chinchilla.err.find("squaring ladder"), std::string::npos) << chinchilla.err;

  if (deepladder({"plot", "--help"}).code != 0) GTEST_SKIP() << "built without the plot renderer";
  CommandResult plot = deepladder(
      {"plot", "squaring", "--db", path("sq.db"), "--ladder", "sq-e1", "--out", path("sq.png")});
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_GT(fs::file_size(path("sq.png")), 1000u);
}

// `fit --csv` on the growth paper's published ladder (tests/fitting/data/): the paper estimator
// by default gives its digits and says so; --estimator robust the loss-space fit; a bad
// --estimator and --joint under paper exit 2 with a clear message; an arm with a point below
// the shared E is left without a fit, with a warning naming the point.
TEST_F(CliTest, FitChoosesTheEstimatorAndSaysWhichMadeTheTable) {
  const std::string paper_csv =
      std::string(DEEPLADDER_SOURCE_DIR) + "/tests/fitting/data/paper_fineweb_ladders.csv";
  CommandResult paper =
      deepladder({"fit", "--csv", paper_csv, "--json", "--bootstrap", "0", "--at", "1e20,1e26"});
  ASSERT_EQ(paper.code, 0) << paper.err;
  const auto p = nlohmann::json::parse(paper.out);
  EXPECT_EQ(p["estimator"].get<std::string>(), "paper");
  EXPECT_NEAR(p["arms"]["untied_grow"]["gamma"].get<double>(), 0.11679, 5e-5);
  EXPECT_NEAR(p["multipliers"]["untied_grow"]["projected"][1]["multiplier"].get<double>(), 3.10,
              5e-3);

  CommandResult robust = deepladder(
      {"fit", "--csv", paper_csv, "--estimator", "robust", "--bootstrap", "0", "--at", "1e26"});
  ASSERT_EQ(robust.code, 0) << robust.err;
  EXPECT_NE(robust.out.find("Estimator: robust"), std::string::npos) << robust.out;

  CommandResult csv = deepladder(
      {"export", "--csv", paper_csv, "--format", "csv", "--bootstrap", "0", "--at", "1e26"});
  ASSERT_EQ(csv.code, 0) << csv.err;
  EXPECT_NE(csv.out.find("untied_grow,gamma_t,"), std::string::npos) << csv.out;
  EXPECT_NE(csv.out.find(",paper\n"), std::string::npos);

  CommandResult bad = deepladder({"fit", "--csv", paper_csv, "--estimator", "ols"});
  EXPECT_EQ(bad.code, 2);
  EXPECT_NE(bad.err.find("--estimator: 'ols'"), std::string::npos) << bad.err;
  CommandResult joint = deepladder({"fit", "--csv", paper_csv, "--joint"});
  EXPECT_EQ(joint.code, 2);
  EXPECT_NE(joint.err.find("--estimator robust"), std::string::npos) << joint.err;

  // deep's losses fall below vanilla's E (about 2): ln(L - E) is undefined at line 9.
  write("below.csv",
        "arm,compute_flops,val_loss\n"
        "vanilla,1e17,3.2589\nvanilla,1e18,3.0\nvanilla,1e19,2.7943\nvanilla,1e20,2.6310\n"
        "deep,1e17,2.4\ndeep,1e18,2.2\ndeep,1e19,2.05\ndeep,1e20,1.9\n");
  CommandResult below = deepladder({"fit", "--csv", path("below.csv"), "--bootstrap", "0"});
  EXPECT_EQ(below.code, 0) << below.err;
  EXPECT_NE(below.err.find("warning: " + path("below.csv") + ":9: arm deep: no fit"),
            std::string::npos)
      << below.err;
  EXPECT_NE(below.out.find("NO FIT"), std::string::npos) << below.out;
  CommandResult below_robust =
      deepladder({"fit", "--csv", path("below.csv"), "--bootstrap", "0", "--estimator", "robust"});
  EXPECT_EQ(below_robust.code, 0) << below_robust.err;
}

// `fit --backtest K`: the JSON object gains the "backtest" array (exactly the issue's fields) and
// the "backtest_summary"; the table prints the quotable line per k; export and plot carry it.
TEST_F(CliTest, FitBacktestPrintsHeldOutRungsInJsonTableExportAndPlot) {
  const std::string paper_csv =
      std::string(DEEPLADDER_SOURCE_DIR) + "/tests/fitting/data/paper_fineweb_ladders.csv";
  CommandResult json =
      deepladder({"fit", "--csv", paper_csv, "--backtest", "2", "--bootstrap", "20", "--json"});
  ASSERT_EQ(json.code, 0) << json.err;
  const auto j = nlohmann::json::parse(json.out);
  EXPECT_TRUE(j.contains("arms"));  // still the fit's object
  ASSERT_TRUE(j.at("backtest").is_array());
  EXPECT_EQ(j.at("backtest").size(), 8u * (1 + 2));  // eight arms, k = 1 and 2
  for (const auto& e : j.at("backtest")) {
    for (const char* key :
         {"arm", "k", "compute", "measured_loss", "predicted_loss", "rel_error", "lo", "hi",
          "covered", "fit_lo", "fit_hi", "no_interval", "extrapolation"})
      EXPECT_TRUE(e.contains(key)) << key << " in " << e.dump();
    EXPECT_EQ(e.size() == 15,
              e.contains("measured_multiplier") && e.contains("predicted_multiplier"));
    EXPECT_GT(e.at("extrapolation").get<double>(), 1.0);
  }
  EXPECT_EQ(j.at("backtest_summary").at("lines").size(), 2u);
  EXPECT_EQ(j.at("backtest_summary")
                .at("lines")[1]
                .get<std::string>()
                .rfind("held out 2 top rungs per arm: mean |error| ", 0),
            0u);

  CommandResult table =
      deepladder({"fit", "--csv", paper_csv, "--backtest", "1", "--bootstrap", "0"});
  ASSERT_EQ(table.code, 0) << table.err;
  EXPECT_NE(table.out.find("held out 1 top rung per arm: mean |error| "), std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("| arm | k | compute | measured | predicted |"), std::string::npos);

  for (const char* format : {"md", "csv", "tex"}) {
    CommandResult exported = deepladder(
        {"export", "--csv", paper_csv, "--backtest", "1", "--bootstrap", "0", "--format", format});
    ASSERT_EQ(exported.code, 0) << exported.err;
    EXPECT_NE(exported.out.find("untied"), std::string::npos) << format;
  }
  CommandResult bad = deepladder({"fit", "--csv", paper_csv, "--backtest", "0"});
  EXPECT_EQ(bad.code, 2) << bad.err;

  CommandResult plot = deepladder({"plot", "backtest", "--csv", paper_csv, "--backtest", "2",
                                   "--bootstrap", "20", "--out", path("backtest.png")});
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_GT(fs::file_size(path("backtest.png")), 1000u);
}

// `plot depth` on a depth sweep: final loss against the executed depth from each run's config;
// a ladder without finished runs exits 2 saying so.
TEST_F(CliTest, PlotDepthDrawsFinalLossAgainstDepthPerArm) {
  if (deepladder({"plot", "--help"}).code != 0) GTEST_SKIP() << "built without the plot renderer";
  {
    auto db = storage::Database::open(path("ds.db"));
    const int64_t ladder = db->upsertLadder("ds", "[ladder]\nname = \"ds\"\n", "dshash");
    for (const char* arm : {"vanilla", "operator_8"})
      for (int64_t layers : {4, 8, 16}) {
        RunConfig config;
        config.model.n_layer = layers;
        storage::RunRecord r;
        r.ladder_id = ladder;
        r.name = std::string(arm) + "-d" + std::to_string(layers);
        r.arm = arm;
        r.status = RunStatus::kFinished;
        r.final_loss = 3.0 - 0.1 * static_cast<double>(layers) / 4;
        r.config_json = toJson(config).dump();
        db->insertRun(r);
      }
    db->upsertLadder("empty", "[ladder]\nname = \"empty\"\n", "emptyhash");
  }
  CommandResult plot = deepladder(
      {"plot", "depth", "--db", path("ds.db"), "--ladder", "ds", "--out", path("depth.png")});
  ASSERT_EQ(plot.code, 0) << plot.err;
  {  // A PNG of the default size (960 x 600 at 2x): signature and IHDR width and height.
    std::ifstream png(path("depth.png"), std::ios::binary);
    std::string head(24, '\0');
    png.read(head.data(), 24);
    ASSERT_EQ(head.substr(0, 8), std::string("\x89PNG\r\n\x1a\n", 8));
    auto be32 = [&](size_t at) {
      return (uint32_t(uint8_t(head[at])) << 24) | (uint32_t(uint8_t(head[at + 1])) << 16) |
             (uint32_t(uint8_t(head[at + 2])) << 8) | uint32_t(uint8_t(head[at + 3]));
    };
    EXPECT_EQ(be32(16), 1920u);
    EXPECT_EQ(be32(20), 1200u);
  }
  // The content, read from the same plot as SVG: both arms' series in their colours (the first
  // two series colours, ui/plots/plot_style.cpp: #0072b2 and #d55e00), one marker per run
  // (3 depths x 2 arms), and both arms named in the legend.
  CommandResult svg = deepladder(
      {"plot", "depth", "--db", path("ds.db"), "--ladder", "ds", "--out", path("depth.svg")});
  ASSERT_EQ(svg.code, 0) << svg.err;
  std::ifstream svg_file(path("depth.svg"));
  const std::string text((std::istreambuf_iterator<char>(svg_file)), {});
  auto count = [&](const std::string& needle) {
    size_t n = 0;
    for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
      ++n;
    return n;
  };
  EXPECT_GT(count("#0072b2"), 0u) << "no vanilla series";
  EXPECT_GT(count("#d55e00"), 0u) << "no operator_8 series";
  EXPECT_EQ(count("#009e73"), 0u) << "a third series colour in a two-arm plot";
  EXPECT_NE(text.find(">vanilla<"), std::string::npos);
  EXPECT_NE(text.find(">operator_8<"), std::string::npos);
  EXPECT_GE(count("<ellipse") + count("<circle"), 6u) << "one marker per run";
  CommandResult empty = deepladder(
      {"plot", "depth", "--db", path("ds.db"), "--ladder", "empty", "--out", path("e.png")});
  EXPECT_EQ(empty.code, 2);
  EXPECT_NE(empty.err.find("no finished runs"), std::string::npos) << empty.err;
  EXPECT_FALSE(fs::exists(path("e.png")));
}

// `plot scatter`: final loss against parameters per arm from the flags, each arm's law on stderr;
// the same from a saved view (--view); an unknown view or x exits 2 naming what there is.
TEST_F(CliTest, PlotScatterDrawsFromFlagsOrASavedView) {
  if (deepladder({"plot", "--help"}).code != 0) GTEST_SKIP() << "built without the plot renderer";
  {
    auto db = storage::Database::open(path("sc.db"));
    const int64_t ladder = db->upsertLadder("sc", "[ladder]\nname = \"sc\"\n", "schash");
    for (const char* arm : {"vanilla", "growth"})
      for (int k = 0; k < 4; ++k) {
        storage::RunRecord r;
        r.ladder_id = ladder;
        r.name = std::string(arm) + "-" + std::to_string(k);
        r.arm = arm;
        r.status = RunStatus::kFinished;
        r.params = static_cast<int64_t>(1e6 * std::pow(4.0, k));
        const int64_t id = db->insertRun(r);
        const double loss = (std::string(arm) == "growth" ? 9.5 : 10.0) *
                            std::pow(static_cast<double>(r.params), -0.1);
        db->writeMetrics({{id, "val/loss", 100, 1000, 1e12, loss + 0.5, 0},
                          {id, "val/loss", 200, 2000, 2e12, loss, 0}});
      }
    db->saveView({"loss-vs-params",
                  "scatter",
                  R"({"x":"params","metric":"val/loss","stat":"final","group":"arm"})",
                  {}});
  }
  CommandResult plot = deepladder({"plot", "scatter", "--db", path("sc.db"), "--x", "params", "--y",
                                   "val/loss", "--group", "arm", "--out", path("sc.png")});
  ASSERT_EQ(plot.code, 0) << plot.err;
  EXPECT_GT(fs::file_size(path("sc.png")), 1000u);
  EXPECT_NE(plot.err.find("vanilla: y = 10 x^-0.1"), std::string::npos) << plot.err;
  EXPECT_NE(plot.err.find("growth: y = 9.5 x^-0.1"), std::string::npos) << plot.err;
  CommandResult view = deepladder({"plot", "scatter", "--db", path("sc.db"), "--view",
                                   "loss-vs-params", "--out", path("view.png")});
  ASSERT_EQ(view.code, 0) << view.err;
  EXPECT_NE(view.err.find("vanilla: y = 10 x^-0.1"), std::string::npos) << view.err;
  CommandResult missing = deepladder(
      {"plot", "scatter", "--db", path("sc.db"), "--view", "nope", "--out", path("m.png")});
  EXPECT_EQ(missing.code, 2);
  EXPECT_NE(missing.err.find("saved scatter views: loss-vs-params"), std::string::npos)
      << missing.err;
  CommandResult bad_x = deepladder(
      {"plot", "scatter", "--db", path("sc.db"), "--x", "parms", "--out", path("b.png")});
  EXPECT_EQ(bad_x.code, 2);
  EXPECT_NE(bad_x.err.find("Did you mean 'params'"), std::string::npos) << bad_x.err;
  EXPECT_FALSE(fs::exists(path("m.png")));
  EXPECT_FALSE(fs::exists(path("b.png")));
}

// `squaring generate`: --compat reference writes the benchmark's files (train.jsonl's sha256 as
// its generator writes it for E1 seed 45, see tests/core/squaring_dataset_test.cpp), the default
// is deepladder's own layout of the same records, and an unknown layout exits 2 writing nothing.
TEST_F(CliTest, SquaringGenerateWritesTheBenchmarksFilesOrTheNativeLayout) {
  CommandResult r = deepladder({"squaring", "generate", "--tier", "E1", "--seed", "45", "--compat",
                                "reference", "--out", path("ref")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_NE(r.out.find("depth_ood_n_t_64.jsonl"), std::string::npos) << r.out;
  EXPECT_EQ(sha256File(path("ref/train.jsonl")),
            "d64fae6d2077b40db4dd962624dfa9575a072e8fa4950470aeeff081b0cd3146");
  EXPECT_TRUE(fs::exists(path("ref/dataset_config.json")));
  r = deepladder({"squaring", "generate", "--tier", "E1", "--seed", "45", "--out", path("nat")});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_TRUE(fs::exists(path("nat/manifest.json")));
  EXPECT_NE(r.out.find("train.jsonl"), std::string::npos);
  EXPECT_NE(r.out.find("600 examples"), std::string::npos) << r.out;
  r = deepladder(
      {"squaring", "generate", "--tier", "E1", "--compat", "python", "--out", path("bad")});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--compat"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(path("bad")));
}

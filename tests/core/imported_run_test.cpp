// Runs imported from elsewhere (core/import/): tag mapping, options, the facts a fit reads, a step
// logged twice, and the curves CSV's columns and cells.
#include "core/import/imported_run.h"

#include <gtest/gtest.h>

#include "core/errors.h"
#include "core/import/metrics_csv.h"
#include "core/import/tb_logdir.h"

namespace deepladder::imports {
namespace {

TEST(ImportedRun, TagsMapToMetricKeysWithOverridesAndDrops) {
  ImportSettings s = defaultImportSettings();
  EXPECT_EQ(metricKeyOfTag(s, "loss_metrics/global_avg_loss"), "train/loss");  // torchtitan
  EXPECT_EQ(metricKeyOfTag(s, "eval/loss"), "val/loss");
  EXPECT_EQ(metricKeyOfTag(s, "learning_rate"), "lr");
  EXPECT_EQ(metricKeyOfTag(s, "my/own"), "my/own");
  s.tag_map["eval/loss"] = "";
  s.tag_map["my/own"] = "val/loss";
  EXPECT_EQ(metricKeyOfTag(s, "eval/loss"), "");
  EXPECT_EQ(metricKeyOfTag(s, "my/own"), "val/loss");
}

TEST(ImportedRun, DottedKeysNestAndFlattenBack) {
  const nlohmann::json flat = {
      {"model.n_layer", 12}, {"model.d_model", 768}, {"lr", 0.001}, {".odd", 1}};
  const nlohmann::json nested = unflattenOptions(flat);
  EXPECT_EQ(nested["model"]["n_layer"], 12);
  EXPECT_EQ(nested["lr"], 0.001);
  EXPECT_EQ(nested[".odd"], 1);  // an empty part stays flat
  EXPECT_EQ(flattenOptions(nested), flat);
  EXPECT_EQ(optionValueOfText("12"), 12);
  EXPECT_EQ(optionValueOfText("1e18"), 1e18);
  EXPECT_EQ(optionValueOfText("true"), true);
  EXPECT_EQ(optionValueOfText("d12"), "d12");
}

TEST(ImportedRun, AStepLoggedTwiceKeepsTheLastValueRead) {
  ImportedRun run;
  run.curves["train/loss"] = {{0, 5.0, 1}, {10, 4.0, 2}, {20, 3.0, 3}, {10, 3.5, 4}, {30, 2.0, 5}};
  keepLastPointPerStep(run);
  const auto& p = run.curves["train/loss"];
  ASSERT_EQ(p.size(), 4u);
  EXPECT_EQ(p[1].step, 10);
  EXPECT_EQ(p[1].value, 3.5);  // the restarted run's value
  EXPECT_EQ(p[2].step, 20);
}

TEST(ImportedRun, FactsComeFromOptionsThenCurvesThenSixNd) {
  ImportedRun run;
  run.name = "r";
  run.origin = "logs/r";
  run.curves["val/loss"] = {{100, 3.5, 10}, {200, 3.0, 20}};
  run.options = {{"params", 1e8}, {"tokens", 2e9}, {"size", "d8"}, {"seed", 3}};
  const ImportSettings s = defaultImportSettings();
  ImportedRunFacts f = importFacts(run, s);
  EXPECT_EQ(f.arm, "vanilla");
  EXPECT_EQ(f.size, "d8");
  EXPECT_EQ(f.seed, 3);
  EXPECT_EQ(f.final_loss, 3.0);
  EXPECT_EQ(f.flops, 6 * 1e8 * 2e9);
  EXPECT_EQ(f.last_step, 200);
  EXPECT_EQ(rowTokensAndFlops(run, f, 100), std::make_pair(int64_t(1e9), 6 * 1e8 * 2e9 / 2));
  run.options["flops"] = 5e18;
  run.options["final_loss"] = 2.9;
  f = importFacts(run, s);
  EXPECT_EQ(f.flops, 5e18);
  EXPECT_EQ(f.final_loss, 2.9);
  run.options = nlohmann::json::object();
  try {
    importFacts(run, s);
    FAIL() << "a run without compute was accepted";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("run \"r\" (logs/r): no training compute"),
              std::string::npos)
        << e.what();
  }
}

TEST(MetricsCsv, NamesAMissingColumnAndReadsQuotedCells) {
  const ImportSettings s = defaultImportSettings();
  EXPECT_FALSE(looksLikeMetricsCsv("arm,compute_flops,val_loss\n"));
  EXPECT_TRUE(looksLikeMetricsCsv("value,metric,step,run,arm\n"));
  try {
    parseMetricsCsv("run,step,value\na,1,2\n", "c.csv", s);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("c.csv:1: metric"), std::string::npos) << e.what();
  }
  try {
    parseMetricsCsv("run,step,metric,value\na,x,loss,2\n", "c.csv", s);
    FAIL();
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("c.csv:2: step"), std::string::npos) << e.what();
  }
  const auto runs = parseMetricsCsv(
      "run,step,metric,value,note\n\"a b\",1,loss,2.5,\"x, \"\"y\"\"\"\n", "c.csv", s);
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].name, "a_b");
  EXPECT_EQ(runs[0].options["note"], "x, \"y\"");
  EXPECT_EQ(runs[0].curves.at("train/loss").at(0).value, 2.5);
}

}  // namespace
}  // namespace deepladder::imports

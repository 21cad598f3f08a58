// JSON schema of `fit --json` and the scaling-table exports: CSV parses back to
// the fitted values, JSON parses, LaTeX has the booktabs rules and balanced braces.
#include <gtest/gtest.h>

#include <map>
#include <sstream>

#include "core/errors.h"
#include "fitting/chinchilla.h"
#include "fitting/fit_json.h"
#include "fitting/frontier_fit.h"
#include "fitting/scaling_table.h"
#include "synthetic_data.h"

namespace deepladder::fitting {
namespace {

FrontierResult smallFit() {
  auto o = defaultFrontierOptions();
  o.bootstrap = 50;
  return fitFrontier(testing::syntheticLadder(testing::designDocArms(), 8, 0.003, 3), o);
}

TEST(FitJson, FrontierSchemaKeys) {
  const auto j = frontierToJson(smallFit());
  EXPECT_EQ(j["c_ref"].get<double>(), 1e18);
  EXPECT_EQ(j["baseline"].get<std::string>(), "vanilla");
  for (const char* arm : {"vanilla", "growth-bop"}) {
    SCOPED_TRACE(arm);
    const auto& a = j.at("arms").at(arm);
    for (const char* key : {"E", "A", "gamma", "gamma_se"}) EXPECT_TRUE(a.at(key).is_number());
    ASSERT_TRUE(a.at("gamma_ci").is_array());
    EXPECT_EQ(a.at("gamma_ci").size(), 2u);
    EXPECT_LE(a["gamma_ci"][0].get<double>(), a["gamma_ci"][1].get<double>());
    EXPECT_TRUE(a.at("at_bound").is_array());
  }
  EXPECT_FALSE(j["multipliers"].contains("vanilla"));
  const auto& m = j.at("multipliers").at("growth-bop");
  ASSERT_TRUE(m.at("measured").is_array());
  ASSERT_FALSE(m["measured"].empty());
  EXPECT_TRUE(m["measured"][0].at("compute").is_number());
  EXPECT_TRUE(m["measured"][0].at("multiplier").is_number());
  ASSERT_EQ(m.at("projected").size(), 4u);  // default --at 1e20,1e22,1e24,1e26
  EXPECT_EQ(m["projected"][0].at("compute").get<double>(), 1e20);
  EXPECT_TRUE(m["projected"][0].at("multiplier").is_number());
  EXPECT_EQ(m["projected"][0].at("ci").size(), 2u);
  EXPECT_TRUE(m.at("per_decade").is_number());
}

TEST(FitJson, SaysWhichEstimatorMadeTheFits) {
  const auto paper = frontierToJson(smallFit());
  EXPECT_EQ(paper["estimator"].get<std::string>(), "paper");
  EXPECT_NE(paper["estimator_description"].get<std::string>().find("OLS of ln(L - E)"),
            std::string::npos);
  const auto& arm = paper["arms"]["growth-bop"];
  EXPECT_EQ(arm["method"].get<std::string>(), "ols_log_excess_e_fixed");
  ASSERT_EQ(arm["gamma_t"].size(), 2u);
  EXPECT_LT(arm["gamma_t"][0].get<double>(), arm["gamma"].get<double>());
  EXPECT_GT(arm["gamma_t"][1].get<double>(), arm["gamma"].get<double>());
  EXPECT_EQ(arm["dof"].get<int>(), 6);
  EXPECT_EQ(paper["arms"]["vanilla"]["method"].get<std::string>(), "huber_e_free");
  EXPECT_TRUE(paper["baseline_line"]["gamma"].is_number());

  auto o = defaultFrontierOptions();
  o.estimator = FrontierEstimator::Robust;
  o.bootstrap = 0;
  const auto robust = frontierToJson(
      fitFrontier(testing::syntheticLadder(testing::designDocArms(), 8, 0.003, 3), o));
  EXPECT_EQ(robust["estimator"].get<std::string>(), "robust");
  EXPECT_EQ(robust["arms"]["growth-bop"]["method"].get<std::string>(), "nls_huber_e_fixed");
  EXPECT_TRUE(robust["baseline_line"].is_null());
}

TEST(FitJson, UndefinedNumbersAreNull) {
  FrontierResult r;
  r.baseline = "vanilla";
  ArmFit f;
  f.arm = "vanilla";
  f.E = 1.8, f.A = 1.2, f.gamma = 0.1;  // no se, no interval
  r.arms.push_back(f);
  const auto j = frontierToJson(r);
  EXPECT_TRUE(j["arms"]["vanilla"]["gamma_se"].is_null());
  EXPECT_TRUE(j["arms"]["vanilla"]["gamma_ci"][0].is_null());
  EXPECT_EQ(j.dump().find("NaN"), std::string::npos);
}

TEST(FitJson, ChinchillaSchemaKeys) {
  ChinchillaFit fit;
  fit.E = 1.69, fit.A = 406.4, fit.B = 410.7, fit.alpha = 0.34, fit.beta = 0.28;
  fit.objective = 1e-3, fit.a = 0.28 / 0.62, fit.b = 0.34 / 0.62;
  const auto j = chinchillaToJson(fit);
  EXPECT_EQ(j.size(), 8u);
  for (const char* key : {"E", "A", "B", "alpha", "beta", "objective", "a", "b"})
    EXPECT_TRUE(j.at(key).is_number()) << key;
}

TEST(ScalingTable, CsvParsesBackToFittedValues) {
  const auto r = smallFit();
  std::istringstream in(scalingTableCsv(r));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line, "arm,quantity,compute,value,se,ci_lo,ci_hi,estimator");
  std::map<std::string, double> gamma;
  int projected = 0, rows = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::stringstream ls(line);
    std::string cell;
    while (std::getline(ls, cell, ',')) cells.push_back(cell);
    if (!line.empty() && line.back() == ',') cells.emplace_back();
    ASSERT_EQ(cells.size(), 8u) << line;
    EXPECT_EQ(cells[7], "paper") << line;  // which estimator made the row
    ++rows;
    if (cells[1] == "gamma") gamma[cells[0]] = std::stod(cells[3]);
    if (cells[1] == "gamma_t" && cells[0] == "growth-bop") {
      EXPECT_DOUBLE_EQ(std::stod(cells[5]), r.arms[1].gamma_t_lo);
      EXPECT_DOUBLE_EQ(std::stod(cells[6]), r.arms[1].gamma_t_hi);
    }
    if (cells[1] == "projected_multiplier") {
      ++projected;
      EXPECT_GT(std::stod(cells[2]), 0);
    }
  }
  EXPECT_DOUBLE_EQ(gamma.at("vanilla"), r.arms[0].gamma);
  EXPECT_DOUBLE_EQ(gamma.at("growth-bop"), r.arms[1].gamma);
  EXPECT_EQ(projected, 4);
  EXPECT_GT(rows, 10);
}

TEST(ScalingTable, JsonParses) {
  const auto r = smallFit();
  const auto j = nlohmann::json::parse(scalingTableJson(r));
  EXPECT_EQ(j["arms"]["growth-bop"]["gamma"].get<double>(), r.arms[1].gamma);
}

TEST(ScalingTable, LatexHasBooktabsRulesAndBalancedBraces) {
  const std::string tex = scalingTableLatex(smallFit());
  for (const char* rule :
       {"\\toprule", "\\midrule", "\\bottomrule", "\\begin{tabular}", "\\end{tabular}"})
    EXPECT_NE(tex.find(rule), std::string::npos) << rule;
  int depth = 0, dollars = 0;
  for (char c : tex) {
    depth += c == '{' ? 1 : c == '}' ? -1 : 0;
    ASSERT_GE(depth, 0);
    dollars += c == '$';
  }
  EXPECT_EQ(depth, 0);
  EXPECT_EQ(dollars % 2, 0);
  EXPECT_NE(tex.find("growth-bop"), std::string::npos);
  EXPECT_NE(tex.find("Estimator: paper"), std::string::npos);
}

TEST(ScalingTable, MarkdownShowsArmsAndBoundFlags) {
  auto r = smallFit();
  r.arms[1].at_bound = {"gamma=0"};
  const std::string md = scalingTable(r, "md");
  EXPECT_NE(md.find("| vanilla |"), std::string::npos);
  EXPECT_NE(md.find("at bound: gamma=0"), std::string::npos);
  EXPECT_NE(md.find("Measured multipliers"), std::string::npos);
  EXPECT_NE(md.find("Estimator: paper (baseline: Huber fit, E free"), std::string::npos);
  EXPECT_NE(md.find("gamma t CI"), std::string::npos);
  EXPECT_THROW(scalingTable(r, "xlsx"), UserError);
}

}  // namespace
}  // namespace deepladder::fitting

// Squaring-ladder table exports (see squaring_table.h).
#include "fitting/squaring_table.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/safe_text.h"
#include "fitting/json_number.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

nlohmann::json trendJson(const LogComputeTrend& t) {
  return {{"defined", t.defined},  {"points", t.points},         {"a", jsonNumber(t.a)},
          {"b", jsonNumber(t.b)},  {"a_se", jsonNumber(t.a_se)}, {"b_se", jsonNumber(t.b_se)},
          {"r2", jsonNumber(t.r2)}};
}

// "b +- se" (or just b), "n/a" when the line is undefined.
std::string slope(const LogComputeTrend& t) {
  if (!t.defined) return "n/a";
  return std::isfinite(t.b_se) ? formatNumber(t.b) + " ± " + formatNumber(t.b_se, 2)
                               : formatNumber(t.b);
}

const char* kFormula = "y = a + b log10(C / C0)";

// "yes", or "no (squaring.deep_supervision)": the run under the benchmark's rules.
std::string admissibleText(const SquaringRunPoint& r) {
  return r.admissible ? "yes" : "no (" + r.inadmissible_options + ")";
}

bool anyInadmissible(const SquaringLadderSummary& s) {
  for (const auto& arm : s.arms)
    for (const auto& r : arm.runs)
      if (!r.admissible) return true;
  return false;
}

const char* kInadmissibleNote =
    "admissible: no = the run's options make training targets from the task's algorithm "
    "(e.g. deep supervision on computed intermediate squarings), which the benchmark's rules "
    "forbid; its scores are not comparable with the leaderboard's.";

}  // namespace

std::string squaringTableMarkdown(const SquaringLadderSummary& s) {
  std::ostringstream out;
  out << "Squaring ladder: depth generalization against training compute C (FLOPs)\n\n"
      << "| arm | run | compute | Max T seen | Max T unseen | OOD exact | test exact | admissible "
         "|\n"
      << "|---|---:|---:|---:|---:|---:|---:|---|\n";
  for (const auto& arm : s.arms)
    for (const auto& r : arm.runs)
      out << "| " << arm.arm << " | " << r.run_id << " | " << formatNumber(r.compute) << " | "
          << r.max_t_seen << " | " << r.max_t_unseen << " | " << formatNumber(r.ood_exact, 3)
          << " | " << formatNumber(r.test_exact, 3) << " | " << admissibleText(r) << " |\n";
  if (anyInadmissible(s)) out << "\n" << kInadmissibleNote << "\n";
  out << "\nFits per arm, " << kFormula << ", C0 = " << formatNumber(s.c_ref)
      << " (b: change per decade of compute; rungs: depth-ladder rungs cleared on seen moduli)\n\n"
      << "| arm | y | runs | a | b per decade | R^2 | C where OOD exact reaches 1 |\n"
      << "|---|---|---:|---:|---:|---:|---:|\n";
  for (const auto& arm : s.arms) {
    out << "| " << arm.arm << " | OOD exact | " << arm.ood_exact.points << " | "
        << formatNumber(arm.ood_exact.a) << " | " << slope(arm.ood_exact) << " | "
        << formatNumber(arm.ood_exact.r2, 3) << " | "
        << formatNumber(arm.ood_exact.computeReaching(1.0, s.c_ref), 3) << " |\n";
    out << "| " << arm.arm << " | rungs seen | " << arm.rungs_seen.points << " | "
        << formatNumber(arm.rungs_seen.a) << " | " << slope(arm.rungs_seen) << " | "
        << formatNumber(arm.rungs_seen.r2, 3) << " | |\n";
  }
  bool any_undefined = false;
  for (const auto& arm : s.arms) any_undefined |= !arm.ood_exact.defined;
  if (any_undefined)
    out << "\nn/a: an arm needs runs at two different computes for a line (three for its "
           "standard errors).\n";
  return out.str();
}

std::string squaringTableCsv(const SquaringLadderSummary& s) {
  std::ostringstream out;
  out << "arm,run_id,quantity,compute,value,se\n";
  auto empty_or = [](double v) { return formatNumber(v, 10, ""); };
  for (const auto& arm : s.arms) {
    for (const auto& r : arm.runs) {
      const std::string prefix = arm.arm + "," + std::to_string(r.run_id) + ",";
      const std::string c = "," + formatNumber(r.compute, 10) + ",";
      out << prefix << "max_t_seen" << c << r.max_t_seen << ",\n";
      out << prefix << "max_t_unseen" << c << r.max_t_unseen << ",\n";
      out << prefix << "ood_exact" << c << formatNumber(r.ood_exact, 10) << ",\n";
      out << prefix << "test_exact" << c << formatNumber(r.test_exact, 10) << ",\n";
      out << prefix << "admissible" << c << (r.admissible ? 1 : 0) << ",\n";
    }
    for (const auto& [name, t] :
         {std::pair{"ood_exact", arm.ood_exact}, std::pair{"rungs_seen", arm.rungs_seen}}) {
      out << arm.arm << ",," << name << ".a,," << empty_or(t.a) << "," << empty_or(t.a_se) << "\n";
      out << arm.arm << ",," << name << ".b,," << empty_or(t.b) << "," << empty_or(t.b_se) << "\n";
      out << arm.arm << ",," << name << ".r2,," << empty_or(t.r2) << ",\n";
    }
    out << arm.arm << ",,ood_exact.compute_at_1,,"
        << empty_or(arm.ood_exact.computeReaching(1.0, s.c_ref)) << ",\n";
  }
  return out.str();
}

std::string squaringTableLatex(const SquaringLadderSummary& s) {
  std::ostringstream out;
  out << "% Squaring ladder: depth generalization against training compute C (FLOPs)\n"
      << "\\begin{tabular}{lrrrrrrl}\n\\toprule\n"
      << "Arm & Run & $C$ & Max $T$ seen & Max $T$ unseen & OOD exact & Test exact & Admissible "
         "\\\\\n"
      << "\\midrule\n";
  for (const auto& arm : s.arms)
    for (const auto& r : arm.runs)
      out << latexEscape(arm.arm) << " & " << r.run_id << " & $" << formatNumber(r.compute, 3)
          << "$ & " << r.max_t_seen << " & " << r.max_t_unseen << " & "
          << formatNumber(r.ood_exact, 3) << " & " << formatNumber(r.test_exact, 3) << " & "
          << latexEscape(admissibleText(r)) << " \\\\\n";
  out << "\\bottomrule\n\\end{tabular}\n";
  if (anyInadmissible(s)) out << "% " << kInadmissibleNote << "\n";
  out << "\n"
      << "% Fits per arm: y = a + b \\log_{10}(C / C_0), C_0 = " << formatNumber(s.c_ref) << "\n"
      << "\\begin{tabular}{llrrrr}\n\\toprule\n"
      << "Arm & $y$ & Runs & $a$ & $b$ per decade & $R^2$ \\\\\n\\midrule\n";
  auto pm = [](const LogComputeTrend& t) {
    if (!t.defined) return std::string("n/a");
    return std::isfinite(t.b_se)
               ? "$" + formatNumber(t.b) + " \\pm " + formatNumber(t.b_se, 2) + "$"
               : "$" + formatNumber(t.b) + "$";
  };
  for (const auto& arm : s.arms) {
    out << latexEscape(arm.arm) << " & OOD exact & " << arm.ood_exact.points << " & "
        << formatNumber(arm.ood_exact.a) << " & " << pm(arm.ood_exact) << " & "
        << formatNumber(arm.ood_exact.r2, 3) << " \\\\\n";
    out << latexEscape(arm.arm) << " & rungs seen & " << arm.rungs_seen.points << " & "
        << formatNumber(arm.rungs_seen.a) << " & " << pm(arm.rungs_seen) << " & "
        << formatNumber(arm.rungs_seen.r2, 3) << " \\\\\n";
  }
  out << "\\bottomrule\n\\end{tabular}\n";
  return out.str();
}

nlohmann::json squaringToJson(const SquaringLadderSummary& s) {
  nlohmann::json arms = nlohmann::json::array();
  for (const auto& arm : s.arms) {
    nlohmann::json runs = nlohmann::json::array();
    for (const auto& r : arm.runs)
      runs.push_back({{"run_id", r.run_id},
                      {"compute", r.compute},
                      {"max_t_seen", r.max_t_seen},
                      {"max_t_unseen", r.max_t_unseen},
                      {"ood_exact", r.ood_exact},
                      {"test_exact", r.test_exact},
                      {"admissible", r.admissible},
                      {"inadmissible_options", r.inadmissible_options}});
    nlohmann::json ood = trendJson(arm.ood_exact);
    ood["compute_at_1"] = jsonNumber(arm.ood_exact.computeReaching(1.0, s.c_ref));
    arms.push_back({{"arm", arm.arm},
                    {"runs", runs},
                    {"fits", {{"ood_exact", ood}, {"rungs_seen", trendJson(arm.rungs_seen)}}}});
  }
  return {{"task", "squaring"}, {"form", kFormula}, {"c_ref", s.c_ref}, {"arms", arms}};
}

std::string squaringTableJson(const SquaringLadderSummary& s) {
  return dumpJson(squaringToJson(s), 2) + "\n";
}

std::string squaringTable(const SquaringLadderSummary& s, const std::string& format) {
  return renderTable(format,
                     {[&] { return squaringTableMarkdown(s); }, [&] { return squaringTableCsv(s); },
                      [&] { return squaringTableLatex(s); }, [&] { return squaringTableJson(s); }});
}

}  // namespace deepladder::fitting

// A backtest as JSON and as Markdown, CSV and LaTeX tables (see backtest_table.h).
#include "fitting/backtest_table.h"

#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/safe_text.h"
#include "fitting/json_number.h"
#include "fitting/table_format.h"

namespace deepladder::fitting {
namespace {

bool hasMultipliers(const BacktestPoint& p) {
  return std::isfinite(p.measured_multiplier) && std::isfinite(p.predicted_multiplier);
}

std::string signedPercent(double v, bool sign) {
  if (!std::isfinite(v)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, sign ? "%+.2f%%" : "%.2f%%", 100 * v);
  return buf;
}

std::string interval(const BacktestPoint& p) {
  return p.has_interval ? "[" + formatNumber(p.lo) + ", " + formatNumber(p.hi) + "]"
                        : p.no_interval;
}

std::string fitInterval(const BacktestPoint& p) {
  return std::isfinite(p.fit_lo) && std::isfinite(p.fit_hi)
             ? "[" + formatNumber(p.fit_lo) + ", " + formatNumber(p.fit_hi) + "]"
             : "";
}

std::string coveredText(const BacktestPoint& p) {
  return p.has_interval ? (p.covered ? "yes" : "no") : "";
}

std::string describe(const BacktestResult& r) {
  std::string s = r.form == "chinchilla"
                      ? "Backtest of Chinchilla approach 3: the k points of largest 6ND compute "
                        "held out, the rest refitted, k = 1.." +
                            std::to_string(r.max_k)
                      : "Backtest: every arm's top k rungs held out (the baseline's too), the rest "
                        "refitted with the same estimator, k = 1.." +
                            std::to_string(r.max_k);
  if (!r.law.empty()) s += "; law " + r.law;
  {
    char level[16];
    std::snprintf(level, sizeof level, "%g%%", 100 * r.ci_level);
    s += r.bootstrap > 0
             ? std::string("; ") + level +
                   " prediction intervals of L(C) as each refit would have printed them: its fit "
                   "interval (" +
                   std::to_string(r.bootstrap) + " bootstrap resamples of " + r.resampled +
                   ") widened by the misfit of its own nested backtest"
             : "; no intervals (--bootstrap 0)";
  }
  return s;
}

}  // namespace

nlohmann::json backtestPointsJson(const BacktestResult& r) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& p : r.points) {
    nlohmann::json j = {
        {"arm", p.arm},
        {"k", p.k},
        {"compute", jsonNumber(p.compute)},
        {"measured_loss", jsonNumber(p.measured_loss)},
        {"predicted_loss", jsonNumber(p.predicted_loss)},
        {"rel_error", jsonNumber(p.rel_error)},
        {"lo", jsonNumber(p.lo)},
        {"hi", jsonNumber(p.hi)},
        {"covered", p.has_interval ? nlohmann::json(p.covered) : nlohmann::json()},
        {"fit_lo", jsonNumber(p.fit_lo)},
        {"fit_hi", jsonNumber(p.fit_hi)},
        {"no_interval", p.has_interval ? nlohmann::json() : nlohmann::json(p.no_interval)},
        {"extrapolation", jsonNumber(p.extrapolation)}};
    if (hasMultipliers(p)) {
      j["measured_multiplier"] = p.measured_multiplier;
      j["predicted_multiplier"] = p.predicted_multiplier;
    }
    out.push_back(std::move(j));
  }
  return out;
}

nlohmann::json backtestSummaryJson(const BacktestResult& r) {
  nlohmann::json groups = nlohmann::json::array();
  for (const auto& s : r.summary)
    groups.push_back({{"arm", s.arm},
                      {"k", s.k},
                      {"points", s.points},
                      {"mean_abs_error", jsonNumber(s.mean_abs_error)},
                      {"max_abs_error", jsonNumber(s.max_abs_error)},
                      {"bias", jsonNumber(s.bias)},
                      {"intervals", s.intervals},
                      {"covered", s.covered},
                      {"missed", s.missed},
                      {"no_interval", s.no_interval},
                      {"coverage", s.intervals > 0 ? nlohmann::json(double(s.covered) / s.intervals)
                                                   : nlohmann::json()},
                      {"fit_intervals", s.fit_intervals},
                      {"fit_covered", s.fit_covered}});
  nlohmann::json skipped = nlohmann::json::array();
  for (const auto& s : r.skipped)
    skipped.push_back({{"arm", s.arm}, {"k", s.k}, {"reason", s.reason}});
  return {{"form", r.form},
          {"max_k", r.max_k},
          {"ci_level", jsonNumber(r.ci_level)},
          {"bootstrap", r.bootstrap},
          {"resampled", r.resampled.empty() ? nlohmann::json() : nlohmann::json(r.resampled)},
          {"groups", groups},
          {"lines", r.lines},
          {"skipped", skipped}};
}

nlohmann::json backtestToJson(const BacktestResult& r) {
  return {{"backtest", backtestPointsJson(r)}, {"backtest_summary", backtestSummaryJson(r)}};
}

std::string backtestTableMarkdown(const BacktestResult& r) {
  std::ostringstream out;
  out << describe(r) << "\n\n";
  out << "| arm | k | compute | measured | predicted | error | prediction interval | covered | "
         "fit interval | extrapolation | measured M | predicted M |\n"
         "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& p : r.points) {
    const bool m = hasMultipliers(p);
    out << "| " << p.arm << " | " << p.k << " | " << formatNumber(p.compute) << " | "
        << formatNumber(p.measured_loss) << " | " << formatNumber(p.predicted_loss) << " | "
        << signedPercent(p.rel_error, true) << " | " << interval(p) << " | " << coveredText(p)
        << " | " << fitInterval(p) << " | " << formatNumber(p.extrapolation, 3) << "x | "
        << (m ? formatNumber(p.measured_multiplier, 3) : "") << " | "
        << (m ? formatNumber(p.predicted_multiplier, 3) : "") << " |\n";
  }
  out << "\n| k | arm | rungs | mean abs error | max abs error | bias | covered | missed | "
         "no interval | fit interval covered |\n"
         "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : r.summary)
    out << "| " << s.k << " | " << s.arm << " | " << s.points << " | "
        << signedPercent(s.mean_abs_error, false) << " | " << signedPercent(s.max_abs_error, false)
        << " | " << signedPercent(s.bias, true) << " | "
        << (s.intervals > 0 ? std::to_string(s.covered) + " of " + std::to_string(s.intervals)
                            : std::string())
        << " | " << s.missed << " | " << s.no_interval << " | "
        << (s.fit_intervals > 0
                ? std::to_string(s.fit_covered) + " of " + std::to_string(s.fit_intervals)
                : std::string())
        << " |\n";
  out << "\n";
  for (const auto& line : r.lines) out << line << "\n";
  if (r.form != "chinchilla")
    out << "(measured M / predicted M: the multiplier at the baseline's held-out rung of the same "
           "rank, measured on all rungs and predicted by the refit)\n";
  for (const auto& s : r.skipped)
    out << "not held out: " << s.arm << " at k = " << s.k << ": " << s.reason << "\n";
  return out.str();
}

std::string backtestTableCsv(const BacktestResult& r) {
  std::ostringstream out;
  out << "arm,k,compute,measured_loss,predicted_loss,rel_error,lo,hi,covered,fit_lo,fit_hi,"
         "extrapolation,measured_multiplier,predicted_multiplier\n";
  for (const auto& p : r.points) {
    const bool m = hasMultipliers(p);
    out << p.arm << ',' << p.k << ',' << formatNumber(p.compute, 17, "") << ','
        << formatNumber(p.measured_loss, 17, "") << ',' << formatNumber(p.predicted_loss, 17, "")
        << ',' << formatNumber(p.rel_error, 17, "") << ',' << formatNumber(p.lo, 17, "") << ','
        << formatNumber(p.hi, 17, "") << ','
        << (p.has_interval ? (p.covered ? "true" : "false") : "") << ','
        << formatNumber(p.fit_lo, 17, "") << ',' << formatNumber(p.fit_hi, 17, "") << ','
        << formatNumber(p.extrapolation, 17, "") << ','
        << (m ? formatNumber(p.measured_multiplier, 17) : "") << ','
        << (m ? formatNumber(p.predicted_multiplier, 17) : "") << '\n';
  }
  return out.str();
}

std::string backtestTableLatex(const BacktestResult& r) {
  std::ostringstream out;
  auto tex = [](double v, int digits = 4) {
    std::string s = formatNumber(v, digits, "--");
    const auto e = s.find('e');
    if (e == std::string::npos) return s;
    return s.substr(0, e) + "\\times 10^{" + std::to_string(std::stoi(s.substr(e + 1))) + "}";
  };
  out << "% " << describe(r) << "; needs \\usepackage{booktabs}\n";
  out << "\\begin{tabular}{lrrrrrrrrrr}\n\\toprule\n"
      << "Arm & $k$ & $C$ & $L$ measured & $L$ predicted & error & interval & covered & "
         "extrapolation & $M$ measured & $M$ predicted \\\\\n\\midrule\n";
  for (const auto& p : r.points) {
    const bool m = hasMultipliers(p);
    char error[32];
    std::snprintf(error, sizeof error, "%+.2f\\%%", 100 * p.rel_error);
    out << latexEscape(p.arm) << " & " << p.k << " & $" << tex(p.compute) << "$ & "
        << formatNumber(p.measured_loss) << " & " << formatNumber(p.predicted_loss) << " & "
        << (std::isfinite(p.rel_error) ? error : "--") << " & "
        << (p.has_interval ? "$[" + formatNumber(p.lo) + ", " + formatNumber(p.hi) + "]$" : "--")
        << " & " << (p.has_interval ? (p.covered ? "yes" : "no") : "--") << " & "
        << formatNumber(p.extrapolation, 3) << "$\\times$ & "
        << (m ? formatNumber(p.measured_multiplier, 3) : "--") << " & "
        << (m ? formatNumber(p.predicted_multiplier, 3) : "--") << " \\\\\n";
  }
  out << "\\midrule\n";
  for (const auto& line : r.lines)
    out << "\\multicolumn{11}{l}{\\footnotesize " << latexEscape(line) << "} \\\\\n";
  out << "\\bottomrule\n\\end{tabular}\n";
  return out.str();
}

std::string backtestTable(const BacktestResult& r, const std::string& format) {
  return renderTable(format,
                     {[&] { return backtestTableMarkdown(r); }, [&] { return backtestTableCsv(r); },
                      [&] { return backtestTableLatex(r); },
                      [&] { return dumpJson(backtestToJson(r), 2) + "\n"; }});
}

}  // namespace deepladder::fitting

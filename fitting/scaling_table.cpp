// Scaling-table exports (see scaling_table.h).
#include "fitting/scaling_table.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/safe_text.h"
#include "fitting/fit_diagnostics.h"
#include "fitting/fit_forms.h"
#include "fitting/fit_json.h"
#include "fitting/table_format.h"
#include "fitting/table_grid.h"

namespace deepladder::fitting {
namespace {

std::string interval(double lo, double hi, int digits = 4) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "";
  return "[" + formatNumber(lo, digits) + ", " + formatNumber(hi, digits) + "]";
}

std::string flags(const ArmFit& f) {
  std::string bounds;
  for (const auto& b : f.at_bound) bounds += (bounds.empty() ? "at bound: " : ", ") + b;
  if (f.no_fit.empty()) return bounds;
  return "NO FIT (see below)" + (bounds.empty() ? "" : "; " + bounds);
}

const ArmMultipliers* multipliersOf(const FrontierResult& r, const std::string& arm) {
  for (const auto& m : r.multipliers)
    if (m.arm == arm) return &m;
  return nullptr;
}

bool hasPredictionIntervals(const FrontierResult& r) {
  return std::isfinite(r.misfit.per_decade);
}

// Which interval the tables show, and where the misfit came from.
std::string intervalNote(const FrontierResult& r) {
  if (!hasPredictionIntervals(r))
    return "Intervals: fit intervals (bootstrap: parameter uncertainty only, no misfit)";
  const MisfitModel& m = r.misfit;
  char buf[320];
  std::snprintf(buf, sizeof buf,
                "Intervals: prediction intervals (the fit interval widened by the law's misfit, "
                "sigma = %.2f%% + %.2f%% per decade beyond each arm's data, quantile %.2f; %s)",
                100 * m.base, 100 * m.per_decade, m.quantile, m.source.c_str());
  return buf;
}

// The projected loss of every arm at each --at, prediction and fit intervals side by side.
std::string projectedLossMarkdown(const FrontierResult& r) {
  if (r.loss_projections.empty()) return "";
  std::ostringstream out;
  out << "\nProjected loss L(C) (prediction interval; fit interval)\n\n| arm |";
  const auto& first = r.loss_projections.front().at;
  for (const auto& p : first) out << " L@" << formatNumber(p.compute, 3) << " |";
  out << "\n|---|";
  for (size_t i = 0; i < first.size(); ++i) out << "---|";
  out << "\n";
  for (const auto& arm : r.loss_projections) {
    out << "| " << arm.arm << " |";
    for (const auto& p : arm.at) {
      out << " " << formatNumber(p.loss);
      if (p.no_interval.empty())
        out << " " << interval(p.lo, p.hi) << "; fit " << interval(p.fit_lo, p.fit_hi);
      else
        out << " " << p.no_interval;
      out << " |";
    }
    out << "\n";
  }
  return out.str();
}

std::vector<double> projectedComputes(const FrontierResult& r) {
  std::vector<double> at;
  if (!r.multipliers.empty())
    for (const auto& p : r.multipliers.front().projected) at.push_back(p.compute);
  return at;
}

}  // namespace

TableGrid scalingTableGrid(const FrontierResult& r) {
  const auto at = projectedComputes(r);
  const std::vector<std::string> extra = formOf(r).extraParameters();
  TableGrid grid;
  grid.header = {"arm", "gamma +- se", "gamma CI", "gamma t CI", "A", "E"};
  for (const auto& name : extra) grid.header.push_back(name + " +- se");
  for (double c : at) grid.header.push_back("M@" + formatNumber(c, 3));
  grid.header.push_back("per decade");
  grid.header.push_back("flags");
  for (const auto& f : r.arms) {
    // What the diagnostics say about this arm, as a note on its name and its flags.
    std::string said = f.no_fit;
    for (const FitDiagnostic& w : r.diagnostics.warnings)
      if (w.arm == f.arm) said += (said.empty() ? "" : "\n") + w.kind + ": " + w.message;
    std::vector<TableCell> row;
    row.push_back({f.arm, kNaN, said});
    row.push_back({formatNumber(f.gamma) + " +- " + formatNumber(f.gamma_se, 2), f.gamma,
                   "bootstrap standard error " + formatNumber(f.gamma_se, 3)});
    row.push_back({interval(f.gamma_ci_lo, f.gamma_ci_hi), f.gamma_ci_lo,
                   "bootstrap percentiles (every resample refitted, E included)"});
    row.push_back({interval(f.gamma_t_lo, f.gamma_t_hi), f.gamma_t_lo,
                   "gamma -+ t(dof) se, E held at its fit (dof " + std::to_string(f.dof) + ")"});
    row.push_back({formatNumber(f.A), f.A, ""});
    row.push_back({formatNumber(f.E), f.E, f.arm == r.baseline ? "" : "the baseline's E"});
    for (size_t i = 0; i < extra.size(); ++i) {
      const double v = i < f.extra.size() ? f.extra[i] : kNaN;
      row.push_back(
          {formatNumber(v) + " +- " + formatNumber(i < f.extra_se.size() ? f.extra_se[i] : kNaN, 2),
           v, ""});
    }
    const ArmMultipliers* m = multipliersOf(r, f.arm);
    const std::string which = hasPredictionIntervals(r) ? "prediction interval" : "fit interval";
    for (size_t i = 0; i < at.size(); ++i) {
      if (!m) {
        row.push_back({"1", 1.0, "the baseline"});
        continue;
      }
      const auto& p = m->projected[i];
      row.push_back({formatNumber(p.multiplier, 3) + " " + interval(p.ci_lo, p.ci_hi, 3),
                     p.multiplier, "multiplier at " + formatNumber(at[i], 3) + " FLOPs; " + which});
    }
    row.push_back({m ? formatNumber(m->per_decade, 4) : "1", m ? m->per_decade : 1.0,
                   "from the fitted exponents"});
    row.push_back({flags(f), kNaN, said});
    grid.rows.push_back(std::move(row));
  }
  return grid;
}

std::string scalingTableMarkdown(const FrontierResult& r) {
  std::ostringstream out;
  out << "Frontier " << formulaOf(r) << ", baseline " << r.baseline
      << (r.form == "pinned-e" ? ", E pinned"
          : r.joint            ? ", E fitted jointly"
                               : ", E shared with the baseline")
      << ", " << r.bootstrap_used << "/" << r.bootstrap_requested << " bootstrap resamples (of "
      << (r.residual_bootstrap ? "residuals" : "runs") << "), " << formatNumber(100 * r.ci_level, 3)
      << "% intervals\n";
  out << intervalNote(r) << "\n";
  out << "Estimator: " << formDescriptionOf(r) << "\n";
  if (r.form == "pinned-e")
    out << "E pinned at " << formatNumber(r.pinned_E) << " (source: " << r.pinned_E_source
        << "): every number below rests on it\n";
  if (!r.form_choice.empty()) out << r.form_choice << "\n";
  out << "\n" << markdownTable(scalingTableGrid(r));
  out << "\ngamma CI: bootstrap percentiles (every resample refitted, E included); gamma t CI: "
         "gamma -+ t(dof) se, E held at its fit. M@C [lo, hi]: the multiplier's "
      << (hasPredictionIntervals(r) ? "prediction interval" : "fit interval")
      << "; per decade: from the fitted exponents (its fit interval is in the JSON).\n";
  out << projectedLossMarkdown(r);
  for (const auto& f : r.arms)
    if (!f.no_fit.empty()) out << f.no_fit << "\n";
  for (const auto& f : r.arms)
    if (f.no_fit.empty() && r.bootstrap_used > 0 && f.bootstrap_used < r.bootstrap_used)
      out << f.arm << ": fitted in " << f.bootstrap_used << " of " << r.bootstrap_used
          << " resamples (the others had a point at or below their E).\n";
  if (const ArmFit& l = r.baseline_line; !l.arm.empty())
    out << "Baseline " << l.arm << " by the same OLS line with its E fixed (the value the paper's "
        << "ladder figure prints): gamma " << formatNumber(l.gamma) << " +- "
        << formatNumber(l.gamma_se, 2) << " " << interval(l.gamma_t_lo, l.gamma_t_hi) << ", A "
        << formatNumber(l.A) << "\n";
  if (!r.multipliers.empty()) {
    out << "\nMeasured multipliers (baseline compute / arm compute at equal loss)\n\n"
        << "| arm | baseline compute | multiplier |\n|---|---|---|\n";
    // At most kShownMeasured rows an arm, spread evenly from the first to the last; every row
    // is in the CSV and JSON exports.
    constexpr size_t kShownMeasured = 20;
    size_t left_out = 0;
    for (const auto& m : r.multipliers) {
      const size_t n = m.measured.size();
      const size_t shown = std::min(n, kShownMeasured);
      for (size_t k = 0; k < shown; ++k) {
        const auto& p = m.measured[shown < 2 ? k : k * (n - 1) / (shown - 1)];
        out << "| " << m.arm << " | " << formatNumber(p.compute, 4) << " | "
            << formatNumber(p.multiplier, 4) << " |\n";
      }
      left_out += n - shown;
    }
    if (left_out > 0)
      out << "\n(" << left_out << " more measured multipliers not shown; every one is in "
          << "`deepladder export --format csv`)\n";
  }
  return out.str();
}

std::string scalingTableCsv(const FrontierResult& r) {
  std::ostringstream out;
  const std::string estimator =
      r.form == "frontier"
          ? estimatorName(r.estimator)
          : r.form + (r.form == "pinned-e" ? " E=" + formatNumber(r.pinned_E, 6) : "");
  out << "arm,quantity,compute,value,se,ci_lo,ci_hi,estimator\n";
  auto row = [&](const std::string& arm, const char* q, double c, double v, double se, double lo,
                 double hi) {
    out << arm << ',' << q << ',' << formatNumber(c, 17, "") << ',' << formatNumber(v, 17, "")
        << ',' << formatNumber(se, 17, "") << ',' << formatNumber(lo, 17, "") << ','
        << formatNumber(hi, 17, "") << ',' << estimator << '\n';
  };
  const std::vector<std::string> extra = formOf(r).extraParameters();
  for (const auto& f : r.arms) {
    row(f.arm, "E", kNaN, f.E, f.E_se, f.E_ci_lo, f.E_ci_hi);
    for (size_t i = 0; i < extra.size() && i < f.extra.size(); ++i)
      row(f.arm, extra[i].c_str(), kNaN, f.extra[i], i < f.extra_se.size() ? f.extra_se[i] : kNaN,
          kNaN, kNaN);
    row(f.arm, "A", kNaN, f.A, f.A_se, f.A_ci_lo, f.A_ci_hi);
    row(f.arm, "gamma", kNaN, f.gamma, f.gamma_se, f.gamma_ci_lo, f.gamma_ci_hi);
    row(f.arm, "gamma_t", kNaN, f.gamma, f.gamma_se, f.gamma_t_lo, f.gamma_t_hi);
  }
  if (const ArmFit& l = r.baseline_line; !l.arm.empty())
    row(l.arm, "gamma_line_e_fixed", kNaN, l.gamma, l.gamma_se, l.gamma_t_lo, l.gamma_t_hi);
  for (const auto& m : r.multipliers) {
    row(m.arm, "per_decade", kNaN, m.per_decade, kNaN, m.per_decade_lo, m.per_decade_hi);
    for (const auto& p : m.measured)
      row(m.arm, "measured_multiplier", p.compute, p.multiplier, kNaN, kNaN, kNaN);
    for (const auto& p : m.projected) {
      row(m.arm, "projected_multiplier", p.compute, p.multiplier, kNaN, p.ci_lo, p.ci_hi);
      row(m.arm, "projected_multiplier_fit_interval", p.compute, p.multiplier, kNaN, p.fit_lo,
          p.fit_hi);
    }
  }
  for (const auto& arm : r.loss_projections)
    for (const auto& p : arm.at) {
      row(arm.arm, "projected_loss", p.compute, p.loss, kNaN, p.lo, p.hi);
      row(arm.arm, "projected_loss_fit_interval", p.compute, p.loss, kNaN, p.fit_lo, p.fit_hi);
    }
  return out.str();
}

std::string scalingTableLatex(const FrontierResult& r) {
  std::ostringstream out;
  const auto at = projectedComputes(r);
  auto tex = [](double v, int digits = 4) {
    std::string s = formatNumber(v, digits, "--");
    const auto e = s.find('e');
    if (e == std::string::npos) return s;
    const int exponent = std::stoi(s.substr(e + 1));
    return s.substr(0, e) + "\\times 10^{" + std::to_string(exponent) + "}";
  };
  const std::string estimator = formDescriptionOf(r);
  out << "% Scaling table: " << formulaOf(r) << ", baseline " << latexEscape(r.baseline)
      << ", estimator " << estimator << "; needs \\usepackage{booktabs}\n";
  out << "\\begin{tabular}{l" << std::string(4 + at.size() + 1, 'r') << "}\n\\toprule\n";
  out << "Arm & $\\gamma \\pm \\mathrm{se}$ & $\\gamma$ " << formatNumber(100 * r.ci_level, 3)
      << "\\% $t$-interval & $A$ & $E$";
  for (double c : at) out << " & $M(" << tex(c, 3) << ")$";
  out << " & per decade \\\\\n\\midrule\n";
  for (const auto& f : r.arms) {
    out << latexEscape(f.arm) << " & $" << tex(f.gamma) << " \\pm " << tex(f.gamma_se, 2)
        << "$ & $";
    if (std::isfinite(f.gamma_t_lo) && std::isfinite(f.gamma_t_hi))
      out << "[" << tex(f.gamma_t_lo) << ", " << tex(f.gamma_t_hi) << "]";
    else
      out << "--";
    out << "$ & $" << tex(f.A) << "$ & $" << tex(f.E) << "$";
    const ArmMultipliers* m = multipliersOf(r, f.arm);
    for (size_t i = 0; i < at.size(); ++i) {
      if (!m) {
        out << " & $1$";
        continue;
      }
      const auto& p = m->projected[i];
      out << " & $" << tex(p.multiplier, 3);
      if (std::isfinite(p.ci_lo) && std::isfinite(p.ci_hi))
        out << "\\,[" << tex(p.ci_lo, 3) << ", " << tex(p.ci_hi, 3) << "]";
      out << "$";
    }
    out << " & $" << (m ? tex(m->per_decade) : std::string("1")) << "$ \\\\\n";
  }
  out << "\\midrule\n\\multicolumn{" << 5 + at.size() + 1
      << "}{l}{\\footnotesize Estimator: " << latexEscape(estimator) << "} \\\\\n";
  out << "\\multicolumn{" << 5 + at.size() + 1 << "}{l}{\\footnotesize "
      << latexEscape(intervalNote(r)) << "} \\\\\n";
  out << "\\bottomrule\n\\end{tabular}\n";
  return out.str();
}

std::string scalingTableJson(const FrontierResult& r) {
  return dumpJson(frontierToJson(r), 2) + "\n";
}

std::string scalingTable(const FrontierResult& r, const std::string& format) {
  return renderTable(format,
                     {[&] { return scalingTableMarkdown(r) + diagnosticsMarkdown(r); },
                      [&] { return scalingTableCsv(r); }, [&] { return scalingTableLatex(r); },
                      [&] { return scalingTableJson(r); }});
}

}  // namespace deepladder::fitting

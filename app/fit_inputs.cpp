// Inputs of the fitting commands (see fit_inputs.h).
#include "app/fit_inputs.h"

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>

#include "core/errors.h"
#include "fitting/fit_forms.h"
#include "fitting/form_choice.h"
#include "storage/database.h"
#include "storage/squaring_points.h"

namespace deepladder::app {

void addFormOptions(CLI::App* cmd, FormOptions& o, const std::string& extra_forms) {
  cmd->add_option("--form", o.form,
                  "The law fitted: " + fitting::fitFormNames() + " | auto" +
                      (extra_forms.empty() ? "" : " | " + extra_forms) +
                      " (frontier: L = E + A (C/C0)^-gamma; curved: a curvature term in ln C; "
                      "pinned-e: E fixed by --pin-e; auto: the form whose nested backtest errs "
                      "least on this ladder)")
      ->capture_default_str();
  cmd->add_option("--pin-e", o.pin_e,
                  "Pin the irreducible loss E of every arm to this value (form pinned-e)");
  cmd->add_option("--pin-e-source", o.pin_e_source,
                  "Where the pinned E comes from (required with --pin-e; printed with every "
                  "result)");
}

std::string applyFormOptions(const FormOptions& form, fitting::FrontierOptions& options,
                             const fitting::ResultsTable& table) {
  options.pinned_E = form.pin_e;
  options.pinned_E_source = form.pin_e_source;
  options.form = form.form;
  if (std::isfinite(form.pin_e) && form.form == "frontier") options.form = "pinned-e";
  if (!std::isfinite(form.pin_e) && !form.pin_e_source.empty())
    throw UserError("--pin-e-source: give the value too, with --pin-e");
  if (options.form != "auto") {
    fitting::fitForm(options.form).checkOptions(options);
    return "";
  }
  const fitting::FormChoice choice = fitting::chooseFormByBacktest(table, options);
  options.form = choice.chosen;
  return choice.reason;
}

void warnArmsWithoutFit(const fitting::FrontierResult& result) {
  for (const auto& f : result.arms)
    if (!f.no_fit.empty()) std::fprintf(stderr, "deepladder: warning: %s\n", f.no_fit.c_str());
}

void warnFitCaveats(const fitting::FrontierResult& result, const fitting::ResultsTable& table) {
  constexpr double kFarDecades = 15, kFarCompute = 1e30;
  std::map<std::string, std::set<double>> computes;
  double largest = 0;
  for (const auto& p : table.points) {
    computes[p.arm].insert(p.compute_flops);
    largest = std::max(largest, p.compute_flops);
  }
  for (const auto& f : result.arms) {
    if (!f.no_fit.empty() || f.n_points == 0) continue;
    const int parameters = f.n_points - f.dof;
    const int distinct = static_cast<int>(computes[f.arm].size());
    if (distinct - parameters <= 0)
      std::fprintf(stderr,
                   "deepladder: warning: arm %s: %d distinct compute(s) for %d fitted "
                   "parameter(s): no residual degrees of freedom, so its standard errors and "
                   "intervals say nothing. Add rungs\n",
                   f.arm.c_str(), distinct, parameters);
  }
  if (!(largest > 0) || result.multipliers.empty()) return;
  for (const auto& projected : result.multipliers.front().projected) {
    const double at = projected.compute;
    if (at > kFarCompute || std::log10(at / largest) > kFarDecades)
      std::fprintf(stderr,
                   "deepladder: warning: --at %g is %.0f decades beyond the largest run (%g "
                   "FLOPs): the multiplier there is the fitted law carried far outside its data, "
                   "not a measurement\n",
                   at, std::log10(at / largest), largest);
  }
}

void requireOneLadderNamed(storage::Database& db, const std::string& name,
                           const std::string& db_path) {
  const std::vector<storage::LadderRecord> ladders = db.laddersNamed(name);
  if (ladders.size() < 2) return;
  std::string list;
  for (const auto& l : ladders)
    list += "\n  --ladder " + l.hash + "  (ladder " + std::to_string(l.id) + ", " +
            std::to_string(db.listRuns(l.id).size()) + " runs)";
  throw UserError(std::to_string(ladders.size()) + " ladders in " + db_path + " are named \"" +
                  name +
                  "\" (a changed spec run again is a new ladder). Name one by its hash:" + list);
}

std::vector<double> parseComputeList(const std::string& text) {
  if (text.find_first_not_of(" ,") == std::string::npos)
    throw UserError("--at: '" + text +
                    "' names no compute. Give one or more, e.g. 1e20,1e22 (or leave out --at)");
  return parseNumberList(
      text, "--at", [](double v) { return v > 0 && std::isfinite(v); }, "a positive compute",
      "1e20,1e22");
}

std::vector<double> parseNumberList(const std::string& text, const std::string& option,
                                    const std::function<bool(double)>& accept,
                                    const std::string& what, const std::string& example) {
  std::vector<double> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    char* end = nullptr;
    const double v = std::strtod(item.c_str(), &end);
    if (item.empty() || *end != '\0' || !accept(v))
      throw UserError(option + ": '" + item + "' is not " + what + ". Give e.g. " + example);
    out.push_back(v);
  }
  return out;
}

std::string formatComputeList(const std::vector<double>& computes) {
  std::string text;
  for (double c : computes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", c);  // 1e+20
    std::string item = buf;
    const size_t e = item.find("e+");
    if (e != std::string::npos) item.erase(e + 1, 1);  // 1e20
    text += (text.empty() ? "" : ",") + item;
  }
  return text;
}

bool isSquaringLadder(storage::Database& db, const std::string& ladder) {
  return storage::isSquaringLadder(db, ladder);
}

fitting::SquaringLadderSummary readSquaringSummary(storage::Database& db,
                                                   const std::string& db_path,
                                                   const std::string& ladder, double c_ref) {
  std::vector<fitting::SquaringRunPoint> runs;
  for (const storage::SquaringPoint& p : storage::squaringPoints(db, db_path, ladder))
    runs.push_back({p.arm, p.run_id, p.compute, p.max_t_seen, p.max_t_unseen, p.ood_exact,
                    p.test_exact, p.admissible, p.inadmissible_options});
  return fitting::summarizeSquaringLadder(std::move(runs), c_ref);
}

}  // namespace deepladder::app

// --form auto (see form_choice.h).
#include "fitting/form_choice.h"

#include <cmath>
#include <cstdio>
#include <map>
#include <set>
#include <tuple>

#include "core/errors.h"
#include "fitting/backtest.h"
#include "fitting/fit_forms.h"

namespace deepladder::fitting {
namespace {

using RungKey = std::tuple<std::string, int, int>;  // arm, k, rank

std::string percent(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%.2f%%", 100 * v);
  return text;
}

}  // namespace

FormChoice chooseFormByBacktest(const ResultsTable& table, const FrontierOptions& options) {
  std::map<std::string, std::set<double>> computes;
  for (const RunPoint& p : table.points) computes[p.arm].insert(p.compute_flops);
  const auto base = computes.find(options.baseline);
  const int max_k =
      base == computes.end() ? 0 : static_cast<int>(base->second.size()) - kMinRungsLeft;

  FormChoice choice;
  std::map<std::string, std::map<RungKey, double>> errors;  // form -> rung -> rel_error
  for (const FitForm* form : fitForms()) {
    FormScore score;
    score.form = form->name();
    FrontierOptions o = options;
    o.form = form->name();
    o.bootstrap = 0;
    o.prediction_intervals = false;
    o.at.clear();
    try {
      form->checkOptions(o);
      if (max_k < 1)
        throw UserError("the baseline has too few rungs to hold one out (" +
                        std::to_string(max_k + kMinRungsLeft) + ")");
      const BacktestResult r = backtestFrontier(table, o, max_k);
      for (const BacktestPoint& p : r.points)
        if (std::isfinite(p.rel_error)) errors[form->name()][{p.arm, p.k, p.rank}] = p.rel_error;
      if (errors[form->name()].empty()) throw UserError("no held-out rung was predicted");
    } catch (const UserError& e) {
      score.not_scored = e.what();
      errors.erase(form->name());
    }
    choice.scores.push_back(score);
  }
  // The rungs every scored form predicted.
  std::set<RungKey> common;
  bool first = true;
  for (const auto& [form, rungs] : errors) {
    std::set<RungKey> keys;
    for (const auto& [key, e] : rungs)
      if (first || common.count(key)) keys.insert(key);
    common = std::move(keys);
    first = false;
  }
  for (FormScore& score : choice.scores) {
    if (!score.not_scored.empty()) continue;
    double sum_abs = 0, sum = 0;
    for (const RungKey& key : common) {
      const double e = errors.at(score.form).at(key);
      sum_abs += std::fabs(e);
      sum += e;
    }
    score.points = static_cast<int>(common.size());
    if (score.points > 0) {
      score.mean_abs_error = sum_abs / score.points;
      score.bias = sum / score.points;
    }
  }
  const FormScore* best = nullptr;
  for (const FormScore& score : choice.scores)
    if (std::isfinite(score.mean_abs_error) &&
        (!best || score.mean_abs_error < best->mean_abs_error))
      best = &score;
  if (!best) {
    std::string why;
    for (const FormScore& s : choice.scores) why += "; " + s.form + ": " + s.not_scored;
    throw UserError("--form auto: no form could be backtested on this ladder" + why);
  }
  choice.chosen = best->form;
  choice.reason = "form auto chose " + best->form + ": mean |error| of its nested backtest " +
                  percent(best->mean_abs_error) + " over " + std::to_string(best->points) +
                  " held-out rungs";
  for (const FormScore& s : choice.scores) {
    if (&s == best) continue;
    choice.reason += s.not_scored.empty() ? ", against " + s.form + " " + percent(s.mean_abs_error)
                                          : " (" + s.form + " not scored: " + s.not_scored + ")";
  }
  return choice;
}

}  // namespace deepladder::fitting

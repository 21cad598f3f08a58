// Suggestions as JSON and as a Markdown table (see suggest_report.h).
#include "fitting/suggest_report.h"

#include <cmath>
#include <cstdio>

#include "fitting/json_number.h"

namespace deepladder::fitting {
namespace {

std::string g3(double v) {
  if (!std::isfinite(v)) return "-";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

std::string intervalG3(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return "-";
  return "[" + g3(lo) + ", " + g3(hi) + "]";
}

}  // namespace

nlohmann::json suggestionsToJson(const SuggestResult& r, int limit) {
  nlohmann::json unfitted = nlohmann::json::array(), candidates = nlohmann::json::array();
  for (const auto& u : r.unfitted) unfitted.push_back({{"arm", u.arm}, {"reason", u.reason}});
  int n = 0;
  for (const auto& s : r.ranked) {
    if (limit > 0 && n++ >= limit) break;
    const auto& run = s.candidate.run;
    candidates.push_back({{"run", run.name},
                          {"arm", run.arm},
                          {"size", run.size},
                          {"seed", run.seed},
                          {"kind", ladder::candidateKindName(s.candidate.kind)},
                          {"cost_flops", jsonNumber(s.cost_flops)},
                          {"hours", jsonNumber(s.hours)},
                          {"needed", s.needed},
                          {"width_before", jsonNumber(s.width_before)},
                          {"width_after", jsonNumber(s.width_after)},
                          {"narrowing", jsonNumber(s.narrowing)},
                          {"narrowing_se", jsonNumber(s.narrowing_se)},
                          {"score", jsonNumber(s.score)},
                          {"shown_arm", s.shown_arm},
                          {"interval_before", {jsonNumber(s.before_lo), jsonNumber(s.before_hi)}},
                          {"interval_after", {jsonNumber(s.after_lo), jsonNumber(s.after_hi)}},
                          {"draws_used", s.draws_used},
                          {"why", s.why}});
  }
  return {{"target", jsonNumber(r.target)},
          {"counted_arms", r.counted_arms},
          {"width_before", jsonNumber(r.width_before)},
          {"seed_share", jsonNumber(r.seed_share)},
          {"seed_dof", r.seed_dof},
          {"unfitted", unfitted},
          {"candidates", candidates}};
}

std::string suggestionsMarkdown(const SuggestResult& r, int limit) {
  std::string out =
      "What to run next: expected narrowing of the interval of M(" + g3(r.target) + ") per FLOP";
  if (!r.counted_arms.empty()) {
    out += " (arms:";
    for (const auto& a : r.counted_arms) out += " " + a;
    out += "; summed width now " + g3(r.width_before) + ")";
  }
  out +=
      "\nIntervals here are the scorer's own (every run a point, residuals drawn with each arm's "
      "current scatter), so they can differ from `fit`'s\n";
  if (std::isfinite(r.seed_share))
    out += "Seeds' share of the runs' scatter: " + g3(r.seed_share) + " (from " +
           std::to_string(r.seed_dof) +
           " degrees of freedom of seed scatter); an extra seed counts for that share\n";
  else
    out += "Seed scatter not measured yet (" + std::to_string(r.seed_dof) + " of " +
           std::to_string(kSeedScatterDof) +
           " degrees of freedom): extra seeds score 0 until rungs are repeated\n";
  for (const auto& u : r.unfitted)
    out += "  " + u.arm + " cannot be fitted yet: " + u.reason + "\n";
  out +=
      "\n| # | run | kind | cost FLOPs | hours | interval now | expected after | narrowing | "
      "per FLOP | why |\n|---|---|---|---|---|---|---|---|---|---|\n";
  int n = 0;
  for (const auto& s : r.ranked) {
    if (limit > 0 && n >= limit) break;
    ++n;
    char row[160];
    std::snprintf(row, sizeof row, "| %d | %s | %s | %s | %s | ", n, s.candidate.run.name.c_str(),
                  ladder::candidateKindName(s.candidate.kind), g3(s.cost_flops).c_str(),
                  g3(s.hours).c_str());
    out += row;
    out +=
        intervalG3(s.before_lo, s.before_hi) + " | " + intervalG3(s.after_lo, s.after_hi) + " | ";
    out += (s.needed ? std::string("needed") : g3(s.narrowing)) + " | " + g3(s.score) + " | " +
           s.why + " |\n";
  }
  if (r.ranked.empty()) out += "| - | no candidate within the budget | | | | | | | | |\n";
  return out;
}

}  // namespace deepladder::fitting

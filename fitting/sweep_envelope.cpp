// The sweep envelope of a ladder's results (see sweep_envelope.h).
#include "fitting/sweep_envelope.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "core/ladder/sweep.h"

namespace deepladder::fitting {
namespace {

// Whether the chosen point sits at an end of one of its axes among the rung's points, those a
// halving stop ended early (`stopped`: tried, and losing) included.
void markEdge(SweepRungChoice& rung, const std::set<std::string>& stopped) {
  std::vector<std::string> tried(stopped.begin(), stopped.end());
  for (const SweepPointLoss& p : rung.points) tried.push_back(p.label);
  const auto chosen = ladder::parseSweepLabel(rung.chosen);
  for (size_t axis = 0; axis < chosen.size(); ++axis) {
    std::set<double> values;
    bool numeric = true;  // a choice or a boolean axis has no ends
    for (const std::string& label : tried) {
      const auto parsed = ladder::parseSweepLabel(label);
      if (axis >= parsed.size() || parsed[axis].first != chosen[axis].first) continue;
      const double v = ladder::sweepValueNumber(parsed[axis].second);
      if (std::isnan(v))
        numeric = false;
      else
        values.insert(v);
    }
    const double v = ladder::sweepValueNumber(chosen[axis].second);
    if (!numeric || std::isnan(v) || values.size() < 2) continue;
    const bool low = v <= *values.begin(), high = v >= *values.rbegin();
    if (!low && !high) continue;
    rung.at_edge = true;
    rung.edge = chosen[axis].first + " " + chosen[axis].second +
                (low ? ", the smallest tried" : ", the largest tried");
    return;
  }
}

}  // namespace

SweepEnvelope sweepEnvelope(const ResultsTable& table) {
  SweepEnvelope out;
  out.table.source = table.source;
  using Rung = std::pair<std::string, std::string>;  // arm, size
  std::map<Rung, std::map<std::string, std::vector<const RunPoint*>>> swept;
  std::set<Rung> rungs_with_sweep;
  for (const RunPoint& p : table.points)
    if (!p.sweep.empty()) rungs_with_sweep.insert({p.arm, p.size});
  std::map<Rung, std::set<std::string>> stopped;
  for (const RunPoint& p : table.stopped)
    if (!p.sweep.empty()) stopped[{p.arm, p.size}].insert(p.sweep);
  for (const RunPoint& p : table.points) {
    if (rungs_with_sweep.count({p.arm, p.size}))
      swept[{p.arm, p.size}][p.sweep].push_back(&p);
    else
      out.table.points.push_back(p);
  }
  for (const auto& [rung, by_point] : swept) {
    SweepRungChoice choice;
    choice.arm = rung.first;
    choice.size = rung.second;
    for (const auto& [label, points] : by_point) {
      double sum = 0;
      for (const RunPoint* p : points) sum += p->val_loss;
      SweepPointLoss loss{label, sum / double(points.size()), int(points.size())};
      // NaN loses to any number; ties keep the first label.
      if (std::isfinite(loss.mean_loss) &&
          (!std::isfinite(choice.mean_loss) || loss.mean_loss < choice.mean_loss)) {
        choice.mean_loss = loss.mean_loss;
        choice.chosen = label;
      }
      choice.points.push_back(std::move(loss));
    }
    if (choice.chosen.empty()) choice.chosen = by_point.begin()->first;
    double compute = 0;
    for (const RunPoint* p : by_point.at(choice.chosen)) {
      out.table.points.push_back(*p);
      compute += p->compute_flops;
    }
    choice.compute = compute / double(by_point.at(choice.chosen).size());
    markEdge(choice, stopped[rung]);
    out.rungs.push_back(std::move(choice));
  }
  std::sort(out.rungs.begin(), out.rungs.end(),
            [](const SweepRungChoice& a, const SweepRungChoice& b) {
              return a.arm != b.arm ? a.arm < b.arm : a.compute < b.compute;
            });
  return out;
}

std::vector<FitDiagnostic> sweepEdgeDiagnostics(const std::vector<SweepRungChoice>& rungs) {
  std::vector<FitDiagnostic> out;
  for (const SweepRungChoice& r : rungs)
    if (r.at_edge)
      out.push_back(
          {"sweep_edge", r.arm,
           "best at edge: extend the sweep (" + r.arm + " " + r.size + ": " + r.edge + ")"});
  return out;
}

std::vector<ladder::SweepEdge> sweepEdges(const std::vector<SweepRungChoice>& rungs) {
  std::vector<ladder::SweepEdge> edges;
  for (const SweepRungChoice& r : rungs) {
    if (!r.at_edge) continue;
    ladder::SweepEdge e{r.arm, r.size, r.chosen, {}};
    for (const SweepPointLoss& p : r.points) e.tried.push_back(p.label);
    edges.push_back(std::move(e));
  }
  return edges;
}

}  // namespace deepladder::fitting

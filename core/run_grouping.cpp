// Grouping runs by option values and collapsing seeds (see run_grouping.h).
#include "core/run_grouping.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>

namespace deepladder {
namespace {

std::optional<double> asNumber(const std::string& text) {
  if (text.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (end != text.c_str() + text.size() || errno == ERANGE) return std::nullopt;
  return v;
}

bool valuesLess(const std::vector<std::string>& a, const std::vector<std::string>& b) {
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    if (optionValueLess(a[i], b[i])) return true;
    if (optionValueLess(b[i], a[i])) return false;
  }
  return a.size() < b.size();
}

}  // namespace

bool optionValueLess(const std::string& a, const std::string& b) {
  const auto na = asNumber(a), nb = asNumber(b);
  if (na && nb && *na != *nb) return *na < *nb;
  if (na && nb) return a < b;           // same number spelt differently: any fixed order
  if (na != nb) return na.has_value();  // numbers before words
  return a < b;
}

std::string shortOptionName(const std::string& name) {
  const auto dot = name.rfind('.');
  return dot == std::string::npos ? name : name.substr(dot + 1);
}

std::vector<RunGroup> groupRuns(const std::vector<OptionValues>& runs,
                                const std::vector<std::string>& group_by) {
  std::vector<RunGroup> groups;
  for (size_t r = 0; r < runs.size(); ++r) {
    std::vector<std::string> values;
    for (const auto& option : group_by) {
      const auto it = runs[r].find(option);
      values.push_back(it == runs[r].end() ? std::string() : it->second);
    }
    auto it = std::find_if(groups.begin(), groups.end(),
                           [&](const RunGroup& g) { return g.values == values; });
    if (it == groups.end()) {
      RunGroup g;
      g.values = values;
      for (size_t i = 0; i < group_by.size(); ++i)
        g.label += (i ? ", " : "") + shortOptionName(group_by[i]) + "=" + values[i];
      if (group_by.empty()) g.label = "all runs";
      groups.push_back(std::move(g));
      it = groups.end() - 1;
    }
    it->members.push_back(r);
  }
  std::stable_sort(groups.begin(), groups.end(), [](const RunGroup& a, const RunGroup& b) {
    return valuesLess(a.values, b.values);
  });
  return groups;
}

std::vector<std::string> varyingOptions(const std::vector<OptionValues>& runs) {
  std::map<std::string, std::set<std::string>> seen;
  for (const auto& run : runs)
    for (const auto& [name, value] : run) seen[name].insert(value);
  std::vector<std::string> out;
  for (const auto& [name, values] : seen) {
    // An option some runs lack varies too (they count as "").
    bool everywhere = true;
    for (const auto& run : runs) everywhere = everywhere && run.count(name);
    if (values.size() > 1 || (!everywhere && !values.empty())) out.push_back(name);
  }
  return out;
}

double interpolateAt(const std::vector<double>& xs, const std::vector<double>& ys, double x) {
  if (xs.empty()) return std::numeric_limits<double>::quiet_NaN();
  if (x <= xs.front()) return ys.front();
  if (x >= xs.back()) return ys.back();
  const size_t i = static_cast<size_t>(std::upper_bound(xs.begin(), xs.end(), x) - xs.begin());
  const double x0 = xs[i - 1], x1 = xs[i];
  if (x1 == x0) return ys[i];
  const double t = (x - x0) / (x1 - x0);
  return ys[i - 1] + t * (ys[i] - ys[i - 1]);
}

CollapsedCurve collapseCurves(const std::vector<CurveRef>& curves, SeedBand band, int grid_points,
                              bool log_grid) {
  CollapsedCurve out;
  // The finite points of each curve (a NaN loss or a missing x would poison the mean).
  std::vector<std::pair<std::vector<double>, std::vector<double>>> finite;
  for (const auto& c : curves) {
    std::vector<double> x, y;
    for (size_t i = 0; i < c.x->size() && i < c.y->size(); ++i)
      if (std::isfinite((*c.x)[i]) && std::isfinite((*c.y)[i])) {
        x.push_back((*c.x)[i]);
        y.push_back((*c.y)[i]);
      }
    if (!x.empty()) finite.emplace_back(std::move(x), std::move(y));
  }
  if (finite.empty() || grid_points < 1) return out;
  double lo = -std::numeric_limits<double>::infinity(), hi = -lo;
  for (const auto& [x, y] : finite) {
    lo = std::max(lo, x.front());
    hi = std::min(hi, x.back());
  }
  if (lo > hi) return out;
  const int n = lo == hi ? 1 : grid_points;
  const bool geometric = log_grid && lo > 0;
  out.x.resize(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    const double t = n == 1 ? 0.0 : static_cast<double>(i) / (n - 1);
    out.x[static_cast<size_t>(i)] =
        geometric ? std::exp(std::log(lo) + t * (std::log(hi) - std::log(lo))) : lo + t * (hi - lo);
  }
  out.x.back() = hi;  // exactly the range's end, not one rounding away from it
  out.runs = static_cast<int>(finite.size());
  out.mean.assign(out.x.size(), 0.0);
  out.lo.assign(out.x.size(), 0.0);
  out.hi.assign(out.x.size(), 0.0);
  std::vector<double> values(finite.size());
  for (size_t g = 0; g < out.x.size(); ++g) {
    double sum = 0.0;
    for (size_t r = 0; r < finite.size(); ++r) {
      values[r] = interpolateAt(finite[r].first, finite[r].second, out.x[g]);
      sum += values[r];
    }
    const double mean = sum / static_cast<double>(values.size());
    out.mean[g] = mean;
    if (band == SeedBand::kMinMax) {
      const auto [mn, mx] = std::minmax_element(values.begin(), values.end());
      out.lo[g] = *mn;
      out.hi[g] = *mx;
    } else {
      double ss = 0.0;
      for (double v : values) ss += (v - mean) * (v - mean);
      const double sd =
          values.size() > 1 ? std::sqrt(ss / static_cast<double>(values.size() - 1)) : 0.0;
      out.lo[g] = mean - sd;
      out.hi[g] = mean + sd;
    }
  }
  return out;
}

}  // namespace deepladder

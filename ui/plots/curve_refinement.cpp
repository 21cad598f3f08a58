// Finer reads of zoomed curves spliced into the loaded ones (see curve_refinement.h).
#include "ui/plots/curve_refinement.h"

#include <algorithm>

#include "core/metric_pyramid.h"

namespace deepladder::plots {

std::optional<StepRange> stepsToRefine(const CurveSeries& s, double x_lo, double x_hi, int pixels) {
  if (s.steps.size() != s.x.size() || s.x.empty() || s.bucket_steps <= 1 || pixels <= 0)
    return std::nullopt;
  const auto first = std::lower_bound(s.x.begin(), s.x.end(), x_lo);
  const auto last = std::upper_bound(s.x.begin(), s.x.end(), x_hi);
  size_t i0 = static_cast<size_t>(first - s.x.begin());
  size_t i1 = static_cast<size_t>(last - s.x.begin());
  if (i0 > 0) --i0;
  if (i1 >= s.x.size()) i1 = s.x.size() - 1;
  if (i1 < i0) return std::nullopt;
  const StepRange range{s.steps[i0], s.steps[i1]};
  const int level = pyramidLevelForPixels(range.hi - range.lo + 1, pixels);
  const int64_t needed = level < 0 ? 1 : pyramidBucketSteps(level);
  const bool within_fine = range.lo >= s.fine_lo && range.hi <= s.fine_hi;
  const int64_t have = within_fine ? s.fine_bucket_steps : s.bucket_steps;
  if (have <= needed) return std::nullopt;
  return range;
}

void spliceFinerPoints(CurveSeries& s, const CurveSeries& fine, StepRange range) {
  if (fine.steps.empty()) return;
  const int64_t lo = std::min(range.lo, fine.steps.front());
  const int64_t hi = std::max(range.hi, fine.steps.back());
  const auto begin = std::lower_bound(s.steps.begin(), s.steps.end(), lo) - s.steps.begin();
  const auto end = std::upper_bound(s.steps.begin(), s.steps.end(), hi) - s.steps.begin();
  auto splice = [begin, end](auto& into, const auto& from) {
    into.erase(into.begin() + begin, into.begin() + end);
    into.insert(into.begin() + begin, from.begin(), from.end());
  };
  // Points per row, weighted by how many points each part keeps.
  const double old_rows = s.rows_per_point * static_cast<double>(s.x.size() - (end - begin));
  splice(s.x, fine.x);
  splice(s.y, fine.y);
  splice(s.steps, fine.steps);
  s.rows_per_point = s.x.empty() ? 1.0
                                 : (old_rows + fine.rows_per_point * fine.x.size()) /
                                       static_cast<double>(s.x.size());
  s.fine_lo = range.lo;
  s.fine_hi = range.hi;
  s.fine_bucket_steps = fine.bucket_steps;
}

}  // namespace deepladder::plots

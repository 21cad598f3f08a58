// Min/max-per-pixel-column decimation and EMA smoothing (see decimation.h).
#include "ui/plots/decimation.h"

#include <algorithm>
#include <cmath>

namespace deepladder::plots {

DecimatedCurve decimateMinMax(const std::vector<double>& xs, const std::vector<double>& ys,
                              double x_lo, double x_hi, int columns, bool log_x, double y_pixel,
                              bool log_y) {
  DecimatedCurve out;
  const size_t n = std::min(xs.size(), ys.size());
  if (n == 0 || columns < 1) return out;
  auto coord = [log_x](double x) { return log_x ? std::log10(x) : x; };
  if (log_x) {
    x_lo = std::max(x_lo, 1e-300);
    x_hi = std::max(x_hi, x_lo);
  }
  const double c_lo = coord(x_lo), c_hi = coord(x_hi);
  const double width = c_hi > c_lo ? (c_hi - c_lo) / columns : 1.0;

  // Visible index range [first, last), widened by one point on each side.
  size_t first = std::lower_bound(xs.begin(), xs.begin() + n, x_lo) - xs.begin();
  size_t last = std::upper_bound(xs.begin(), xs.begin() + n, x_hi) - xs.begin();
  if (first > 0) --first;
  if (last < n) ++last;
  if (log_x)
    while (first < last && !(xs[first] > 0)) ++first;
  out.x.reserve(static_cast<int>(std::min<size_t>(last - first, 2 * columns + 2)));
  out.y.reserve(out.x.capacity());

  long current_column = -2;  // no column yet (columns run -1 .. columns)
  size_t min_i = 0, max_i = 0;
  bool have = false;
  auto flush = [&] {
    if (!have) return;
    const size_t a = std::min(min_i, max_i), b = std::max(min_i, max_i);
    out.x.push_back(xs[a]);
    out.y.push_back(ys[a]);
    const bool within_pixel =
        y_pixel > 0 && (log_y ? ys[min_i] > 0 && std::log10(ys[max_i] / ys[min_i]) < y_pixel
                              : ys[max_i] - ys[min_i] < y_pixel);
    if (b != a && !within_pixel) {
      out.x.push_back(xs[b]);
      out.y.push_back(ys[b]);
    }
    have = false;
  };
  for (size_t i = first; i < last; ++i) {
    const double y = ys[i];
    if (!std::isfinite(y)) continue;
    const double c = coord(xs[i]);
    long column = static_cast<long>(std::floor((c - c_lo) / width));
    column = std::clamp<long>(column, -1, columns);  // -1 / columns: the outside neighbours
    if (column != current_column) {
      flush();
      current_column = column;
      min_i = max_i = i;
      have = true;
    } else {
      if (y < ys[min_i]) min_i = i;
      if (y > ys[max_i]) max_i = i;
    }
  }
  flush();
  return out;
}

std::vector<double> emaSmooth(const std::vector<double>& ys, double weight) {
  if (!(weight > 0.0)) return ys;
  weight = std::min(weight, 0.999);
  std::vector<double> out(ys.size());
  double last = 0.0, debias = 0.0;
  for (size_t i = 0; i < ys.size(); ++i) {
    const double y = ys[i];
    if (!std::isfinite(y)) {
      out[i] = y;
      continue;
    }
    last = weight * last + (1.0 - weight) * y;
    debias = weight * debias + (1.0 - weight);
    out[i] = last / debias;
  }
  return out;
}

}  // namespace deepladder::plots

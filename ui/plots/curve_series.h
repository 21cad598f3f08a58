// A metric curve (core/metric_curve.h, as Database::readCurve reads it) as one series of the
// curves plot: x from the chosen axis (step, tokens or FLOPs), y the value, and what the zoom
// needs to refine it later (curve_refinement.h): each point's step, the steps a bucket spans and
// how many rows a point stands for.
#pragma once

#include <QString>
#include <cstdint>

#include "core/metric_curve.h"
#include "ui/plots/curves_plot.h"

namespace deepladder::plots {

CurveSeries curveSeries(const MetricCurve& curve, CurveAxis axis, const QString& label,
                        int64_t run_id);

}  // namespace deepladder::plots

// The points of a scatter of runs (core/scatter_spec.h) read from the database: one per finished
// run (of the spec's ladder, or of every ladder) with the statistic of its metric as y and the
// spec's x (a derived quantity from its runs row, or a numeric option), grouped by the spec's
// option. Runs without a finite y or x are left out and counted, so the plot can say so.
#pragma once

#include <string>
#include <vector>

#include "core/scatter_spec.h"
#include "storage/database.h"

namespace deepladder::storage {

struct ScatterData {
  std::vector<ScatterPoint> points;  // by group (as groupRuns orders values), then x
  std::vector<std::string> groups;   // the groups in that order
  std::string x_label, y_label;      // axis titles
  int left_out = 0;                  // finished runs without a finite y or x
  std::string left_out_example;      // the first of them and why ("run #4: no val/loss")
};

// UserError when the ladder is unknown, when x is neither a derived quantity nor an option (with
// the nearest name), when x is an option whose values are not numbers, or when the group is not
// an option.
ScatterData readScatterPoints(Database& db, const ScatterSpec& spec);

// The x axis's title for `x` ("parameters", "training compute (FLOPs)", "lr_mult").
std::string scatterAxisTitle(const std::string& x);

}  // namespace deepladder::storage

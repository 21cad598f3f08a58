// The depth-sweep plot: final validation loss against executed depth (blocks) at fixed width,
// one line per arm through the mean over seeds at each depth, every run as a point; depth on a
// log2 axis. Points come from a ladder's finished runs in the database (its configs give the
// executed blocks of the final model).
#pragma once

#include <QString>
#include <string>
#include <vector>

class QCustomPlot;

namespace deepladder::storage {
class Database;
}

namespace deepladder::plots {

struct DepthPoint {
  std::string arm;
  double depth = 0;  // executed blocks of the final model
  double loss = 0;   // final validation loss
};

// The finished runs of `ladder` with a final loss; UserError naming the database when none.
std::vector<DepthPoint> depthPointsFromDatabase(storage::Database& db, const std::string& db_label,
                                                const std::string& ladder);

struct DepthPlotInput {
  std::vector<DepthPoint> points;
  QString title;  // "" = none
};

void drawDepthSweep(QCustomPlot& plot, const DepthPlotInput& input);

}  // namespace deepladder::plots

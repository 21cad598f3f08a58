// Serial task: a run's accuracy map over (modulus bits x T) from the evals table (the latest
// step; test, OOD and depth cells pooled), as a heatmap with each cell's accuracy written in it,
// out-of-distribution cells outlined (from the run's squaring tier), and beside it the cell's
// population chance and, where the tier fixes N, its composition ceiling (both from core:
// core/squaring/baselines.h, run_maps.h); below, accuracy against T per modulus size with the
// population chance line of a fixed N.
#pragma once

#include <QWidget>
#include <cstdint>
#include <string>
#include <vector>

#include "storage/records.h"

class QCustomPlot;
class QComboBox;
class QLabel;

namespace deepladder::ui {

class SerialTaskView : public QWidget {
  Q_OBJECT
 public:
  explicit SerialTaskView(QWidget* parent = nullptr);
  void setDatabase(const QString& path);
  void reloadRuns();
  void showRun(int64_t run_id);
  QCustomPlot* heatmap() const { return heatmap_; }
  QCustomPlot* depthPlot() const { return by_t_; }

 private:
  QString db_path_;
  QComboBox* run_;
  QLabel* status_;
  QCustomPlot* heatmap_;
  QCustomPlot* by_t_;
};

}  // namespace deepladder::ui

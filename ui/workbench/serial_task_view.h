// Serial task: a run's accuracy map over (modulus bits x T) from the evals table, as a heatmap
// with each cell's accuracy written in it, out-of-distribution cells outlined (from the run's
// squaring tier), and the chance level (always answering the commonest answer) where the
// tier fixes N; below, accuracy against T (test-time iterations) per modulus size.
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

// Fraction of units x mod N whose x^(2^T) mod N is the commonest value (chance of always
// answering it). N must be small (the fixed-N tiers: 323, ...).
double squaringChance(uint64_t n, int64_t t);

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

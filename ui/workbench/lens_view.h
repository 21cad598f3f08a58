// Lens: a run's logit-lens KL-by-block profiles at each eval with d_lens marked, and d_lens vs
// training compute for every run of the same ladder, one series per arm.
#pragma once

#include <QWidget>

class QCustomPlot;
class QComboBox;
class QDoubleSpinBox;
class QLabel;

namespace deepladder::ui {

class LensView : public QWidget {
  Q_OBJECT
 public:
  explicit LensView(QWidget* parent = nullptr);
  void setDatabase(const QString& path);
  void reloadRuns();
  void showRun(int64_t run_id);
  QCustomPlot* profilePlot() const { return profile_; }
  QCustomPlot* depthPlot() const { return depth_; }

 private:
  QString db_path_;
  QComboBox* run_;
  QDoubleSpinBox* eps_;
  QLabel* status_;
  QCustomPlot* profile_;
  QCustomPlot* depth_;
};

}  // namespace deepladder::ui

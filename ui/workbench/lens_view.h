// Lens: a run's logit-lens KL-by-block profiles at each eval with d_lens marked, and d_lens vs
// training compute for every run of the same ladder, one series per arm. The rows load off the
// GUI thread (picked_run_view.h: a newer request supersedes one still loading), and changing ε
// only redraws what was loaded.
#pragma once

#include "ui/workbench/picked_run_view.h"

class QCustomPlot;
class QDoubleSpinBox;

namespace deepladder::ui {

// Lists the runs with lens rows (setDatabase, reloadRuns, showRun, loaded: picked_run_view.h).
class LensView : public PickedRunView {
  Q_OBJECT
 public:
  explicit LensView(QWidget* parent = nullptr);
  ~LensView() override;
  QCustomPlot* profilePlot() const { return profile_; }
  QCustomPlot* depthPlot() const { return depth_; }

 private:
  void draw() override;
  QDoubleSpinBox* eps_;
  QCustomPlot* profile_;
  QCustomPlot* depth_;
};

}  // namespace deepladder::ui

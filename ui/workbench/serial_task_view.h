// Serial task: a run's accuracy map over (modulus bits x T) from the evals table (the latest
// step; test, OOD and depth cells pooled), as a heatmap with each cell's accuracy written in it,
// out-of-distribution cells outlined (from the run's squaring tier), and beside it the cell's
// population chance and, where the tier fixes N, its composition ceiling (both from core:
// core/squaring/baselines.h, run_maps.h); below, accuracy against T per modulus size with the
// population chance line of a fixed N. The rows load off the GUI thread (serial_task_data.h,
// picked_run_view.h: a newer request supersedes one still loading). The two plots are drawn by
// ui/plots/squaring_run_plot.h, so `deepladder plot squaring-heatmap --run ID` renders the same.
#pragma once

#include "ui/workbench/picked_run_view.h"

class QCustomPlot;

namespace deepladder::ui {

struct SerialTaskData;

// Lists the runs with evals (setDatabase, reloadRuns, showRun, loaded: picked_run_view.h).
class SerialTaskView : public PickedRunView {
  Q_OBJECT
 public:
  explicit SerialTaskView(QWidget* parent = nullptr);
  ~SerialTaskView() override;
  QCustomPlot* heatmap() const { return heatmap_; }
  QCustomPlot* depthPlot() const { return by_t_; }

 private:
  void draw() override;
  void drawCells(const SerialTaskData& data);
  void showScoreLine(const SerialTaskData& data);
  QCustomPlot* heatmap_;
  QCustomPlot* by_t_;
};

}  // namespace deepladder::ui

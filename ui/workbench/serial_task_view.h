// Serial task: a run's accuracy map over (modulus bits x T) from the evals table (the latest
// step; test, OOD and depth cells pooled), as a heatmap with each cell's accuracy written in it,
// out-of-distribution cells outlined (from the run's squaring tier), and beside it the cell's
// population chance and, where the tier fixes N, its composition ceiling (both from core:
// core/squaring/baselines.h, run_maps.h); below, accuracy against T per modulus size with the
// population chance line of a fixed N. The rows load off the GUI thread (runInBackground,
// serial_task_data.h); a newer request supersedes one still loading.
#pragma once

#include <QWidget>
#include <cstdint>

class QCustomPlot;
class QComboBox;
class QLabel;

namespace deepladder::ui {

struct SerialTaskData;

class SerialTaskView : public QWidget {
  Q_OBJECT
 public:
  explicit SerialTaskView(QWidget* parent = nullptr);
  ~SerialTaskView() override;
  void setDatabase(const QString& path);
  // Re-lists the runs with evals and shows the chosen one (in the background).
  void reloadRuns();
  // Shows `run_id` (loaded in the background).
  void showRun(int64_t run_id);
  // True while a load is on its way.
  bool loading() const { return pending_ > 0; }
  QCustomPlot* heatmap() const { return heatmap_; }
  QCustomPlot* depthPlot() const { return by_t_; }

 signals:
  // The newest request's rows arrived and were drawn (or it failed: see the status line).
  void loaded();

 private:
  void request(bool list_runs, int64_t run_id);
  void draw(const SerialTaskData& data);
  QString db_path_;
  int generation_ = 0;  // results of older requests are dropped
  int pending_ = 0;
  QComboBox* run_;
  QLabel* status_;
  QCustomPlot* heatmap_;
  QCustomPlot* by_t_;
};

}  // namespace deepladder::ui

// Compare: overlay any metric of any runs (across ladders) against step, tokens or FLOPs, on
// linear or log axes, with EMA smoothing over the faint raw curve, a hover read-out, legend
// toggles, and drag/wheel pan and zoom; a Sweep tab beside it (sweep_pane.h). Curves load on a
// worker thread; every redraw hands QCustomPlot only min/max per pixel column (plots/decimation.h).
#pragma once

#include <QWidget>
#include <cstdint>
#include <optional>
#include <vector>

#include "storage/records.h"
#include "ui/plots/curves_plot.h"

class QCustomPlot;
class QListWidget;
class QComboBox;
class QCheckBox;
class QSlider;
class QLabel;
class QTimer;
class QMouseEvent;

namespace deepladder::ui {

class SweepPane;

class CompareView : public QWidget {
  Q_OBJECT
 public:
  explicit CompareView(QWidget* parent = nullptr);
  void setDatabase(const QString& path);
  // Refreshes the run list in the background (keeps the checked runs).
  void reloadRuns();
  // Checks `ids` (once the run list being loaded has arrived) and loads their curves.
  void setCheckedRuns(const std::vector<int64_t>& ids);
  std::vector<int64_t> checkedRuns() const;
  QCustomPlot* plot() const { return plot_; }
  // The Sweep tab (a ladder's loss against its swept values), built on first use.
  SweepPane* sweepPane();
  // The curves as loaded (and refined by zooms since).
  const plots::CurvesPlotInput& curves() const { return input_; }
  // Loads the checked runs' curves now (blocking); for tests and the benchmark. Curves are read
  // through the metric pyramid at the plot's width, or every row with every_row.
  void loadNow(bool every_row = false);

 signals:
  void curvesDrawn(int series, qint64 milliseconds);

 private:
  void requestCurves();
  void showRunList(const std::vector<storage::RunSummary>& runs);
  // After a pan or zoom: reads finer buckets for the visible steps of curves that need them.
  void refineVisibleCurves();
  int plotPixels() const;
  void draw();
  void onHover(QMouseEvent* event);
  QString db_path_;
  QListWidget* runs_;
  QComboBox* metric_;
  QComboBox* axis_;
  QCheckBox* log_x_;
  QCheckBox* log_y_;
  QSlider* smoothing_;
  QLabel* readout_;
  QCustomPlot* plot_;
  QWidget* sweep_page_;
  SweepPane* sweep_ = nullptr;
  plots::CurvesPlotInput input_;
  int generation_ = 0;
  int list_generation_ = 0;  // run lists of older requests are dropped
  int list_pending_ = 0;
  std::optional<std::vector<int64_t>> wanted_checked_;  // asked for while the list loads
  QTimer* refine_timer_;
};

}  // namespace deepladder::ui

// Compare: overlay any metric of any runs (across ladders) against step, tokens or FLOPs, on
// linear or log axes, with EMA smoothing over the faint raw curve, a hover read-out, legend
// toggles, and drag/wheel pan and zoom; grouped by one or more options (arm, size, ladder, seed,
// any run option) with each group's seeds collapsed to a mean with a min-max or +-1 sd band
// (grouped_curves.h); a Sweep tab (sweep_pane.h) and a Scatter tab (scatter_pane.h) beside it.
// Curves load on a worker thread; every redraw hands QCustomPlot only min/max per pixel column
// (plots/decimation.h).
#pragma once

#include <QWidget>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/run_grouping.h"
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
class ScatterPane;

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
  // The Scatter tab (a summary of each run against an option, with fitted laws), built on first
  // use.
  ScatterPane* scatterPane();
  // The curves as loaded (and refined by zooms since), one per run.
  const plots::CurvesPlotInput& curves() const { return input_; }
  // What the plot shows: the groups' mean curves with their bands when grouping, else curves().
  const plots::CurvesPlotInput& shownCurves() const { return grouped() ? grouped_ : input_; }
  // Grouping: the options offered (arm, size, ladder, seed, then the run options whose value
  // differs between runs of the database), the ones checked (in the list's order), and the band.
  std::vector<std::string> groupableOptions() const;
  void setGroupBy(const std::vector<std::string>& options);
  std::vector<std::string> groupBy() const;
  void setSeedBand(SeedBand band);
  bool grouped() const { return !groupBy().empty(); }
  // Loads the checked runs' curves now (blocking); for tests and the benchmark. Curves are read
  // through the metric pyramid at the plot's width, or every row with every_row.
  void loadNow(bool every_row = false);

 signals:
  void curvesDrawn(int series, qint64 milliseconds);

 private:
  void requestCurves();
  // The group-by options changed: redraw, or reload first when the runs' option values are
  // missing (plain overlays do not read them).
  void groupingChanged();
  void showRunList(const std::vector<storage::RunSummary>& runs,
                   const std::vector<std::string>& groupable);
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
  QListWidget* group_by_;
  QComboBox* band_;
  QLabel* readout_;
  QCustomPlot* plot_;
  QWidget* sweep_page_;
  SweepPane* sweep_ = nullptr;
  QWidget* scatter_page_;
  ScatterPane* scatter_ = nullptr;
  plots::CurvesPlotInput input_;
  std::map<int64_t, OptionValues> rows_;  // the loaded runs' option values, for grouping
  plots::CurvesPlotInput grouped_;        // input_ grouped (when grouping)
  int generation_ = 0;
  int list_generation_ = 0;  // run lists of older requests are dropped
  int list_pending_ = 0;
  std::optional<std::vector<int64_t>> wanted_checked_;  // asked for while the list loads
  QTimer* refine_timer_;
};

}  // namespace deepladder::ui

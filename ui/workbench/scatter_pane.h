// The Compare view's Scatter tab: one point per finished run, a summary statistic of a metric
// (final, minimum, mean of the last k values, at a step or at a compute) against a numeric option
// or a derived quantity (parameters, tokens, FLOPs, tokens per parameter, lr), log or linear,
// grouped and coloured by another option, with each group's fitted law over its points
// (fitting/scatter_law.h; the ladder's own L(C) fit for final loss against FLOPs). A view can be
// saved under a name in the database and reopened here or drawn by `deepladder plot scatter
// --view NAME`. The database is read off the GUI thread.
#pragma once

#include <QWidget>
#include <string>
#include <vector>

#include "core/scatter_spec.h"
#include "ui/plots/scatter_plot.h"

class QCheckBox;
class QComboBox;
class QCustomPlot;
class QLabel;
class QLineEdit;
class QPushButton;
class QSpinBox;

namespace deepladder::ui {

class ScatterPane : public QWidget {
  Q_OBJECT
 public:
  explicit ScatterPane(QWidget* parent = nullptr);
  void setDatabase(const QString& path);
  // Rereads the choices (ladders, options, saved views) in the background, then redraws.
  void reload();
  QCustomPlot* plot() const { return plot_; }
  // The spec the controls show, and setting them (redraws).
  ScatterSpec spec() const;
  void setSpec(const ScatterSpec& spec);
  // What the plot shows (points, groups and laws) as last drawn.
  const plots::ScatterPlotInput& shown() const { return input_; }
  // The choices offered, as last read: x quantities and grouping options.
  std::vector<std::string> xChoices() const;
  std::vector<std::string> groupChoices() const;
  std::vector<std::string> savedViewNames() const;
  // For tests and the benchmark: reads and draws now (blocking), and saves the current spec as a
  // view now. Both throw what storage throws.
  void loadNow();
  void saveViewNow(const std::string& name);
  // Opens a saved view (its spec into the controls; redraws). False when there is none.
  bool openView(const std::string& name);

  // What the controls offer, read from the database (scatter_pane.cpp).
  struct Choices;

 signals:
  void reloaded();
  void drawn(int points);

 private:
  void showChoices(const Choices& choices);
  void requestDraw();
  void draw(plots::ScatterPlotInput input);
  void saveView();
  QString db_path_;
  int generation_ = 0, choices_generation_ = 0;
  bool filling_ = false;  // setting controls programmatically: no redraw per control
  QComboBox* ladder_;
  QComboBox* metric_;
  QComboBox* stat_;
  QSpinBox* k_;
  QLineEdit* at_;
  QComboBox* x_;
  QComboBox* group_;
  QCheckBox* log_x_;
  QCheckBox* log_y_;
  QComboBox* views_;
  QPushButton* save_;
  QLabel* note_;
  QCustomPlot* plot_;
  plots::ScatterPlotInput input_;
  std::vector<std::pair<std::string, std::string>> views_json_;  // saved scatter views: name, spec
};

}  // namespace deepladder::ui

// The Compare view's Sweep tab: for a ladder with a [sweep], the mean final validation loss over
// seeds against the swept value, one line per size of the chosen arm (ui/plots/sweep_plot.h), from
// the envelope the fits use, so it shows which point each rung's fit took and which rungs sit at
// an edge of the values tried. Ladders and their sweep rungs are read off the GUI thread.
#pragma once

#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "fitting/fit_types.h"

class QComboBox;
class QCustomPlot;
class QLabel;

namespace deepladder::ui {

class SweepPane : public QWidget {
  Q_OBJECT
 public:
  explicit SweepPane(QWidget* parent = nullptr);
  // Forgets the previous database's sweeps; reload() reads this one's.
  void setDatabase(const QString& path);
  // Rereads the database's ladders with sweep runs in the background (keeps the choices).
  void reload();
  QCustomPlot* plot() const { return plot_; }
  // The ladders with sweep runs, as last read.
  std::vector<std::string> ladders() const;

 signals:
  void reloaded();

 private:
  using SweepsByLadder = std::map<std::string, std::vector<fitting::SweepRungChoice>>;
  void show(const SweepsByLadder& sweeps);
  void fillArms();
  void draw();
  QString db_path_;
  int generation_ = 0;
  SweepsByLadder sweeps_;
  QComboBox* ladder_;
  QComboBox* arm_;
  QLabel* note_;
  QCustomPlot* plot_;
};

}  // namespace deepladder::ui

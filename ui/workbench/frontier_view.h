// Frontier + multiplier: pick a ladder (or imported source), baseline, C0 and bootstrap count;
// the fit runs on a worker thread through fitting::fitFrontier and fills the frontier plot,
// the multiplier plot (projected to 1e26 with its band) and the scaling table (Markdown).
#pragma once

#include <QWidget>
#include <optional>

#include "fitting/fit_types.h"

class QCustomPlot;
class QComboBox;
class QLineEdit;
class QSpinBox;
class QPlainTextEdit;
class QLabel;

namespace deepladder::ui {

class FrontierView : public QWidget {
  Q_OBJECT
 public:
  explicit FrontierView(QWidget* parent = nullptr);
  void setDatabase(const QString& path);
  void reloadSources();
  void fitNow(bool blocking = false);
  QCustomPlot* frontierPlot() const { return frontier_; }
  QCustomPlot* multiplierPlot() const { return multiplier_; }
  const std::optional<fitting::FrontierResult>& result() const { return result_; }

 signals:
  void fitted();

 private:
  void show(const fitting::ResultsTable& table, const fitting::FrontierResult& result);
  QString db_path_;
  QComboBox* source_;
  QLineEdit* baseline_;
  QLineEdit* c_ref_;
  QSpinBox* bootstrap_;
  QLabel* status_;
  QCustomPlot* frontier_;
  QCustomPlot* multiplier_;
  QPlainTextEdit* table_;
  std::optional<fitting::FrontierResult> result_;
};

}  // namespace deepladder::ui

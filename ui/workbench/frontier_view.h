// Frontier + multiplier: pick a ladder (or imported source), its baseline arm, C0, the estimator
// (paper or robust, fitting/frontier_estimator.h) and the bootstrap count; the fit runs on a worker
// thread through fitting::fitFrontier (a newer fit supersedes one still running) and fills the
// frontier plot (curves with their bootstrap bands), the multiplier plot (projected to 1e26 with
// the band from the same resamples) and the scaling table (Markdown).
#pragma once

#include <QMap>
#include <QStringList>
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
  // The ladders and imported sources that can be fitted.
  QComboBox* sourceChoice() const { return source_; }
  // The baseline choices: the arms of the current source.
  QComboBox* baselineChoice() const { return baseline_; }
  QLineEdit* c0Field() const { return c_ref_; }
  // paper | robust (item data: the fitting::FrontierEstimator value).
  QComboBox* estimatorChoice() const { return estimator_; }

 signals:
  void fitted();

 private:
  void show(const fitting::ResultsTable& table, const fitting::FrontierResult& result);
  void fillBaselineChoices();
  QString db_path_;
  QMap<QString, QStringList> arms_by_source_;
  int fit_generation_ = 0;  // results of older fits are dropped
  QComboBox* source_;
  QComboBox* baseline_;
  QLineEdit* c_ref_;
  QComboBox* estimator_;
  QSpinBox* bootstrap_;
  QLabel* status_;
  QCustomPlot* frontier_;
  QCustomPlot* multiplier_;
  QPlainTextEdit* table_;
  std::optional<fitting::FrontierResult> result_;
};

}  // namespace deepladder::ui

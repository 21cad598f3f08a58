// Frontier + multiplier: pick a ladder (or imported source), its baseline arm, C0, the estimator
// (paper or robust, fitting/frontier_estimator.h) and the bootstrap count; the fit runs on a
// worker thread through the fits table's cache (fitting/ladder_fit.h: only the shares whose
// points changed are refitted; a newer fit supersedes one still running) and fills the frontier
// plot (curves with their bootstrap bands), the multiplier plot (projected to 1e26 with the band
// from the same resamples), the history plot (the projection at 1e26 after each finished run
// against the compute spent), the backtest plot (every arm refitted without its top 1..3 rungs:
// predicted vs measured, error vs extrapolation; fitting/backtest.h) and the scaling table
// (Markdown) followed by the backtest table and the ladder's live prediction log (each finished
// run against the fit before it, storage: projection_scores). Beside the multiplier, the
// suggestions of what to run next with a button to queue one. While a ladder runs, followRuns()
// refits as its runs finish.
#pragma once

#include <QMap>
#include <QStringList>
#include <QWidget>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "fitting/backtest.h"
#include "fitting/fit_types.h"
#include "fitting/live_projection.h"

class QCustomPlot;
class QComboBox;
class QLineEdit;
class QSpinBox;
class QPlainTextEdit;
class QLabel;

namespace deepladder::fitting {
class Cancellation;
}

namespace deepladder::ui {

class RunTableModel;
class SuggestionsPanel;

class FrontierView : public QWidget {
  Q_OBJECT
 public:
  explicit FrontierView(QWidget* parent = nullptr);
  ~FrontierView() override;
  void setDatabase(const QString& path);
  // Re-lists the ladders and imported sources in the background.
  void reloadSources();
  // The same, now (blocking); for tests and benchmarks.
  void reloadSourcesNow();
  // Source -> its arms.
  using SourceArms = std::map<std::string, std::set<std::string>>;
  void fitNow(bool blocking = false);
  // Aborts the fit in flight, if any (its result is dropped); fitNow() does so itself.
  void cancelFit();
  // True while a background fit runs.
  bool fitting() const { return fit_cancel_ != nullptr; }
  QCustomPlot* frontierPlot() const { return frontier_; }
  QCustomPlot* multiplierPlot() const { return multiplier_; }
  QCustomPlot* historyPlot() const { return history_; }
  QCustomPlot* backtestPlot() const { return backtest_plot_; }
  // The backtest of the last fit (empty points when it could hold nothing out).
  const fitting::BacktestResult& backtest() const { return backtest_; }
  // The text under the plots: scaling table, backtest table, live prediction log.
  QString tableText() const;
  SuggestionsPanel* suggestions() const { return suggestions_; }
  const std::vector<fitting::ProjectionSnapshot>& history() const { return history_points_; }
  // The runs as the Runs view last read them: refits when the shown ladder's finished runs
  // changed since the last fit.
  void followRuns(const RunTableModel& runs);
  const std::optional<fitting::FrontierResult>& result() const { return result_; }
  // The ladders and imported sources that can be fitted.
  QComboBox* sourceChoice() const { return source_; }
  // The baseline choices: the arms of the current source.
  QComboBox* baselineChoice() const { return baseline_; }
  QLineEdit* c0Field() const { return c_ref_; }
  // paper | robust (item data: the fitting::FrontierEstimator value).
  QComboBox* estimatorChoice() const { return estimator_; }
  // Bootstrap resamples of the next fit.
  QSpinBox* bootstrapChoice() const { return bootstrap_; }

 signals:
  void fitted();

 private:
  void show(const fitting::ResultsTable& table, const fitting::FrontierResult& result,
            std::vector<fitting::ProjectionSnapshot> history, fitting::BacktestResult backtest,
            const std::string& prediction_log);
  void fillBaselineChoices();
  void showSources(const SourceArms& arms);
  int sources_generation_ = 0;  // source lists of older requests are dropped
  int sources_pending_ = 0;
  const RunTableModel* follow_after_sources_ = nullptr;  // followRuns() waiting for the list
  QString db_path_;
  QMap<QString, QStringList> arms_by_source_;
  int fit_generation_ = 0;                             // results of older fits are dropped
  std::shared_ptr<fitting::Cancellation> fit_cancel_;  // the background fit in flight
  QComboBox* source_;
  QComboBox* baseline_;
  QLineEdit* c_ref_;
  QComboBox* estimator_;
  QSpinBox* bootstrap_;
  QLabel* status_;
  QCustomPlot* frontier_;
  QCustomPlot* multiplier_;
  QCustomPlot* history_;
  QCustomPlot* backtest_plot_;
  fitting::BacktestResult backtest_;
  SuggestionsPanel* suggestions_;
  QPlainTextEdit* table_;
  std::vector<fitting::ProjectionSnapshot> history_points_;
  QString fitted_signature_;  // finished runs of the source behind the last fit
  std::optional<fitting::FrontierResult> result_;
};

}  // namespace deepladder::ui

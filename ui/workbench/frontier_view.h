// Frontier + multiplier: pick a ladder (or imported source), its baseline arm (the ladder's
// declared one by default), C0, the estimator (paper or robust, fitting/frontier_estimator.h) and
// the bootstrap count; the view starts the fit session (fitting/session/frontier_session.h: the
// pipeline `deepladder fit` runs, with its options, so the table here is the one `fit` prints) on a
// worker thread (a newer fit supersedes one still running) and shows its result: the frontier plot
// (every measured point, curves with their bands), the multiplier plot (projected to 1e26), the
// history plot (the live projection at 1e26 after each finished run, as `run` and `watch` showed
// it), the backtest plot (every arm refitted without its top 1..3 rungs), and under them the
// scaling table as a sortable, copyable table (fit_table_view.h; each arm's diagnostics as its
// tooltips), the diagnostics as rows, and the backtest table with the ladder's live prediction
// log. In the middle of a ladder the arms that can be fitted are, and the view says per arm what
// is still missing ("vanilla: 0 of 5 rungs finished"). Beside the multiplier, the suggestions of
// what to run next with a button to queue one. While a ladder runs, followRuns() refits as its
// runs finish.
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
class QTabWidget;

namespace deepladder::fitting {
class Cancellation;
}
namespace deepladder::session {
struct FrontierSessionResult;
}

namespace deepladder::ui {

class FitTableView;
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
  // Each source's arms (a ladder's planned arms, an imported source's) and its declared baseline
  // ("" when it declares none).
  struct SourceInfo {
    std::set<std::string> arms;
    std::string baseline;
  };
  using SourceArms = std::map<std::string, SourceInfo>;
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
  // The tables under the plots as Markdown, as `fit` prints them: scaling table, diagnostics,
  // backtest table, live prediction log.
  QString tableText() const;
  // The scaling table (one row per arm) and the diagnostics (one row each).
  FitTableView* fitTable() const { return fit_table_; }
  FitTableView* diagnosticsTable() const { return diagnostics_table_; }
  // The fit's status line, and what each arm still misses in the middle of a ladder.
  QLabel* statusLabel() const { return status_; }
  QLabel* progressLabel() const { return progress_; }
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
  void show(session::FrontierSessionResult out);
  void showNoFit(const session::FrontierSessionResult& out);
  void fillBaselineChoices();
  void showSources(const SourceArms& arms);
  int sources_generation_ = 0;  // source lists of older requests are dropped
  int sources_pending_ = 0;
  const RunTableModel* follow_after_sources_ = nullptr;  // followRuns() waiting for the list
  QString db_path_;
  QMap<QString, QStringList> arms_by_source_;
  QMap<QString, QString> baseline_by_source_;
  int fit_generation_ = 0;                             // results of older fits are dropped
  std::shared_ptr<fitting::Cancellation> fit_cancel_;  // the background fit in flight
  QComboBox* source_;
  QComboBox* baseline_;
  QLineEdit* c_ref_;
  QComboBox* estimator_;
  QSpinBox* bootstrap_;
  QLabel* status_;
  QLabel* progress_;
  QCustomPlot* frontier_;
  QCustomPlot* multiplier_;
  QCustomPlot* history_;
  QCustomPlot* backtest_plot_;
  fitting::BacktestResult backtest_;
  SuggestionsPanel* suggestions_;
  QTabWidget* tables_;
  FitTableView* fit_table_;
  FitTableView* diagnostics_table_;
  QPlainTextEdit* backtest_text_;  // the backtest table and the live prediction log
  QString table_text_;
  std::vector<fitting::ProjectionSnapshot> history_points_;
  QString fitted_signature_;  // finished runs of the source behind the last fit
  std::optional<fitting::FrontierResult> result_;
};

}  // namespace deepladder::ui

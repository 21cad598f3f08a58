// The Frontier + Multiplier view (see frontier_view.h).
#include "ui/workbench/frontier_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <map>
#include <set>
#include <utility>

#include "core/run_status.h"
#include "fitting/backtest_table.h"
#include "fitting/cancellation.h"
#include "fitting/fit_diagnostics.h"
#include "fitting/fit_types.h"
#include "fitting/frontier_fit.h"
#include "fitting/ladder_fit.h"
#include "fitting/live_projection.h"
#include "fitting/live_score.h"
#include "fitting/projection_history.h"
#include "fitting/scaling_table.h"
#include "storage/database.h"
#include "storage/fit_cache.h"
#include "storage/result_points.h"
#include "ui/plots/backtest_plot.h"
#include "ui/plots/frontier_plot.h"
#include "ui/plots/history_plot.h"
#include "ui/plots/multiplier_plot.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/suggestions_panel.h"

namespace deepladder::ui {
namespace {

constexpr int kBacktestRungs = 3;  // the backtest holds out each arm's top 1..3 rungs

struct FitOutput {
  fitting::ResultsTable table;
  fitting::FrontierResult result;
  std::vector<fitting::ProjectionSnapshot> history;
  fitting::BacktestResult backtest;
  std::string prediction_log;  // the ladder's live scores, one line each ("" for none)
};

// The ladder's error log as lines: each finished run against the fit made before it.
std::string predictionLog(storage::Database& db, int64_t ladder_id) {
  std::string text;
  for (const auto& r : db.projectionScores(ladder_id)) {
    fitting::LiveScore s;
    s.arm = r.arm;
    s.size = r.size;
    s.measured_loss = r.measured_loss;
    s.predicted_loss = r.predicted_loss;
    s.lo = r.lo.value_or(fitting::kNaN);
    s.hi = r.hi.value_or(fitting::kNaN);
    s.rel_error = r.rel_error;
    text += fitting::liveScoreLine(s) + " (fit of " + std::to_string(r.fitted_runs) + " runs)\n";
  }
  return text;
}

// The fit through the fits table's cache (this thread's own connection, read-write so new fits
// are stored for everyone), and for a ladder its projection history (cached point by point).
// A ladder is fitted with the live projection's options (residual bootstrap,
// fitting/live_projection.h), so the multiplier view, the history's newest point and
// `deepladder run` / `watch` show the same interval; an imported source with `fit`'s.
FitOutput fitSource(const QString& path, const std::string& source, fitting::FrontierOptions o) {
  std::unique_ptr<storage::Database> db;
  bool read_only = false;
  try {
    db = openExistingDatabase(path, false);
  } catch (const std::exception&) {  // a database we may only read: reuse the cache, store nothing
    db = openExistingDatabase(path, true);
    read_only = true;
  }
  FitOutput out;
  out.table = storage::readResults(*db, path.toStdString(), source);
  const auto ladder_id = db->findLadder(source);
  if (ladder_id) o = fitting::projectionOptions(o, fitting::kDefaultTarget);
  storage::SqliteFitCache cache(*db, ladder_id, read_only);
  fitting::LadderFitter fitter(&cache, source);
  out.result = fitter.fit(out.table, o, /*lenient=*/false);
  // Same options as the fit, so the newest point reuses the shares just fitted.
  if (ladder_id)
    out.history = fitting::projectionHistory(out.table, o, fitting::kDefaultTarget, &cache, source);
  // The backtest with the same options (its refits are not cached: they change with k only).
  out.backtest = fitting::backtestFrontier(out.table, o, kBacktestRungs);
  if (ladder_id) out.prediction_log = predictionLog(*db, *ladder_id);
  return out;
}

// Each ladder with finished runs and each imported source, with its arms (a worker thread's
// own connection).
FrontierView::SourceArms loadSourceArms(const QString& path) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  FrontierView::SourceArms arms;
  for (const auto& s : db->listRuns())
    if (!s.ladder_name.empty() && s.run.status == RunStatus::kFinished)
      arms[s.ladder_name].insert(s.run.arm);
  for (const auto& e : db->externalPoints()) arms[e.source].insert(e.arm);
  return arms;
}

// Which of `source`'s runs have finished, as the Runs view's model has them.
QString finishedSignature(const RunTableModel& runs, const QString& source) {
  QString signature;
  for (int row = 0; row < runs.rowCount(); ++row) {
    const storage::RunSummary* s = runs.runAt(row);
    if (s && s->run.status == RunStatus::kFinished &&
        QString::fromStdString(s->ladder_name) == source)
      signature += QString::number(s->run.id) + QLatin1Char(',');
  }
  return signature;
}

}  // namespace

FrontierView::FrontierView(QWidget* parent) : QWidget(parent) {
  const auto defaults = fitting::defaultFrontierOptions();
  source_ = new QComboBox;
  source_->setMinimumContentsLength(16);
  baseline_ = new QComboBox;
  baseline_->setMinimumContentsLength(10);
  baseline_->setToolTip(tr("The arm the others are compared with; its E is shared"));
  c_ref_ = new QLineEdit(QString::number(defaults.c_ref, 'g'));
  c_ref_->setMaximumWidth(90);
  c_ref_->setToolTip(
      tr("Reference compute C\u2080 of L(C) = E + A (C/C\u2080)^-\u03B3, e.g. 1e18"));
  estimator_ = new QComboBox;
  for (auto e : {fitting::FrontierEstimator::Paper, fitting::FrontierEstimator::Robust})
    estimator_->addItem(QString::fromStdString(fitting::estimatorName(e)), static_cast<int>(e));
  estimator_->setCurrentIndex(estimator_->findData(static_cast<int>(defaults.estimator)));
  estimator_->setToolTip(
      tr("paper: the growth paper's estimator (baseline Huber fit with E free; every other arm "
         "the least-squares line of ln(L \u2212 E) on ln(C/C\u2080), E fixed; Student-t "
         "intervals).\nrobust: every arm by nonlinear least squares in loss space with a Huber "
         "refit."));
  bootstrap_ = new QSpinBox;
  bootstrap_->setRange(0, 10000);
  bootstrap_->setValue(fitting::kLiveBootstrap);
  bootstrap_->setToolTip(tr("Bootstrap resamples for the intervals (0 = none)"));
  auto* fit = new QPushButton(tr("Fit"));
  fit->setDefault(true);
  status_ = new QLabel;
  status_->setWordWrap(true);

  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Ladder")));
  bar->addWidget(source_, 1);
  bar->addWidget(new QLabel(tr("Baseline")));
  bar->addWidget(baseline_);
  bar->addWidget(new QLabel(tr("C\u2080")));
  bar->addWidget(c_ref_);
  bar->addWidget(new QLabel(tr("Estimator")));
  bar->addWidget(estimator_);
  bar->addWidget(new QLabel(tr("Bootstrap")));
  bar->addWidget(bootstrap_);
  bar->addWidget(fit);

  frontier_ = new QCustomPlot;
  multiplier_ = new QCustomPlot;
  history_ = new QCustomPlot;
  backtest_plot_ = new QCustomPlot;
  for (QCustomPlot* p : {frontier_, multiplier_, history_, backtest_plot_}) {
    p->setMinimumSize(320, 240);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  }
  suggestions_ = new SuggestionsPanel;
  suggestions_->setMinimumWidth(300);
  table_ = new QPlainTextEdit;
  table_->setReadOnly(true);
  table_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  table_->setPlaceholderText(tr("The scaling table appears here after a fit."));

  // Top: frontier, multiplier and the suggestions beside it; below: how the projection settled
  // and the scaling table.
  auto* plots = new QSplitter(Qt::Horizontal);
  plots->addWidget(frontier_);
  plots->addWidget(multiplier_);
  plots->addWidget(suggestions_);
  plots->setStretchFactor(0, 3);
  plots->setStretchFactor(1, 3);
  plots->setStretchFactor(2, 3);
  plots->setSizes({380, 380, 480});
  auto* lower = new QSplitter(Qt::Horizontal);
  lower->addWidget(history_);
  lower->addWidget(backtest_plot_);
  lower->addWidget(table_);
  lower->setSizes({400, 500, 500});
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(plots);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  connect(fit, &QPushButton::clicked, this, [this] { fitNow(); });
  connect(source_, &QComboBox::currentTextChanged, this, [this] {
    fillBaselineChoices();
    suggestions_->setLadder(db_path_, source_->currentText(), fitting::kDefaultTarget);
  });
  connect(suggestions_, &SuggestionsPanel::queued, this, [this](const QString& run) {
    status_->setText(tr("Queued %1 into %2.").arg(run, source_->currentText()));
  });
  connect(source_, &QComboBox::activated, this, [this] { fitNow(); });
  connect(baseline_, &QComboBox::activated, this, [this] { fitNow(); });
  connect(estimator_, &QComboBox::activated, this, [this] { fitNow(); });
  // Ctrl+Return fits while this view has the focus.
  auto* fit_key = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  fit_key->setContext(Qt::WidgetWithChildrenShortcut);
  connect(fit_key, &QShortcut::activated, this, [this] { fitNow(); });
  fit->setToolTip(tr("Fit the frontier (Ctrl+Return)"));
  connect(c_ref_, &QLineEdit::returnPressed, this, [this] { fitNow(); });
}

FrontierView::~FrontierView() {
  cancelFit();  // a fit still running stops soon instead of holding a pool thread
}

void FrontierView::cancelFit() {
  if (fit_cancel_) fit_cancel_->cancel();
  fit_cancel_.reset();
}

void FrontierView::setDatabase(const QString& path) {
  db_path_ = path;
  reloadSources();
}

void FrontierView::reloadSources() {
  if (db_path_.isEmpty()) return;
  const int generation = ++sources_generation_;
  ++sources_pending_;
  std::function<SourceArms()> work = [path = db_path_] { return loadSourceArms(path); };
  runInBackground<SourceArms>(
      this, work,
      [this, generation](SourceArms arms) {
        --sources_pending_;
        if (generation == sources_generation_) showSources(arms);
      },
      [this, generation](const QString& message) {
        --sources_pending_;
        if (generation == sources_generation_)
          status_->setText(tr("Cannot list the ladders: %1").arg(message));
      });
}

void FrontierView::reloadSourcesNow() {
  AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
  ++sources_generation_;
  try {
    showSources(loadSourceArms(db_path_));
  } catch (const std::exception& e) {
    status_->setText(tr("Cannot list the ladders: %1").arg(QString::fromUtf8(e.what())));
  }
}

void FrontierView::showSources(const SourceArms& arms) {
  arms_by_source_.clear();
  std::set<std::string> names;
  for (const auto& [source, source_arms] : arms) {
    names.insert(source);
    QStringList& list = arms_by_source_[QString::fromStdString(source)];
    for (const auto& a : source_arms) list << QString::fromStdString(a);
  }
  const QString current = source_->currentText();
  QSignalBlocker block(source_);
  source_->clear();
  for (const auto& n : names) source_->addItem(QString::fromStdString(n));
  if (!current.isEmpty() && source_->findText(current) >= 0) source_->setCurrentText(current);
  fillBaselineChoices();
  suggestions_->setLadder(db_path_, source_->currentText(), fitting::kDefaultTarget);
  if (names.empty()) status_->setText(tr("No ladder has finished runs yet: nothing to fit."));
  if (const RunTableModel* runs = std::exchange(follow_after_sources_, nullptr);
      runs && !source_->currentText().isEmpty())
    followRuns(*runs);
}

void FrontierView::followRuns(const RunTableModel& runs) {
  if (source_->currentText().isEmpty()) {
    // A ladder's first finished run makes it fittable: follow again once the list is in.
    follow_after_sources_ = &runs;
    reloadSources();
    return;
  }
  const QString signature = finishedSignature(runs, source_->currentText());
  if (signature.isEmpty() || signature == fitted_signature_) return;
  fitted_signature_ = signature;
  fitNow();
}

void FrontierView::fillBaselineChoices() {
  const QStringList arms = arms_by_source_.value(source_->currentText());
  QString keep = baseline_->currentText();
  if (!arms.contains(keep))
    keep = arms.contains(QString::fromStdString(fitting::defaultFrontierOptions().baseline))
               ? QString::fromStdString(fitting::defaultFrontierOptions().baseline)
               : (arms.isEmpty() ? QString() : arms.first());
  QSignalBlocker block(baseline_);
  baseline_->clear();
  baseline_->addItems(arms);
  baseline_->setCurrentText(keep);
}

void FrontierView::fitNow(bool blocking) {
  if (blocking && sources_pending_ > 0) reloadSourcesNow();  // the list a blocking fit needs
  if (source_->currentText().isEmpty()) return;
  fitting::FrontierOptions o = fitting::defaultFrontierOptions();
  o.baseline = baseline_->currentText().toStdString();
  bool ok = false;
  o.c_ref = c_ref_->text().toDouble(&ok);
  if (!ok || !(o.c_ref > 0)) {
    status_->setText(tr("C\u2080 must be a positive number such as 1e18."));
    return;
  }
  o.bootstrap = bootstrap_->value();
  o.estimator = static_cast<fitting::FrontierEstimator>(estimator_->currentData().toInt());
  const std::string source = source_->currentText().toStdString();
  status_->setText(tr("Fitting %1…").arg(source_->currentText()));
  if (blocking) {
    AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
    ++fit_generation_;
    cancelFit();  // a fit still running in the background is superseded
    try {
      auto out = fitSource(db_path_, source, o);
      show(out.table, out.result, std::move(out.history), std::move(out.backtest),
           out.prediction_log);
    } catch (const std::exception& e) {
      status_->setText(QString::fromUtf8(e.what()));
    }
    return;
  }
  const int generation = ++fit_generation_;
  // The fit still running is superseded: abort it (Ceres stops at its next iteration, the
  // bootstrap before its next resample) instead of letting it finish unseen.
  if (fit_cancel_) fit_cancel_->cancel();
  fit_cancel_ = std::make_shared<fitting::Cancellation>();
  o.cancellation = fit_cancel_.get();
  std::function<FitOutput()> work = [path = db_path_, source, o, keep = fit_cancel_] {
    return fitSource(path, source, o);
  };
  runInBackground<FitOutput>(
      this, work,
      [this, generation](FitOutput out) {
        if (generation != fit_generation_) return;
        fit_cancel_.reset();
        show(out.table, out.result, std::move(out.history), std::move(out.backtest),
             out.prediction_log);
      },
      [this, generation](const QString& message) {
        if (generation == fit_generation_) {
          fit_cancel_.reset();
          status_->setText(tr("Fit failed: %1").arg(message));
        }
      });
}

QString FrontierView::tableText() const {
  return table_->toPlainText();
}

void FrontierView::show(const fitting::ResultsTable& table, const fitting::FrontierResult& result,
                        std::vector<fitting::ProjectionSnapshot> history,
                        fitting::BacktestResult backtest, const std::string& prediction_log) {
  result_ = result;
  backtest_ = std::move(backtest);
  plots::drawBacktest(*backtest_plot_,
                      {backtest_, tr("Backtest: top rungs held out"), /*compact=*/true});
  history_points_ = std::move(history);
  plots::drawHistory(*history_, {history_points_, {}});
  plots::drawFrontier(*frontier_, {table, result, tr("Compute frontier")});
  double lowest = 0;
  for (const auto& p : table.points)
    if (lowest == 0 || p.compute_flops < lowest) lowest = p.compute_flops;
  plots::drawMultiplier(*multiplier_,
                        {result, fitting::kDefaultTarget, tr("Compute multiplier"), lowest});
  // The table, then what the fit says about its own trust (the sweep point each rung used, the
  // distance of each --at from the data, the diagnostics), as the CLI prints them.
  std::string text = fitting::scalingTableMarkdown(*result_) +
                     fitting::diagnosticsMarkdown(*result_) + "\n" +
                     fitting::backtestTableMarkdown(backtest_);
  if (!prediction_log.empty())
    text +=
        "\nLive predictions (each finished run against the fit made before it):\n" + prediction_log;
  table_->setPlainText(QString::fromStdString(text));
  int unfitted = 0;
  for (const auto& f : result.arms) unfitted += !f.no_fit.empty();
  QString status = tr("%1 points, %2 arms, %3 of %4 bootstrap resamples of %5 used. Estimator: %6.")
                       .arg(table.points.size())
                       .arg(result.arms.size())
                       .arg(result.bootstrap_used)
                       .arg(result.bootstrap_requested)
                       .arg(result.residual_bootstrap ? tr("residuals") : tr("runs"))
                       .arg(QString::fromStdString(
                           fitting::estimatorDescription(result.estimator, result.joint)));
  if (unfitted > 0)
    status += tr(" %n arm(s) without a fit: a loss at or below E (see the table).", "", unfitted);
  status_->setText(status);
  emit fitted();
}

}  // namespace deepladder::ui

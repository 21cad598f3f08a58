// The Frontier + Multiplier view (see frontier_view.h).
#include "ui/workbench/frontier_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QShortcut>
#include <QSpinBox>
#include <QSplitter>
#include <QTabWidget>
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
#include "fitting/live_projection.h"
#include "fitting/scaling_table.h"
#include "fitting/session/frontier_session.h"
#include "fitting/session/ladder_progress.h"
#include "storage/database.h"
#include "ui/plots/backtest_plot.h"
#include "ui/plots/frontier_plot.h"
#include "ui/plots/history_plot.h"
#include "ui/plots/multiplier_plot.h"
#include "ui/plots/note_plot.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/fit_table_model.h"
#include "ui/workbench/fit_table_view.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/run_table_model.h"
#include "ui/workbench/suggestions_panel.h"

namespace deepladder::ui {
namespace {

constexpr int kBacktestRungs = 3;  // the backtest holds out each arm's top 1..3 rungs

// Each ladder with finished runs, with every arm its plan holds and its declared baseline, and
// each imported source with its arms (a worker thread's own connection).
FrontierView::SourceArms loadSourceArms(const QString& path) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  FrontierView::SourceArms sources;
  std::map<std::string, int64_t> ladders;
  for (const auto& s : db->listRuns())
    if (!s.ladder_name.empty() && s.run.status == RunStatus::kFinished && s.run.ladder_id)
      ladders[s.ladder_name] = *s.run.ladder_id;
  for (const auto& [name, id] : ladders) {
    const session::LadderProgress progress = session::ladderProgress(*db, id);
    FrontierView::SourceInfo& info = sources[name];
    for (const auto& a : progress.arms) info.arms.insert(a.arm);
    info.baseline = progress.declared_baseline;
  }
  for (const auto& e : db->externalPoints()) sources[e.source].arms.insert(e.arm);
  return sources;
}

// The backtest table as `fit --backtest` prints it, then the ladder's live prediction log.
std::string backtestAndLogText(const session::FrontierSessionResult& out) {
  std::string text = out.fit ? fitting::backtestTableMarkdown(out.backtest) : "";
  if (!out.prediction_log.empty()) {
    text += "\nLive predictions (each finished run against the fit made before it):\n";
    for (const auto& s : out.prediction_log) text += session::predictionLogLine(s) + "\n";
  }
  return text;
}

// The scaling table and diagnostics as `fit` prints them, then the backtest and the log.
std::string markdownOf(const session::FrontierSessionResult& out) {
  std::string text;
  if (out.fit)
    text = fitting::scalingTableMarkdown(*out.fit) + fitting::diagnosticsMarkdown(*out.fit) + "\n";
  return text + backtestAndLogText(out);
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
  progress_ = new QLabel;
  progress_->setWordWrap(true);
  progress_->hide();
  // Under the plots: the scaling table (sortable, copyable), the diagnostics as rows, and the
  // backtest table with the live prediction log.
  fit_table_ = new FitTableView;
  diagnostics_table_ = new FitTableView;
  backtest_text_ = new QPlainTextEdit;
  backtest_text_->setReadOnly(true);
  backtest_text_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  backtest_text_->setPlaceholderText(tr("The backtest table appears here after a fit."));
  tables_ = new QTabWidget;
  tables_->addTab(fit_table_, tr("Scaling table"));
  tables_->addTab(diagnostics_table_, tr("Diagnostics"));
  tables_->addTab(backtest_text_, tr("Backtest, live predictions"));

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
  lower->addWidget(tables_);
  lower->setSizes({400, 500, 500});
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(plots);
  split->addWidget(lower);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 2);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(progress_);
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
  baseline_by_source_.clear();
  std::set<std::string> names;
  for (const auto& [source, info] : arms) {
    names.insert(source);
    QStringList& list = arms_by_source_[QString::fromStdString(source)];
    for (const auto& a : info.arms) list << QString::fromStdString(a);
    baseline_by_source_[QString::fromStdString(source)] = QString::fromStdString(info.baseline);
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
  // The choice kept while it is an arm of the source; else the ladder's declared baseline, else
  // the default baseline when the source has it, else its first arm.
  QString keep = baseline_->currentText();
  const QString declared = baseline_by_source_.value(source_->currentText());
  const QString preferred = QString::fromStdString(fitting::defaultFrontierOptions().baseline);
  if (!arms.contains(keep))
    keep = arms.contains(declared)    ? declared
           : arms.contains(preferred) ? preferred
           : arms.isEmpty()           ? QString()
                                      : arms.first();
  QSignalBlocker block(baseline_);
  baseline_->clear();
  baseline_->addItems(arms);
  baseline_->setCurrentText(keep);
}

void FrontierView::fitNow(bool blocking) {
  if (blocking && sources_pending_ > 0) reloadSourcesNow();  // the list a blocking fit needs
  if (source_->currentText().isEmpty()) return;
  // `fit`'s options with the choices of the bar (so `deepladder fit --baseline ... --c-ref ...
  // --estimator ... --bootstrap N` prints this table).
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
  session::FrontierSessionRequest request;
  request.db_path = db_path_.toStdString();
  request.source = source_->currentText().toStdString();
  request.backtest_rungs = kBacktestRungs;
  request.target = fitting::kDefaultTarget;
  status_->setText(tr("Fitting %1…").arg(source_->currentText()));
  if (blocking) {
    AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
    ++fit_generation_;
    cancelFit();  // a fit still running in the background is superseded
    request.options = o;
    try {
      show(session::runFrontierSession(request));
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
  request.options = o;
  std::function<session::FrontierSessionResult()> work = [request, keep = fit_cancel_] {
    return session::runFrontierSession(request);
  };
  runInBackground<session::FrontierSessionResult>(
      this, work,
      [this, generation](session::FrontierSessionResult out) {
        if (generation != fit_generation_) return;
        fit_cancel_.reset();
        show(std::move(out));
      },
      [this, generation](const QString& message) {
        if (generation == fit_generation_) {
          fit_cancel_.reset();
          status_->setText(tr("Fit failed: %1").arg(message));
        }
      });
}

QString FrontierView::tableText() const {
  return table_text_;
}

namespace {

// "Not fitted yet: vanilla: 0 of 5 rungs finished. Fitted on what has finished: ..." ("" when
// every arm is fitted and complete).
QString progressText(const session::FrontierSessionResult& out) {
  const session::ProgressNotes notes = session::progressNotes(out);
  auto joined = [](const std::vector<std::string>& lines) {
    QStringList list;
    for (const auto& l : lines) list << QString::fromStdString(l);
    return list.join(QStringLiteral("; "));
  };
  QStringList text;
  if (!notes.not_fitted.empty())
    text << QObject::tr("Not fitted yet: %1.").arg(joined(notes.not_fitted));
  if (!notes.partly_finished.empty())
    text << QObject::tr("Fitted on what has finished: %1.").arg(joined(notes.partly_finished));
  return text.join(QLatin1Char(' '));
}

}  // namespace

void FrontierView::show(session::FrontierSessionResult out) {
  const QString progress = progressText(out);
  progress_->setText(progress);
  progress_->setVisible(!progress.isEmpty());
  history_points_ = std::move(out.history);
  plots::drawHistory(*history_, {history_points_, {}});
  table_text_ = QString::fromStdString(markdownOf(out));
  backtest_text_->setPlainText(QString::fromStdString(backtestAndLogText(out)));
  if (!out.fit) {
    showNoFit(out);
    emit fitted();
    return;
  }
  result_ = std::move(out.fit);
  const fitting::FrontierResult& result = *result_;
  backtest_ = std::move(out.backtest);
  plots::drawBacktest(*backtest_plot_,
                      {backtest_, tr("Backtest: top rungs held out"), /*compact=*/true});
  if (backtest_.points.empty()) {
    auto* note = new QCPItemText(backtest_plot_);
    note->position->setType(QCPItemPosition::ptAxisRectRatio);
    note->position->setCoords(0.5, 0.3);
    note->setColor(backtest_plot_->xAxis->labelColor());
    note->setText(tr("too few rungs yet\nto hold any out"));
    backtest_plot_->replot();
  }
  plots::drawFrontier(*frontier_, {out.table, result, tr("Compute frontier")});
  double lowest = 0;
  for (const auto& p : out.table.points)
    if (lowest == 0 || p.compute_flops < lowest) lowest = p.compute_flops;
  plots::drawMultiplier(*multiplier_,
                        {result, fitting::kDefaultTarget, tr("Compute multiplier"), lowest});
  fit_table_->fitModel()->setGrid(fitting::scalingTableGrid(result));
  diagnostics_table_->fitModel()->setGrid(fitting::diagnosticsGrid(result));
  int unfitted = 0;
  for (const auto& f : result.arms) unfitted += !f.no_fit.empty();
  QString status = tr("%1 points, %2 arms, %3 of %4 bootstrap resamples of %5 used. Estimator: %6.")
                       .arg(out.table.points.size())
                       .arg(result.arms.size())
                       .arg(result.bootstrap_used)
                       .arg(result.bootstrap_requested)
                       .arg(result.residual_bootstrap ? tr("residuals") : tr("runs"))
                       .arg(QString::fromStdString(
                           fitting::estimatorDescription(result.estimator, result.joint)));
  if (unfitted > 0)
    status += tr(" %n arm(s) without a fit: a loss at or below E (see the table).", "", unfitted);
  if (out.read_only) status += tr(" Read-only database: fits are not cached.");
  status_->setText(status);
  emit fitted();
}

void FrontierView::showNoFit(const session::FrontierSessionResult& out) {
  // Every measured point, with no curve; the other plots say why they are empty.
  result_.reset();
  backtest_ = {};
  fitting::FrontierResult none;
  none.baseline = out.baseline;
  plots::drawFrontier(*frontier_, {out.table, none, tr("Compute frontier")});
  const std::string why = session::noFitReason(out);
  const QString note = tr("no fit yet: %1").arg(QString::fromStdString(why));
  plots::drawNote(
      *multiplier_,
      {tr("Compute multiplier"), tr("baseline compute C (FLOPs)"),
       tr("compute multiplier vs %1 (\u00D7)").arg(QString::fromStdString(out.baseline)), note});
  plots::drawNote(*backtest_plot_, {tr("Backtest: top rungs held out"), {}, {}, note});
  fit_table_->fitModel()->setGrid({});
  diagnostics_table_->fitModel()->setGrid({});
  const int points = static_cast<int>(out.table.points.size());
  status_->setText(tr("%1 %2 of %3, no fit yet: %4.")
                       .arg(points)
                       .arg(points == 1 ? tr("point") : tr("points"), source_->currentText(),
                            QString::fromStdString(why)));
}

}  // namespace deepladder::ui

// The Compare view (see compare_view.h).
#include "ui/workbench/compare_view.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QElapsedTimer>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSlider>
#include <QSplitter>
#include <QTabWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <set>
#include <thread>

#include "core/metric_keys.h"
#include "core/parallel_for.h"
#include "storage/database.h"
#include "storage/run_option_rows.h"
#include "storage/run_plot_data.h"
#include "ui/plots/curve_refinement.h"
#include "ui/plots/curve_series.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/grouped_curves.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/scatter_pane.h"
#include "ui/workbench/sweep_pane.h"

namespace deepladder::ui {
namespace {

constexpr int kRunIdRole = Qt::UserRole + 1;
constexpr int kOptionRole = Qt::UserRole + 2;  // a group-by item's option name

// Each extra reading thread gets at least this many curves (fewer curves than twice this are read
// on the calling thread alone), and there are at most kMaxReaders.
constexpr size_t kCurvesPerReader = 32;
constexpr unsigned kMaxReaders = 4;

// One run's curve as a plot series, labelled as the legends label runs.
plots::CurveSeries runCurve(storage::Database& db, int64_t run_id, const std::string& key,
                            plots::CurveAxis axis, int pixels, int64_t step_lo = INT64_MIN,
                            int64_t step_hi = INT64_MAX) {
  return plots::curveSeries(db.readCurve(run_id, key, pixels, step_lo, step_hi), axis,
                            QString::fromStdString(storage::runLabel(db, run_id)), run_id);
}

// The curves of `ids`, in their order (runs without rows left out). pixels: the plot's width, for
// reads through the metric pyramid; 0 reads every row. Many curves are read by up to one thread
// per core, each on its own read-only connection (WAL readers do not block each other): a
// 1,000-run overlay of 10,000-step curves reads some 600,000 pyramid rows, most of its load time.
// The curves, and each run's option values when grouping asks for them
// (storage/run_option_rows.h: a config decode per run, left out of plain overlays).
struct LoadedCurves {
  plots::CurvesPlotInput input;
  std::map<int64_t, OptionValues> rows;
};

LoadedCurves loadCurves(const QString& path, std::vector<int64_t> ids, std::string key,
                        plots::CurveAxis axis, int pixels, bool with_rows) {
  const size_t readers =
      std::clamp<size_t>(ids.size() / kCurvesPerReader, 1,
                         std::clamp(std::thread::hardware_concurrency(), 1u, kMaxReaders));
  std::vector<std::vector<plots::CurveSeries>> slices(readers);
  std::vector<std::vector<int64_t>> slice_ids(readers);
  std::vector<std::vector<OptionValues>> slice_rows(readers);
  parallelFor(static_cast<int>(readers), [&](int t) {
    const auto r = static_cast<size_t>(t);
    auto db = openExistingDatabase(path, /*read_only=*/true);
    for (size_t i = ids.size() * r / readers; i < ids.size() * (r + 1) / readers; ++i) {
      auto s = runCurve(*db, ids[i], key, axis, pixels);
      if (!s.x.empty()) {
        slices[r].push_back(std::move(s));
        slice_ids[r].push_back(ids[i]);
      }
    }
    if (with_rows) slice_rows[r] = storage::runOptionRows(*db, slice_ids[r]);
  });
  LoadedCurves loaded;
  loaded.input.axis = axis;
  loaded.input.metric = QString::fromStdString(key);
  for (size_t r = 0; r < readers; ++r) {
    for (auto& s : slices[r]) loaded.input.series.push_back(std::move(s));
    for (size_t i = 0; i < slice_rows[r].size(); ++i)
      loaded.rows[slice_ids[r][i]] = std::move(slice_rows[r][i]);
  }
  return loaded;
}

// The run list with the options worth grouping by: the runs table's, then every run option
// whose value differs between the runs.
struct RunList {
  std::vector<storage::RunSummary> runs;
  std::vector<std::string> groupable;
};

RunList readRunList(const QString& path) {
  RunList list;
  list.runs = openExistingDatabase(path, /*read_only=*/true)->listRuns();
  std::vector<OptionValues> rows;
  rows.reserve(list.runs.size());
  for (const auto& s : list.runs) rows.push_back(storage::runOptionRow(s.run, s.ladder_name));
  list.groupable = storage::runRecordOptions();
  for (const auto& name : varyingOptions(rows))
    if (std::find(list.groupable.begin(), list.groupable.end(), name) == list.groupable.end())
      list.groupable.push_back(name);
  return list;
}

// Finer reads of the visible steps of some series (their index in the input and the range).
struct Refinement {
  std::vector<std::pair<size_t, plots::StepRange>> wanted;
  std::vector<plots::CurveSeries> fine;
};

}  // namespace

CompareView::CompareView(QWidget* parent) : QWidget(parent) {
  runs_ = new QListWidget;
  runs_->setSelectionMode(QAbstractItemView::ExtendedSelection);
  auto* filter = new QLineEdit;
  filter->setPlaceholderText(tr("Filter runs…"));
  filter->setClearButtonEnabled(true);
  connect(filter, &QLineEdit::textChanged, this, [this](const QString& text) {
    for (int i = 0; i < runs_->count(); ++i)
      runs_->item(i)->setHidden(!runs_->item(i)->text().contains(text, Qt::CaseInsensitive));
  });
  metric_ = new QComboBox;
  metric_->setEditable(true);
  metric_->addItems({metric_keys::kValLoss, metric_keys::kTrainLoss});
  axis_ = new QComboBox;
  axis_->addItems({tr("step"), tr("tokens"), tr("FLOPs")});
  log_x_ = new QCheckBox(tr("log x"));
  log_y_ = new QCheckBox(tr("log y"));
  smoothing_ = new QSlider(Qt::Horizontal);
  smoothing_->setRange(0, 99);
  smoothing_->setValue(60);
  smoothing_->setToolTip(tr("EMA smoothing weight (0 = raw); the raw curve stays faint behind"));
  group_by_ = new QListWidget;
  group_by_->setToolTip(
      tr("Check options to group the runs by them: each group's runs (its seeds) collapse to "
         "their mean curve with a band, on a common grid over the range they all cover."));
  group_by_->setMaximumHeight(110);
  group_by_->setObjectName(QStringLiteral("groupBy"));
  band_ = new QComboBox;
  band_->setObjectName(QStringLiteral("seedBand"));
  band_->addItems({tr("min – max"), tr("±1 sd")});
  band_->setToolTip(
      tr("The band around each group's mean: the least and greatest run, or the "
         "mean -+ the sample standard deviation"));

  auto* controls = new QFormLayout;
  controls->addRow(tr("Metric"), metric_);
  controls->addRow(tr("x axis"), axis_);
  auto* logs = new QHBoxLayout;
  logs->addWidget(log_x_);
  logs->addWidget(log_y_);
  controls->addRow(tr("Scale"), logs);
  controls->addRow(tr("Smoothing"), smoothing_);
  controls->addRow(tr("Group by"), group_by_);
  controls->addRow(tr("Seed band"), band_);
  auto* left = new QWidget;
  auto* left_layout = new QVBoxLayout(left);
  left_layout->setContentsMargins(0, 0, 0, 0);
  left_layout->addLayout(controls);
  left_layout->addWidget(filter);
  left_layout->addWidget(runs_, 1);
  auto* hint =
      new QLabel(tr("Check runs to overlay them. Drag to pan, wheel to zoom, "
                    "double-click to fit; click a legend entry to hide a run."));
  hint->setWordWrap(true);
  hint->setEnabled(false);
  left_layout->addWidget(hint);

  plot_ = new QCustomPlot;
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom | QCP::iSelectLegend);
  plot_->setNoAntialiasingOnDrag(true);
  plot_->setMinimumSize(400, 300);
  readout_ = new QLabel(tr("Hover over the plot to read values."));
  readout_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* right = new QWidget;
  auto* right_layout = new QVBoxLayout(right);
  right_layout->setContentsMargins(0, 0, 0, 0);
  right_layout->addWidget(plot_, 1);
  right_layout->addWidget(readout_);

  // Curves of the checked runs, and (a second tab) a ladder's loss against its swept values; the
  // Sweep tab is built, and reads the database, the first time it is opened.
  sweep_page_ = new QWidget;
  auto* sweep_layout = new QVBoxLayout(sweep_page_);
  sweep_layout->setContentsMargins(0, 0, 0, 0);
  auto* tabs = new QTabWidget;
  tabs->addTab(right, tr("Curves"));
  tabs->addTab(sweep_page_, tr("Sweep"));
  scatter_page_ = new QWidget;
  auto* scatter_layout = new QVBoxLayout(scatter_page_);
  scatter_layout->setContentsMargins(0, 0, 0, 0);
  tabs->addTab(scatter_page_, tr("Scatter"));
  connect(tabs, &QTabWidget::currentChanged, this, [this, tabs](int) {
    if (tabs->currentWidget() == sweep_page_) sweepPane();
    if (tabs->currentWidget() == scatter_page_) scatterPane();
  });
  auto* split = new QSplitter;
  split->addWidget(left);
  split->addWidget(tabs);
  split->setStretchFactor(1, 1);
  split->setSizes({260, 900});
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(split);

  connect(runs_, &QListWidget::itemChanged, this, [this] { requestCurves(); });
  connect(metric_, &QComboBox::currentTextChanged, this, [this] { requestCurves(); });
  connect(axis_, &QComboBox::currentIndexChanged, this, [this] { requestCurves(); });
  connect(log_x_, &QCheckBox::toggled, this, [this] { draw(); });
  connect(log_y_, &QCheckBox::toggled, this, [this] { draw(); });
  connect(smoothing_, &QSlider::valueChanged, this, [this] { draw(); });
  // Grouping needs the runs' option values: loaded with the curves once a group-by is checked.
  connect(group_by_, &QListWidget::itemChanged, this, [this] { groupingChanged(); });
  connect(band_, &QComboBox::currentIndexChanged, this, [this] { draw(); });
  // Pan, zoom or resize: redecimate once per replot, for whatever range it will draw.
  // A zoom that needs finer buckets than were loaded reads them once the view settles.
  refine_timer_ = new QTimer(this);
  refine_timer_->setSingleShot(true);
  refine_timer_->setInterval(120);
  connect(refine_timer_, &QTimer::timeout, this, &CompareView::refineVisibleCurves);
  connect(plot_, &QCustomPlot::beforeReplot, this, [this] {
    if (plots::redecimateCurves(*plot_, /*only_if_view_changed=*/true) > 0) refine_timer_->start();
  });
  connect(plot_, &QCustomPlot::mouseMove, this, &CompareView::onHover);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] {
    plot_->rescaleAxes();
    plot_->replot();
  });
  connect(plot_, &QCustomPlot::legendClick, this,
          [this](QCPLegend*, QCPAbstractLegendItem* item, QMouseEvent*) {
            auto* pli = qobject_cast<QCPPlottableLegendItem*>(item);
            if (!pli) return;
            const QString label = pli->plottable()->name();
            for (auto& s : (grouped() ? grouped_ : input_).series)
              if (s.label == label) s.visible = !s.visible;
            // Keep the legend entry (greyed) so it can be clicked back on. The series' unnamed
            // graphs just before it (its faint raw curve, its band) go with it.
            for (int i = 0; i < plot_->graphCount(); ++i) {
              if (plot_->graph(i)->name() != label) continue;
              const bool visible = !plot_->graph(i)->visible();
              plot_->graph(i)->setVisible(visible);
              for (int j = i - 1; j >= 0 && plot_->graph(j)->name().isEmpty(); --j)
                plot_->graph(j)->setVisible(visible);
            }
            pli->setTextColor(pli->plottable()->visible() ? plot_->legend->textColor()
                                                          : QColor(150, 150, 150));
            plots::redecimateCurves(*plot_);
            plot_->replot();
          });
}

void CompareView::setDatabase(const QString& path) {
  db_path_ = path;
  runs_->clear();
  input_ = {};
  grouped_ = {};
  rows_.clear();
  plot_->clearGraphs();
  plot_->replot();
  if (sweep_) sweep_->setDatabase(path);
  if (scatter_) scatter_->setDatabase(path);
  reloadRuns();
}

void CompareView::reloadRuns() {
  if (db_path_.isEmpty()) return;
  if (sweep_) sweep_->reload();
  if (scatter_) scatter_->reload();
  const int generation = ++list_generation_;
  ++list_pending_;
  using Runs = std::shared_ptr<const RunList>;
  std::function<Runs()> work = [path = db_path_]() -> Runs {
    return std::make_shared<const RunList>(readRunList(path));
  };
  runInBackground<Runs>(
      this, work,
      [this, generation](Runs list) {
        --list_pending_;
        if (generation == list_generation_) showRunList(list->runs, list->groupable);
      },
      [this, generation](const QString& message) {
        --list_pending_;
        if (generation == list_generation_)
          readout_->setText(tr("Cannot list the runs: %1").arg(message));
      });
}

void CompareView::showRunList(const std::vector<storage::RunSummary>& runs,
                              const std::vector<std::string>& groupable) {
  if (groupable != groupableOptions()) {  // refill, keeping what is checked
    const auto by = groupBy();
    QSignalBlocker block(group_by_);
    group_by_->clear();
    for (const auto& name : groupable) {
      auto* item = new QListWidgetItem(QString::fromStdString(name), group_by_);
      item->setData(kOptionRole, QString::fromStdString(name));
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(std::find(by.begin(), by.end(), name) != by.end() ? Qt::Checked
                                                                            : Qt::Unchecked);
    }
  }
  const auto checked = checkedRuns();
  const std::set<int64_t> keep(checked.begin(), checked.end());
  const bool wanted = wanted_checked_.has_value();
  wanted_checked_.reset();
  if (runs.size() != static_cast<size_t>(runs_->count())) {  // else nothing new
    QSignalBlocker block(runs_);
    runs_->clear();
    for (const auto& s : runs) {
      QString text =
          QStringLiteral("#%1  %2").arg(s.run.id).arg(QString::fromStdString(s.run.name));
      if (!s.ladder_name.empty())
        text += QStringLiteral("  (%1)").arg(QString::fromStdString(s.ladder_name));
      auto* item = new QListWidgetItem(text, runs_);
      item->setData(kRunIdRole, static_cast<qlonglong>(s.run.id));
      item->setFlags(item->flags() | Qt::ItemIsUserCheckable);
      item->setCheckState(keep.count(s.run.id) ? Qt::Checked : Qt::Unchecked);
    }
  }
  if (wanted) setCheckedRuns(checked);
}

ScatterPane* CompareView::scatterPane() {
  if (!scatter_) {
    scatter_ = new ScatterPane;
    scatter_page_->layout()->addWidget(scatter_);
    scatter_->setDatabase(db_path_);
    scatter_->reload();
  }
  return scatter_;
}

std::vector<std::string> CompareView::groupableOptions() const {
  std::vector<std::string> names;
  for (int i = 0; i < group_by_->count(); ++i)
    names.push_back(group_by_->item(i)->data(kOptionRole).toString().toStdString());
  return names;
}

void CompareView::setGroupBy(const std::vector<std::string>& options) {
  {
    QSignalBlocker block(group_by_);
    for (int i = 0; i < group_by_->count(); ++i) {
      auto* item = group_by_->item(i);
      const std::string name = item->data(kOptionRole).toString().toStdString();
      item->setCheckState(std::find(options.begin(), options.end(), name) != options.end()
                              ? Qt::Checked
                              : Qt::Unchecked);
    }
  }
  groupingChanged();
}

std::vector<std::string> CompareView::groupBy() const {
  std::vector<std::string> names;
  for (int i = 0; i < group_by_->count(); ++i)
    if (group_by_->item(i)->checkState() == Qt::Checked)
      names.push_back(group_by_->item(i)->data(kOptionRole).toString().toStdString());
  return names;
}

void CompareView::groupingChanged() {
  const bool have_rows = std::all_of(input_.series.begin(), input_.series.end(),
                                     [this](const auto& s) { return rows_.count(s.run_id) > 0; });
  if (grouped() && !have_rows)
    requestCurves();  // with the option values this time
  else
    draw();
}

void CompareView::setSeedBand(SeedBand band) {
  band_->setCurrentIndex(band == SeedBand::kMinMax ? 0 : 1);
}

SweepPane* CompareView::sweepPane() {
  if (!sweep_) {
    sweep_ = new SweepPane;
    sweep_page_->layout()->addWidget(sweep_);
    sweep_->setDatabase(db_path_);
    sweep_->reload();
  }
  return sweep_;
}

void CompareView::setCheckedRuns(const std::vector<int64_t>& ids) {
  if (list_pending_ > 0) wanted_checked_ = ids;  // applied again when the list arrives
  const std::set<int64_t> want(ids.begin(), ids.end());
  {
    QSignalBlocker block(runs_);
    for (int i = 0; i < runs_->count(); ++i) {
      auto* item = runs_->item(i);
      item->setCheckState(want.count(item->data(kRunIdRole).toLongLong()) ? Qt::Checked
                                                                          : Qt::Unchecked);
    }
  }
  requestCurves();
}

std::vector<int64_t> CompareView::checkedRuns() const {
  if (wanted_checked_) return *wanted_checked_;
  std::vector<int64_t> ids;
  for (int i = 0; i < runs_->count(); ++i)
    if (runs_->item(i)->checkState() == Qt::Checked)
      ids.push_back(runs_->item(i)->data(kRunIdRole).toLongLong());
  return ids;
}

int CompareView::plotPixels() const {
  const int w = plot_->axisRect()->width();
  return std::max(400, w > 0 ? w : plot_->width());
}

void CompareView::requestCurves() {
  const int generation = ++generation_;
  const auto axis = static_cast<plots::CurveAxis>(axis_->currentIndex());
  std::function<LoadedCurves()> work = [path = db_path_, ids = checkedRuns(),
                                        key = metric_->currentText().toStdString(), axis,
                                        pixels = plotPixels(), with_rows = grouped()] {
    return loadCurves(path, ids, key, axis, pixels, with_rows);
  };
  runInBackground<LoadedCurves>(
      this, work,
      [this, generation](LoadedCurves loaded) {
        if (generation != generation_) return;  // a newer request is on its way
        input_ = std::move(loaded.input);
        rows_ = std::move(loaded.rows);
        draw();
      },
      [this](const QString& message) {
        readout_->setText(tr("Cannot load curves: %1").arg(message));
      });
}

void CompareView::loadNow(bool every_row) {
  AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
  ++generation_;
  LoadedCurves loaded = loadCurves(db_path_, checkedRuns(), metric_->currentText().toStdString(),
                                   static_cast<plots::CurveAxis>(axis_->currentIndex()),
                                   every_row ? 0 : plotPixels(), grouped());
  input_ = std::move(loaded.input);
  rows_ = std::move(loaded.rows);
  draw();
}

void CompareView::refineVisibleCurves() {
  if (grouped()) return;  // a group's mean is on its own grid: nothing finer to read for it
  const QCPRange view = plot_->xAxis->range();
  const int pixels = plotPixels();
  Refinement refinement;
  for (size_t i = 0; i < input_.series.size(); ++i) {
    const plots::CurveSeries& s = input_.series[i];
    if (!s.visible) continue;
    if (auto range = plots::stepsToRefine(s, view.lower, view.upper, pixels))
      refinement.wanted.emplace_back(i, *range);
  }
  if (refinement.wanted.empty()) return;
  const int generation = generation_;
  std::vector<int64_t> run_ids;
  for (const auto& [i, range] : refinement.wanted) run_ids.push_back(input_.series[i].run_id);
  std::function<Refinement()> work = [path = db_path_, key = input_.metric.toStdString(),
                                      axis = input_.axis, pixels, refinement, run_ids]() mutable {
    auto db = openExistingDatabase(path, /*read_only=*/true);
    for (size_t k = 0; k < refinement.wanted.size(); ++k) {
      const plots::StepRange range = refinement.wanted[k].second;
      refinement.fine.push_back(runCurve(*db, run_ids[k], key, axis, pixels, range.lo, range.hi));
    }
    return refinement;
  };
  runInBackground<Refinement>(
      this, work,
      [this, generation](Refinement refinement) {
        if (generation != generation_) return;  // other curves were loaded meanwhile
        for (size_t k = 0; k < refinement.wanted.size(); ++k) {
          auto& [i, range] = refinement.wanted[k];
          if (i < input_.series.size())
            plots::spliceFinerPoints(input_.series[i], refinement.fine[k], range);
        }
        // Redraw the spliced curves in the view the user is looking at.
        const QCPRange x = plot_->xAxis->range(), y = plot_->yAxis->range();
        plots::drawCurves(*plot_, input_);
        plot_->xAxis->setRange(x);
        plot_->yAxis->setRange(y);
        plot_->replot();
      },
      [this](const QString& message) {
        readout_->setText(tr("Cannot read the zoomed curves: %1").arg(message));
      });
}

void CompareView::draw() {
  QElapsedTimer timer;
  timer.start();
  input_.log_x = log_x_->isChecked();
  input_.log_y = log_y_->isChecked();
  input_.ema = smoothing_->value() / 100.0;
  if (grouped()) {
    CurveGrouping grouping;
    grouping.by = groupBy();
    grouping.band = band_->currentIndex() == 0 ? SeedBand::kMinMax : SeedBand::kStdDev;
    grouping.ema = input_.ema;
    grouping.log_grid = input_.log_x;
    grouped_ = groupCurves(input_, rows_, grouping);
  } else {
    grouped_ = {};
  }
  const plots::CurvesPlotInput& shown = shownCurves();
  if (shown.series.empty()) {
    plots::CurvesPlotInput empty = shown;
    plots::drawCurves(*plot_, empty);
    const QString why =
        checkedRuns().empty() ? tr("No runs checked: check runs on the left.")
        : input_.series.empty()
            ? tr("The checked runs have no \"%1\" points.").arg(metric_->currentText())
            : tr("No group's runs share a range of the x axis to average over.");
    readout_->setText(why);
    // Say it on the empty plot too, where the eye goes.
    auto* message = new QCPItemText(plot_);
    message->position->setType(QCPItemPosition::ptAxisRectRatio);
    message->position->setCoords(0.5, 0.5);
    message->setText(why);
    message->setColor(palette().color(QPalette::PlaceholderText));
    plot_->replot();
  } else {
    plots::drawCurves(*plot_, shown);
    readout_->setText(tr("Hover over the plot to read values."));  // no earlier message stays
  }
  emit curvesDrawn(static_cast<int>(shown.series.size()), timer.elapsed());
}

void CompareView::onHover(QMouseEvent* event) {
  const plots::CurvesPlotInput& input = shownCurves();
  if (input.series.empty()) return;
  const double x = plot_->xAxis->pixelToCoord(event->position().x());
  QStringList parts;
  int shown = 0;
  for (const auto& s : input.series) {
    if (!s.visible || s.x.empty()) continue;
    auto it = std::lower_bound(s.x.begin(), s.x.end(), x);
    size_t i = it == s.x.end() ? s.x.size() - 1 : static_cast<size_t>(it - s.x.begin());
    if (i > 0 && std::abs(s.x[i - 1] - x) < std::abs(s.x[i] - x)) --i;
    if (++shown > 6) {
      parts << QStringLiteral("…");
      break;
    }
    QString part = QStringLiteral("%1: %2").arg(s.label, QString::number(s.y[i], 'g', 5));
    if (!s.band_lo.empty())
      part +=
          QStringLiteral(" [%1, %2]")
              .arg(QString::number(s.band_lo[i], 'g', 4), QString::number(s.band_hi[i], 'g', 4));
    parts << part;
  }
  readout_->setText(QStringLiteral("%1 = %2   ")
                        .arg(plots::curveAxisLabel(input.axis), QString::number(x, 'g', 6)) +
                    parts.join(QStringLiteral("   ")));
}

}  // namespace deepladder::ui

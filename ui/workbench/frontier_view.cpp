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
#include <QSpinBox>
#include <QSplitter>
#include <QVBoxLayout>
#include <cmath>
#include <set>

#include "fitting/frontier_fit.h"
#include "fitting/scaling_table.h"
#include "storage/database.h"
#include "ui/plots/frontier_plot.h"
#include "ui/plots/multiplier_plot.h"
#include "ui/plots/plot_sources.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"

namespace deepladder::ui {
namespace {

struct FitOutput {
  fitting::ResultsTable table;
  fitting::FrontierResult result;
};

FitOutput fitSource(const QString& path, const std::string& source, fitting::FrontierOptions o) {
  auto db = openExistingDatabase(path, true);
  FitOutput out;
  out.table = plots::resultsFromDatabase(*db, path.toStdString(), source);
  double lo = 1e300;
  for (const auto& p : out.table.points) lo = std::min(lo, p.compute_flops);
  o.at = plots::multiplierBandComputes(lo, 1e26);
  out.result = fitting::fitFrontier(out.table, o);
  return out;
}

}  // namespace

FrontierView::FrontierView(QWidget* parent) : QWidget(parent) {
  const auto defaults = fitting::defaultFrontierOptions();
  source_ = new QComboBox;
  source_->setMinimumContentsLength(16);
  baseline_ = new QLineEdit(QString::fromStdString(defaults.baseline));
  c_ref_ = new QLineEdit(QString::number(defaults.c_ref, 'g'));
  c_ref_->setMaximumWidth(90);
  bootstrap_ = new QSpinBox;
  bootstrap_->setRange(0, 10000);
  bootstrap_->setValue(200);
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
  bar->addWidget(new QLabel(tr("Bootstrap")));
  bar->addWidget(bootstrap_);
  bar->addWidget(fit);

  frontier_ = new QCustomPlot;
  multiplier_ = new QCustomPlot;
  for (QCustomPlot* p : {frontier_, multiplier_}) {
    p->setMinimumSize(360, 260);
    p->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  }
  table_ = new QPlainTextEdit;
  table_->setReadOnly(true);
  table_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  table_->setPlaceholderText(tr("The scaling table appears here after a fit."));

  auto* plots = new QSplitter(Qt::Horizontal);
  plots->addWidget(frontier_);
  plots->addWidget(multiplier_);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(plots);
  split->addWidget(table_);
  split->setStretchFactor(0, 3);
  split->setStretchFactor(1, 1);

  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  connect(fit, &QPushButton::clicked, this, [this] { fitNow(); });
  connect(source_, &QComboBox::activated, this, [this] { fitNow(); });
}

void FrontierView::setDatabase(const QString& path) {
  db_path_ = path;
  reloadSources();
}

void FrontierView::reloadSources() {
  auto db = tryOpenDatabase(db_path_, true, nullptr);
  if (!db) return;
  std::set<std::string> names;
  for (const auto& s : db->listRuns())
    if (!s.ladder_name.empty() && s.run.status == "finished") names.insert(s.ladder_name);
  for (const auto& e : db->externalPoints()) names.insert(e.source);
  const QString current = source_->currentText();
  QSignalBlocker block(source_);
  source_->clear();
  for (const auto& n : names) source_->addItem(QString::fromStdString(n));
  if (!current.isEmpty() && source_->findText(current) >= 0) source_->setCurrentText(current);
  if (names.empty()) status_->setText(tr("No ladder has finished runs yet: nothing to fit."));
}

void FrontierView::fitNow(bool blocking) {
  if (source_->currentText().isEmpty()) return;
  fitting::FrontierOptions o = fitting::defaultFrontierOptions();
  o.baseline = baseline_->text().trimmed().toStdString();
  bool ok = false;
  o.c_ref = c_ref_->text().toDouble(&ok);
  if (!ok || !(o.c_ref > 0)) {
    status_->setText(tr("C\u2080 must be a positive number such as 1e18."));
    return;
  }
  o.bootstrap = bootstrap_->value();
  const std::string source = source_->currentText().toStdString();
  status_->setText(tr("Fitting %1…").arg(source_->currentText()));
  if (blocking) {
    try {
      auto out = fitSource(db_path_, source, o);
      show(out.table, out.result);
    } catch (const std::exception& e) {
      status_->setText(QString::fromUtf8(e.what()));
    }
    return;
  }
  std::function<FitOutput()> work = [path = db_path_, source, o] {
    return fitSource(path, source, o);
  };
  runInBackground<FitOutput>(
      this, work, [this](FitOutput out) { show(out.table, out.result); },
      [this](const QString& message) { status_->setText(tr("Fit failed: %1").arg(message)); });
}

void FrontierView::show(const fitting::ResultsTable& table, const fitting::FrontierResult& result) {
  // The band needs projections every quarter decade; the table keeps the CLI's 1e20..1e26.
  result_ = result;
  for (auto& m : result_->multipliers) {
    std::vector<fitting::ProjectedMultiplier> kept;
    for (const auto& p : m.projected) {
      const double decade = std::log10(p.compute);
      if (std::abs(decade - std::round(decade)) < 1e-9 && std::lround(decade) % 2 == 0 &&
          decade >= 19.5)
        kept.push_back(p);
    }
    m.projected = kept;
  }
  plots::drawFrontier(*frontier_, {table, result, tr("Compute frontier")});
  plots::drawMultiplier(*multiplier_, {result, 1e26, tr("Compute multiplier")});
  table_->setPlainText(QString::fromStdString(fitting::scalingTableMarkdown(*result_)));
  status_->setText(tr("%1 points, %2 arms, %3 of %4 bootstrap resamples used.")
                       .arg(table.points.size())
                       .arg(result.arms.size())
                       .arg(result.bootstrap_used)
                       .arg(result.bootstrap_requested));
  emit fitted();
}

}  // namespace deepladder::ui

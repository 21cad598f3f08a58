// The Lens view (see lens_view.h).
#include "ui/workbench/lens_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>

#include "core/lens_depth.h"
#include "storage/database.h"
#include "ui/plots/lens_plot.h"
#include "ui/plots/plot_sources.h"
#include "ui/workbench/database_access.h"

namespace deepladder::ui {

LensView::LensView(QWidget* parent) : QWidget(parent) {
  run_ = new QComboBox;
  run_->setMinimumContentsLength(24);
  eps_ = new QDoubleSpinBox;
  eps_->setRange(0.01, 100);
  eps_->setValue(2.0);
  eps_->setSuffix(tr(" nats"));
  eps_->setToolTip(
      tr("d_lens threshold \u03B5: first block after the KL peak with KL \u2264 \u03B5"));
  status_ = new QLabel;
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Run")));
  bar->addWidget(run_, 1);
  bar->addWidget(new QLabel(tr("\u03B5")));
  bar->addWidget(eps_);
  profile_ = new QCustomPlot;
  depth_ = new QCustomPlot;
  profile_->setMinimumSize(360, 260);
  depth_->setMinimumSize(360, 260);
  auto* split = new QSplitter;
  split->addWidget(profile_);
  split->addWidget(depth_);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  connect(run_, &QComboBox::currentIndexChanged, this, [this] {
    if (run_->currentIndex() >= 0) showRun(run_->currentData().toLongLong());
  });
  connect(eps_, &QDoubleSpinBox::valueChanged, this, [this] {
    if (run_->currentIndex() >= 0) showRun(run_->currentData().toLongLong());
  });
}

void LensView::setDatabase(const QString& path) {
  db_path_ = path;
  reloadRuns();
}

void LensView::reloadRuns() {
  auto db = tryOpenDatabase(db_path_, true, nullptr);
  if (!db) return;
  QSignalBlocker block(run_);
  if (!fillRunPicker(*run_, *db, "lens")) {
    status_->setText(tr("No run has logit-lens rows yet (they are recorded at each eval)."));
    return;
  }
  block.unblock();
  showRun(run_->currentData().toLongLong());
}

void LensView::showRun(int64_t run_id) {
  auto db = tryOpenDatabase(db_path_, true, nullptr);
  if (!db) return;
  plots::LensPlotInput input;
  input.profiles = plots::lensFromDatabase(*db, run_id);
  input.run_label = plots::runLabel(*db, run_id);
  input.eps = eps_->value();
  input.title = tr("KL by block: %1").arg(input.run_label);
  plots::drawLens(*profile_, input);
  // d_lens vs compute over the run's ladder.
  std::vector<plots::LensDepthPoint> points;
  const auto run = db->run(run_id);
  int none = 0;
  for (const auto& s : db->listRuns(run ? run->ladder_id : std::nullopt)) {
    const auto profiles = plots::lensFromDatabase(*db, s.run.id);
    if (profiles.empty()) continue;
    const auto d = lensDepth(profiles.back().kl, input.eps).depth;
    if (!d) {
      ++none;
      continue;
    }
    points.push_back({s.run.arm, s.run.flops, static_cast<int>(*d)});
  }
  plots::drawLensDepth(*depth_, points, tr("d_lens vs compute (final eval)"));
  status_->setText(
      none ? tr("%1 run(s) have no d_lens (KL never falls to \u03B5 after its peak).").arg(none)
           : QString());
}

}  // namespace deepladder::ui

// The Lens view (see lens_view.h).
#include "ui/workbench/lens_view.h"

#include <qcustomplot.h>

#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <optional>
#include <string>
#include <vector>

#include "core/lens_depth.h"
#include "storage/database.h"
#include "storage/run_plot_data.h"
#include "ui/plots/lens_plot.h"

namespace deepladder::ui {

namespace {

// What one request read for the shown run: its profiles and each run of its ladder's final-eval
// profile (d_lens is computed from it at the current ε when drawing).
struct LensData : RunLoad {
  QString run_label;
  std::vector<LensProfile> profiles;
  struct LadderRun {
    std::string arm;
    double flops = 0;
    std::vector<double> final_kl;
  };
  std::vector<LadderRun> ladder;
};

// Runs on a worker thread with the request's read-only connection.
std::shared_ptr<RunLoad> loadLens(storage::Database& db, int64_t run_id) {
  auto data = std::make_shared<LensData>();
  data->profiles = storage::lensProfiles(db, run_id);
  data->run_label = QString::fromStdString(storage::runLabel(db, run_id));
  const auto run = db.run(run_id);
  for (const auto& s : db.listRuns(run ? run->ladder_id : std::nullopt)) {
    auto profiles = storage::lensProfiles(db, s.run.id);
    if (!profiles.empty())
      data->ladder.push_back({s.run.arm, s.run.flops, std::move(profiles.back().kl)});
  }
  return data;
}

}  // namespace

LensView::LensView(QWidget* parent)
    : PickedRunView("lens", loadLens, tr("Cannot read the lens rows: %1"), parent) {
  eps_ = new QDoubleSpinBox;
  eps_->setRange(0.01, 100);
  eps_->setValue(2.0);
  eps_->setSuffix(tr(" nats"));
  eps_->setToolTip(
      tr("d_lens threshold \u03B5: first block after the KL peak with KL \u2264 \u03B5"));
  profile_ = new QCustomPlot;
  depth_ = new QCustomPlot;
  auto* bar = layOut(profile_, depth_);
  bar->addWidget(new QLabel(tr("\u03B5")));
  bar->addWidget(eps_);
  connect(eps_, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
}

LensView::~LensView() = default;

void LensView::draw() {
  if (!shown()) return;
  const auto* data = shownAs<LensData>();
  if (!data) {
    statusLine()->setText(tr("No run has logit-lens rows yet (they are recorded at each eval)."));
    return;
  }
  plots::LensPlotInput input;
  input.profiles = data->profiles;
  input.run_label = data->run_label;
  input.eps = eps_->value();
  input.title = tr("KL by block: %1").arg(input.run_label);
  plots::drawLens(*profile_, input);
  // d_lens vs compute over the run's ladder.
  std::vector<plots::LensDepthPoint> points;
  int none = 0;
  for (const auto& r : data->ladder) {
    const auto d = lensDepth(r.final_kl, input.eps).depth;
    if (!d) {
      ++none;
      continue;
    }
    points.push_back({r.arm, r.flops, static_cast<int>(*d)});
  }
  plots::drawLensDepth(*depth_, points, tr("d_lens vs compute (final eval)"));
  statusLine()->setText(
      none ? tr("%1 run(s) have no d_lens (KL never falls to \u03B5 after its peak).").arg(none)
           : QString());
}

}  // namespace deepladder::ui

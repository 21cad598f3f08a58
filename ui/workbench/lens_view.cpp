// The Lens view (see lens_view.h).
#include "ui/workbench/lens_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSplitter>
#include <QVBoxLayout>
#include <optional>
#include <string>
#include <vector>

#include "core/lens_depth.h"
#include "storage/database.h"
#include "ui/plots/lens_plot.h"
#include "ui/plots/plot_sources.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"

namespace deepladder::ui {

// What one request read: the run list (when asked for), the shown run's profiles and each run of
// its ladder's final-eval profile (d_lens is computed from it at the current ε when drawing).
struct LensData {
  bool listed = false;
  std::vector<RunChoice> choices;
  std::optional<int64_t> run_id;
  QString run_label;
  std::vector<plots::LensProfile> profiles;
  struct LadderRun {
    std::string arm;
    double flops = 0;
    std::vector<double> final_kl;
  };
  std::vector<LadderRun> ladder;
};

namespace {

// Runs on a worker thread with its own read-only connection.
std::shared_ptr<const LensData> loadLens(const QString& path, bool list_runs, int64_t run_id) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  auto data = std::make_shared<LensData>();
  if (list_runs) {
    data->listed = true;
    data->choices = runChoices(*db, "lens");
    data->run_id = pickRun(data->choices, run_id);
  } else {
    data->run_id = run_id;
  }
  if (!data->run_id) return data;
  data->profiles = plots::lensFromDatabase(*db, *data->run_id);
  data->run_label = plots::runLabel(*db, *data->run_id);
  const auto run = db->run(*data->run_id);
  for (const auto& s : db->listRuns(run ? run->ladder_id : std::nullopt)) {
    auto profiles = plots::lensFromDatabase(*db, s.run.id);
    if (!profiles.empty())
      data->ladder.push_back({s.run.arm, s.run.flops, std::move(profiles.back().kl)});
  }
  return data;
}

}  // namespace

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
  connect(eps_, &QDoubleSpinBox::valueChanged, this, [this] { draw(); });
}

LensView::~LensView() = default;

void LensView::setDatabase(const QString& path) {
  db_path_ = path;
  data_.reset();
  reloadRuns();
}

void LensView::reloadRuns() {
  request(/*list_runs=*/true, run_->currentData().toLongLong());
}

void LensView::showRun(int64_t run_id) {
  request(/*list_runs=*/false, run_id);
}

void LensView::request(bool list_runs, int64_t run_id) {
  if (db_path_.isEmpty()) return;
  const int generation = ++generation_;
  ++pending_;
  std::function<std::shared_ptr<const LensData>()> work = [path = db_path_, list_runs, run_id] {
    return loadLens(path, list_runs, run_id);
  };
  runInBackground<std::shared_ptr<const LensData>>(
      this, work,
      [this, generation](std::shared_ptr<const LensData> data) {
        --pending_;
        if (generation != generation_) return;  // a newer request is on its way
        if (data->listed) {
          QSignalBlocker block(run_);
          fillRunPicker(*run_, data->choices);
        }
        data_ = std::move(data);
        draw();
        emit loaded();
      },
      [this, generation](const QString& message) {
        --pending_;
        if (generation != generation_) return;
        status_->setText(tr("Cannot read the lens rows: %1").arg(message));
        emit loaded();
      });
}

void LensView::draw() {
  if (!data_) return;
  if (!data_->run_id) {
    status_->setText(tr("No run has logit-lens rows yet (they are recorded at each eval)."));
    return;
  }
  plots::LensPlotInput input;
  input.profiles = data_->profiles;
  input.run_label = data_->run_label;
  input.eps = eps_->value();
  input.title = tr("KL by block: %1").arg(input.run_label);
  plots::drawLens(*profile_, input);
  // d_lens vs compute over the run's ladder.
  std::vector<plots::LensDepthPoint> points;
  int none = 0;
  for (const auto& r : data_->ladder) {
    const auto d = lensDepth(r.final_kl, input.eps).depth;
    if (!d) {
      ++none;
      continue;
    }
    points.push_back({r.arm, r.flops, static_cast<int>(*d)});
  }
  plots::drawLensDepth(*depth_, points, tr("d_lens vs compute (final eval)"));
  status_->setText(
      none ? tr("%1 run(s) have no d_lens (KL never falls to \u03B5 after its peak).").arg(none)
           : QString());
}

}  // namespace deepladder::ui

// The Compare view's Sweep tab (see sweep_pane.h).
#include "ui/workbench/sweep_pane.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QVBoxLayout>
#include <memory>
#include <set>

#include "core/ladder/sweep.h"
#include "core/run_status.h"
#include "fitting/sweep_envelope.h"
#include "storage/database.h"
#include "storage/result_points.h"
#include "ui/plots/sweep_plot.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"

namespace deepladder::ui {
namespace {

using SweepsPtr =
    std::shared_ptr<const std::map<std::string, std::vector<fitting::SweepRungChoice>>>;

// Every ladder of the database with a finished sweep run, and its envelope's rungs.
SweepsPtr readSweeps(const QString& path) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  std::map<int64_t, std::string> swept;  // ladder id -> name
  for (const auto& s : db->listRuns()) {
    const auto& r = s.run;
    if (!r.ladder_id || r.status != RunStatus::kFinished) continue;
    if (!ladder::sweepLabelOfRunName(r.name, r.arm, r.size, r.seed).empty())
      swept[*r.ladder_id] = s.ladder_name;
  }
  auto out = std::make_shared<std::map<std::string, std::vector<fitting::SweepRungChoice>>>();
  for (const auto& [id, name] : swept) {
    auto rungs = fitting::sweepEnvelope(
                     storage::ladderResults(*db, id, path.toStdString() + " (ladder " + name + ")"))
                     .rungs;
    // Two ladders of one name (a changed spec): the later one keeps the name, the other its id.
    const std::string key = out->count(name) ? name + " (#" + std::to_string(id) + ")" : name;
    if (!rungs.empty()) (*out)[key] = std::move(rungs);
  }
  return out;
}

}  // namespace

SweepPane::SweepPane(QWidget* parent) : QWidget(parent) {
  ladder_ = new QComboBox;
  ladder_->setMinimumContentsLength(16);
  arm_ = new QComboBox;
  arm_->setMinimumContentsLength(12);
  auto* choices = new QHBoxLayout;
  choices->addWidget(new QLabel(tr("Ladder:")));
  choices->addWidget(ladder_);
  choices->addWidget(new QLabel(tr("Arm:")));
  choices->addWidget(arm_);
  choices->addStretch(1);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(400, 300);
  note_ = new QLabel(
      tr("A ladder with a [sweep] runs every rung at several values of an option. Each line is "
         "one size: its mean final loss over seeds at each value. The filled point is the one the "
         "fits use; a red ring says the best value is the smallest or largest tried, so the "
         "sweep should be extended (`deepladder suggest` offers the next value)."));
  note_->setWordWrap(true);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(choices);
  layout->addWidget(plot_, 1);
  layout->addWidget(note_);
  connect(ladder_, &QComboBox::currentTextChanged, this, [this] { fillArms(); });
  connect(arm_, &QComboBox::currentTextChanged, this, [this] { draw(); });
}

void SweepPane::setDatabase(const QString& path) {
  db_path_ = path;
  ++generation_;  // a read of the previous database arrives too late
  show({});
}

void SweepPane::reload() {
  if (db_path_.isEmpty()) return;
  const int generation = ++generation_;
  std::function<SweepsPtr()> work = [path = db_path_] { return readSweeps(path); };
  runInBackground<SweepsPtr>(
      this, work,
      [this, generation](SweepsPtr sweeps) {
        if (generation == generation_) show(*sweeps);
      },
      [this, generation](const QString& message) {
        if (generation == generation_)
          note_->setText(tr("Cannot read the sweeps: %1").arg(message));
      });
}

std::vector<std::string> SweepPane::ladders() const {
  std::vector<std::string> names;
  for (const auto& [name, rungs] : sweeps_) names.push_back(name);
  return names;
}

void SweepPane::show(const SweepsByLadder& sweeps) {
  sweeps_ = sweeps;
  const QString kept = ladder_->currentText();
  {
    QSignalBlocker block(ladder_);
    ladder_->clear();
    for (const auto& [name, rungs] : sweeps_) ladder_->addItem(QString::fromStdString(name));
    const int at = ladder_->findText(kept);
    if (at >= 0) ladder_->setCurrentIndex(at);
  }
  fillArms();
  emit reloaded();
}

void SweepPane::fillArms() {
  const QString kept = arm_->currentText();
  {
    QSignalBlocker block(arm_);
    arm_->clear();
    const auto it = sweeps_.find(ladder_->currentText().toStdString());
    if (it != sweeps_.end())
      for (const auto& arm : plots::sweepPlotArms(it->second))
        arm_->addItem(QString::fromStdString(arm));
    const int at = arm_->findText(kept);
    if (at >= 0) arm_->setCurrentIndex(at);
  }
  draw();
}

void SweepPane::draw() {
  const auto it = sweeps_.find(ladder_->currentText().toStdString());
  plots::SweepPlotInput input;
  if (it != sweeps_.end()) {
    input.rungs = it->second;
    input.arm = arm_->currentText().toStdString();
  } else {
    input.title = tr("No ladder in this database has sweep runs yet");
  }
  plots::drawSweep(*plot_, input);
}

}  // namespace deepladder::ui

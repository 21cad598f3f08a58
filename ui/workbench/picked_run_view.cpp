// A view of one run picked from a list, loaded in the background (see picked_run_view.h).
#include "ui/workbench/picked_run_view.h"

#include <qcustomplot.h>

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSplitter>
#include <QVBoxLayout>

#include "storage/database.h"
#include "ui/workbench/background.h"

namespace deepladder::ui {

PickedRunView::PickedRunView(std::string table, RunLoader loader, QString cannot_read,
                             QWidget* parent)
    : QWidget(parent),
      table_(std::move(table)),
      loader_(std::move(loader)),
      cannot_read_(std::move(cannot_read)) {
  run_ = new QComboBox;
  run_->setMinimumContentsLength(24);
  status_ = new QLabel;
  connect(run_, &QComboBox::currentIndexChanged, this, [this] {
    if (run_->currentIndex() >= 0) showRun(run_->currentData().toLongLong());
  });
}

PickedRunView::~PickedRunView() = default;

QHBoxLayout* PickedRunView::layOut(QCustomPlot* left, QCustomPlot* right) {
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("Run")));
  bar->addWidget(run_, 1);
  left->setMinimumSize(360, 260);
  right->setMinimumSize(360, 260);
  auto* split = new QSplitter;
  split->addWidget(left);
  split->addWidget(right);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(split, 1);
  return bar;
}

void PickedRunView::setDatabase(const QString& path) {
  db_path_ = path;
  shown_.reset();
  reloadRuns();
}

void PickedRunView::reloadRuns() {
  request(/*list_runs=*/true, run_->currentData().toLongLong());
}

void PickedRunView::showRun(int64_t run_id) {
  request(/*list_runs=*/false, run_id);
}

void PickedRunView::request(bool list_runs, int64_t run_id) {
  if (db_path_.isEmpty()) return;
  const int generation = ++generation_;
  ++pending_;
  // Runs on a worker thread with its own read-only connection.
  std::function<std::shared_ptr<const RunLoad>()> work = [path = db_path_, table = table_,
                                                          loader = loader_, list_runs, run_id] {
    auto db = openExistingDatabase(path, /*read_only=*/true);
    std::vector<RunChoice> choices;
    std::optional<int64_t> shown = run_id;
    if (list_runs) {
      choices = runChoices(*db, table);
      shown = pickRun(choices, run_id);
    }
    auto load = shown ? loader(*db, *shown) : std::make_shared<RunLoad>();
    load->listed = list_runs;
    load->choices = std::move(choices);
    load->run_id = shown;
    return std::shared_ptr<const RunLoad>(std::move(load));
  };
  runInBackground<std::shared_ptr<const RunLoad>>(
      this, work,
      [this, generation](std::shared_ptr<const RunLoad> load) {
        --pending_;
        if (generation != generation_) return;  // a newer request is on its way
        if (load->listed) {
          QSignalBlocker block(run_);
          fillRunPicker(*run_, load->choices);
        }
        shown_ = std::move(load);
        draw();
        emit loaded();
      },
      [this, generation](const QString& message) {
        --pending_;
        if (generation != generation_) return;
        status_->setText(cannot_read_.arg(message));
        emit loaded();
      });
}

}  // namespace deepladder::ui

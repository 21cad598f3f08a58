// The suggestions panel (see suggestions_panel.h).
#include "ui/workbench/suggestions_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableView>
#include <QVBoxLayout>

#undef slots  // core/ladder/ladder_spec.h has a field of that name
#include "core/ladder/candidates.h"
#include "fitting/ladder_suggest.h"
#include "storage/ladder_queue.h"
#include "storage/ladder_state.h"
#include "storage/result_points.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/gui_query_guard.h"
#include "ui/workbench/suggestion_table_model.h"

namespace deepladder::ui {
namespace {

using SuggestResultPtr = std::shared_ptr<const fitting::SuggestResult>;

SuggestResultPtr rank(const QString& path, const std::string& ladder, double target) {
  auto db = openExistingDatabase(path, true);
  const storage::LadderState state = storage::loadLadderState(*db, ladder);
  fitting::SuggestOptions o = fitting::defaultSuggestOptions();
  o.target = target;
  return std::make_shared<const fitting::SuggestResult>(fitting::suggestLadderRuns(
      storage::ladderResults(*db, state.id, path.toStdString() + " (ladder " + ladder + ")"),
      state.spec, state.runs, {}, o));
}

QString queueRun(const QString& path, const std::string& ladder, const ladder::PlannedRun& run) {
  auto db = openExistingDatabase(path, false);
  const storage::LadderState state = storage::loadLadderState(*db, ladder);
  const std::string dir =
      storage::ladderWorkDir(state.spec, storage::defaultWorkRoot(path.toStdString()));
  storage::enqueueRun(*db, state.id, dir, run);
  return QString::fromStdString(run.name);
}

}  // namespace

SuggestionsPanel::SuggestionsPanel(QWidget* parent) : QWidget(parent) {
  model_ = new SuggestionTableModel(this);
  table_ = new QTableView;
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  suggest_ = new QPushButton(tr("Suggest"));
  suggest_->setToolTip(
      tr("Rank the runs this ladder could buy next by the expected narrowing of the target "
         "multiplier's interval per FLOP (takes a few seconds)"));
  queue_ = new QPushButton(tr("Queue selected"));
  queue_->setToolTip(
      tr("Add the selected run to the ladder's queue: a scheduler running the ladder picks it "
         "up; otherwise Resume it in the Runs view"));
  queue_->setEnabled(false);
  status_ = new QLabel(tr("What to run next: press Suggest."));
  status_->setWordWrap(true);
  auto* bar = new QHBoxLayout;
  bar->addWidget(new QLabel(tr("<b>What to run next</b>")));
  bar->addStretch(1);
  bar->addWidget(suggest_);
  bar->addWidget(queue_);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(bar);
  layout->addWidget(status_);
  layout->addWidget(table_, 1);
  connect(suggest_, &QPushButton::clicked, this, [this] { suggestNow(); });
  connect(queue_, &QPushButton::clicked, this, [this] { queueSelected(); });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this,
          [this] { queue_->setEnabled(table_->selectionModel()->hasSelection()); });
}

void SuggestionsPanel::setLadder(const QString& db_path, const QString& ladder, double target) {
  if (db_path == db_path_ && ladder == ladder_ && target == target_) return;
  db_path_ = db_path;
  ladder_ = ladder;
  target_ = target;
  ++generation_;
  model_->setResult(nullptr);
  queue_->setEnabled(false);
  status_->setText(tr("What to run next for %1: press Suggest.").arg(ladder));
}

void SuggestionsPanel::suggestNow(bool blocking) {
  if (ladder_.isEmpty()) return;
  const int generation = ++generation_;
  status_->setText(tr("Ranking the candidates of %1…").arg(ladder_));
  auto done = [this, generation](SuggestResultPtr r) {
    if (generation != generation_) return;
    const size_t n = r->ranked.size();
    model_->setResult(std::move(r));
    table_->resizeColumnsToContents();
    status_->setText(
        n ? tr("%1 candidates, best first (hover a row for why). Intervals are the scorer's own "
               "(every run a point, residuals drawn with each arm's current scatter), so they "
               "differ from the fit's.")
                .arg(n)
          : tr("No candidate: the ladder has nothing left to buy."));
    emit suggested();
  };
  auto failed = [this, generation](const QString& message) {
    if (generation == generation_) status_->setText(tr("Cannot suggest: %1").arg(message));
  };
  std::function<SuggestResultPtr()> work = [path = db_path_, ladder = ladder_.toStdString(),
                                            target = target_] {
    return rank(path, ladder, target);
  };
  if (!blocking) return runInBackground<SuggestResultPtr>(this, work, done, failed);
  AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
  try {
    done(work());
  } catch (const std::exception& e) {
    failed(QString::fromUtf8(e.what()));
  }
}

void SuggestionsPanel::queueSelected(bool blocking) {
  const QModelIndexList rows = table_->selectionModel()->selectedRows();
  if (rows.isEmpty()) return;
  const fitting::Suggestion* s = model_->suggestionAt(rows.first().row());
  if (!s) return;
  auto done = [this](QString name) {
    status_->setText(tr("Queued %1. A scheduler running this ladder picks it up; otherwise "
                        "resume the ladder in the Runs view.")
                         .arg(name));
    emit queued(name);
  };
  auto failed = [this](const QString& message) {
    status_->setText(tr("Cannot queue: %1").arg(message));
  };
  std::function<QString()> work = [path = db_path_, ladder = ladder_.toStdString(),
                                   run = s->candidate.run] { return queueRun(path, ladder, run); };
  if (!blocking) return runInBackground<QString>(this, work, done, failed);
  AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
  try {
    done(work());
  } catch (const std::exception& e) {
    failed(QString::fromUtf8(e.what()));
  }
}

}  // namespace deepladder::ui

// The Serial-task view (see serial_task_view.h).
#include "ui/workbench/serial_task_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <cmath>
#include <optional>

#include "core/squaring/baselines.h"
#include "storage/database.h"
#include "ui/plots/squaring_run_plot.h"
#include "ui/workbench/serial_task_data.h"

namespace deepladder::ui {

namespace {

// What one request read for the shown run: its cells.
struct SerialTaskLoad : RunLoad {
  std::optional<SerialTaskData> data;
};

// Runs on a worker thread with the request's read-only connection.
std::shared_ptr<RunLoad> loadSerialTaskView(storage::Database& db, int64_t run_id) {
  auto load = std::make_shared<SerialTaskLoad>();
  load->data = loadSerialTask(db, run_id);
  return load;
}

}  // namespace

SerialTaskView::SerialTaskView(QWidget* parent)
    : PickedRunView("evals", loadSerialTaskView, tr("Cannot read the serial-task evals: %1"),
                    parent) {
  statusLine()->setWordWrap(true);
  heatmap_ = new QCustomPlot;
  by_t_ = new QCustomPlot;
  layOut(heatmap_, by_t_);
}

SerialTaskView::~SerialTaskView() = default;

void SerialTaskView::draw() {
  if (!shown()) return;
  if (!shown()->run_id)
    statusLine()->setText(tr("No run has serial-task evals yet (squaring ladders record them)."));
  else if (const auto* load = shownAs<SerialTaskLoad>(); load && load->data)
    drawCells(*load->data);
}

namespace {

// "admissible" / "inadmissible (squaring.deep_supervision)", or "" when the config did not read.
QString admissibilityLabel(const SerialTaskData& data) {
  return data.admissibility ? QString::fromStdString(data.admissibility->label()) : QString();
}

}  // namespace

void SerialTaskView::drawCells(const SerialTaskData& data) {
  const QString admissibility = admissibilityLabel(data);
  plots::drawSquaringHeatmap(
      *heatmap_, data,
      admissibility.isEmpty()
          ? tr("Exact-match accuracy at step %1").arg(data.last_step)
          : tr("Exact-match accuracy at step %1 (%2)").arg(data.last_step).arg(admissibility));
  plots::drawSquaringAccuracyByT(*by_t_, data);
  showScoreLine(data);
}

// The benchmark's score with the run's admissibility, then what the map's marks mean.
void SerialTaskView::showScoreLine(const SerialTaskData& data) {
  const auto* tier = data.tier;
  const auto& maps = data.maps;
  const bool fixed_n = tier && tier->fixedModulus();
  const QString admissibility = admissibilityLabel(data);
  QString score;
  if (maps)
    score = tr("Score %1 (test %2, OOD %3)%4. ")
                .arg(squaring::benchmarkScore(maps->test_exact, maps->ood_exact), 0, 'f', 3)
                .arg(maps->test_exact, 0, 'f', 3)
                .arg(maps->ood_exact, 0, 'f', 3)
                .arg(admissibility.isEmpty() ? QString() : QStringLiteral(", ") + admissibility);
  if (data.admissibility && !data.admissibility->admissible)
    score += tr("Not admissible under the benchmark's rules: %1 makes training targets from the "
                "task's algorithm. ")
                 .arg(QString::fromStdString(data.admissibility->offendingText()));
  statusLine()->setText(
      score +
      (tier ? tr("Tier %1: dashed outline = out of distribution; under each accuracy, "
                 "(chance%2): the population chance, the commonest answer's share over all x of "
                 "each N%3.")
                  .arg(QString::fromStdString(tier->name))
                  .arg(fixed_n ? tr(" | ceiling") : QString())
                  .arg(fixed_n ? tr("; the composition ceiling, what chaining the training facts "
                                    "reaches")
                               : QString())
            : tr("No squaring tier in this run's config: OOD cells cannot be marked.")));
}

}  // namespace deepladder::ui

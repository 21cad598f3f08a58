// The Serial-task view (see serial_task_view.h).
#include "ui/workbench/serial_task_view.h"

#include <qcustomplot.h>

#include <QLabel>
#include <cmath>
#include <optional>

#include "core/squaring/baselines.h"
#include "storage/database.h"
#include "ui/plots/plot_style.h"
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
  drawHeatmap(data);
  drawAccuracyByT(data);
  showScoreLine(data);
}

// Heatmap: x = T index, y = bits index; each cell's accuracy with its chance and ceiling.
void SerialTaskView::drawHeatmap(const SerialTaskData& data) {
  const auto& cells = data.cells;
  const auto& bits = data.bits;
  const auto& ts = data.ts;
  const auto& maps = data.maps;
  const int64_t last_step = data.last_step;
  const QString admissibility = admissibilityLabel(data);
  plots::preparePlot(
      *heatmap_,
      admissibility.isEmpty()
          ? tr("Exact-match accuracy at step %1").arg(last_step)
          : tr("Exact-match accuracy at step %1 (%2)").arg(last_step).arg(admissibility),
      tr("T (squarings)"), tr("modulus bits"));
  heatmap_->xAxis->setScaleType(QCPAxis::stLinear);
  heatmap_->yAxis->setScaleType(QCPAxis::stLinear);
  QSharedPointer<QCPAxisTickerText> x_ticks(new QCPAxisTickerText), y_ticks(new QCPAxisTickerText);
  for (size_t i = 0; i < ts.size(); ++i) x_ticks->addTick(i, QString::number(ts[i]));
  for (size_t i = 0; i < bits.size(); ++i) y_ticks->addTick(i, QString::number(bits[i]));
  heatmap_->xAxis->setTicker(x_ticks);
  heatmap_->yAxis->setTicker(y_ticks);
  heatmap_->xAxis->grid()->setVisible(false);
  heatmap_->yAxis->grid()->setVisible(false);
  auto* map = new QCPColorMap(heatmap_->xAxis, heatmap_->yAxis);
  map->data()->setSize(static_cast<int>(ts.size()), static_cast<int>(bits.size()));
  // Cell centres sit on 0 .. n-1. QCPColorMap spreads a single cell over the whole range, so a
  // lone row or column gets the range -0.5 .. 0.5 (else it fills only half the axis).
  auto cellRange = [](size_t n) {
    return n > 1 ? QCPRange(0, static_cast<double>(n - 1)) : QCPRange(-0.5, 0.5);
  };
  map->data()->setRange(cellRange(ts.size()), cellRange(bits.size()));
  // Viridis-like stops: dark at 0, yellow at 1, so a 100% cell is coloured, not blank white.
  QCPColorGradient gradient;
  gradient.setColorStopAt(0.0, QColor(68, 1, 84));
  gradient.setColorStopAt(0.25, QColor(59, 82, 139));
  gradient.setColorStopAt(0.5, QColor(33, 145, 140));
  gradient.setColorStopAt(0.75, QColor(94, 201, 98));
  gradient.setColorStopAt(1.0, QColor(253, 231, 37));
  gradient.setColorInterpolation(QCPColorGradient::ciRGB);
  gradient.setLevelCount(200);
  map->setGradient(gradient);
  map->setDataRange(QCPRange(0, 1));
  map->setInterpolate(false);
  for (size_t xi = 0; xi < ts.size(); ++xi) {
    for (size_t yi = 0; yi < bits.size(); ++yi) {
      auto it = cells.find({bits[yi], ts[xi]});
      if (it == cells.end() || it->second.second == 0) {
        map->data()->setAlpha(static_cast<int>(xi), static_cast<int>(yi), 0);
        continue;
      }
      const double acc = static_cast<double>(it->second.first) / it->second.second;
      map->data()->setCell(static_cast<int>(xi), static_cast<int>(yi), acc);
      auto* text = new QCPItemText(heatmap_);
      text->position->setCoords(xi, yi);
      QString label = QString::number(acc * 100, 'f', 0) + QLatin1Char('%');
      const squaring::AccuracyCell* base =
          maps ? maps->combined.find(static_cast<int>(bits[yi]), ts[xi]) : nullptr;
      if (base && base->total == it->second.second) {
        label += QStringLiteral("\n(%1%").arg(base->chance() * 100, 0, 'f', 1);
        if (!std::isnan(base->ceiling()))
          label += QStringLiteral(" | %1%").arg(base->ceiling() * 100, 0, 'f', 0);
        label += QLatin1Char(')');
      }
      text->setText(label);
      text->setColor(acc > 0.6 ? Qt::black : Qt::white);
      if (data.outOfDistribution(bits[yi], ts[xi])) {
        // Black dashes on a white line: visible on every colour of the scale.
        for (const QPen& pen : {QPen(Qt::white, 3.0), QPen(Qt::black, 1.6, Qt::DashLine)}) {
          auto* box = new QCPItemRect(heatmap_);
          box->topLeft->setCoords(xi - 0.44, yi + 0.44);
          box->bottomRight->setCoords(xi + 0.44, yi - 0.44);
          box->setPen(pen);
        }
      }
    }
  }
  auto* scale = new QCPColorScale(heatmap_);
  heatmap_->plotLayout()->addElement(heatmap_->plotLayout()->rowCount() - 1, 1, scale);
  scale->setGradient(gradient);
  scale->setDataRange(QCPRange(0, 1));
  scale->axis()->setLabel(tr("accuracy"));
  map->setColorScale(scale);
  auto* group = new QCPMarginGroup(heatmap_);
  heatmap_->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  scale->setMarginGroup(QCP::msBottom | QCP::msTop, group);
  heatmap_->xAxis->setRange(-0.5, ts.size() - 0.5);
  heatmap_->yAxis->setRange(-0.5, bits.size() - 0.5);
  heatmap_->replot();
}

// Accuracy vs T, one line per modulus size, with the population chance of a fixed modulus.
void SerialTaskView::drawAccuracyByT(const SerialTaskData& data) {
  const auto& cells = data.cells;
  const auto& ts = data.ts;
  const auto* tier = data.tier;
  plots::preparePlot(*by_t_, tr("Accuracy vs test-time iterations"), tr("T (squarings)"),
                     tr("exact-match accuracy"));
  plots::setLogAxis(*by_t_->xAxis);
  by_t_->xAxis->setNumberFormat("gb");
  QSharedPointer<QCPAxisTickerText> t_ticks(new QCPAxisTickerText);
  for (int64_t t : ts) t_ticks->addTick(static_cast<double>(t), QString::number(t));
  by_t_->xAxis->setTicker(t_ticks);
  int index = 0;
  for (int64_t b : data.bits) {
    QCPGraph* g = by_t_->addGraph();
    const QColor color = plots::seriesColor(index++);
    g->setPen(QPen(color, 1.8));
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, color, color, 6));
    for (int64_t t : ts) {
      auto it = cells.find({b, t});
      if (it != cells.end() && it->second.second > 0)
        g->addData(static_cast<double>(t),
                   static_cast<double>(it->second.first) / it->second.second);
    }
    g->setName(tr("%1-bit moduli%2").arg(b).arg(data.unseenBits(b) ? tr(" (unseen)") : QString()));
  }
  if (tier && tier->fixedModulus()) {
    QCPGraph* chance = by_t_->addGraph();
    chance->setPen(QPen(QColor(120, 120, 120), 1.2, Qt::DashLine));
    for (int64_t t : ts)
      chance->addData(static_cast<double>(t), squaring::populationChance(tier->fixedN(), t));
    chance->setName(tr("chance (commonest answer over all x)"));
  }
  by_t_->xAxis->setRange(ts.front() / 1.4, ts.back() * 1.4);
  by_t_->yAxis->setRange(-0.03, 1.05);
  plots::placeLegendRight(*by_t_);
  by_t_->replot();
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

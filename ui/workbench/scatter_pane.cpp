// The Compare view's Scatter tab (see scatter_pane.h).
#include "ui/workbench/scatter_pane.h"

#include <qcustomplot.h>

#include <QCheckBox>
#include <QComboBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QInputDialog>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>

#include "core/errors.h"
#include "core/run_option_values.h"
#include "fitting/scatter_law.h"
#include "storage/database.h"
#include "storage/run_option_rows.h"
#include "storage/scatter_points.h"
#include "ui/workbench/background.h"
#include "ui/workbench/database_access.h"
#include "ui/workbench/gui_query_guard.h"

namespace deepladder::ui {

// What the controls offer, read from the database.
struct ScatterPane::Choices {
  std::vector<std::string> ladders;
  std::vector<std::string> x;      // derived quantities, then options with numeric values
  std::vector<std::string> group;  // "", arm, size, ladder, seed, then options that vary
  std::vector<std::pair<std::string, std::string>> views;  // saved scatter views: name, spec
};

namespace {

// Statistic names in the combo's order (core/scatter_spec.h).
const SummaryStat kStats[] = {SummaryStat::kFinal, SummaryStat::kMin, SummaryStat::kLastK,
                              SummaryStat::kAtStep, SummaryStat::kAtFlops};

plots::ScatterPlotInput scatterInput(const QString& path, const ScatterSpec& spec) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  const storage::ScatterData data = storage::readScatterPoints(*db, spec);
  const fitting::ScatterFit fit = fitting::fitScatterLaws(data.points, data.groups, spec);
  plots::ScatterPlotInput input;
  input.points = data.points;
  input.groups = data.groups;
  input.laws = fit.laws;
  input.x_label = QString::fromStdString(data.x_label);
  input.y_label = QString::fromStdString(data.y_label);
  input.group_by = QString::fromStdString(shortOptionName(spec.group));
  input.note = QString::fromStdString(fit.note);
  if (data.left_out > 0)
    input.note += QStringLiteral("; %1 finished run(s) left out, e.g. %2")
                      .arg(data.left_out)
                      .arg(QString::fromStdString(data.left_out_example));
  input.log_x = spec.log_x;
  input.log_y = spec.log_y;
  return input;
}

void setComboItems(QComboBox& combo, const std::vector<std::string>& items, const QString& keep) {
  QSignalBlocker block(&combo);
  combo.clear();
  for (const auto& item : items) combo.addItem(QString::fromStdString(item));
  const int at = combo.findText(keep);
  if (at >= 0)
    combo.setCurrentIndex(at);
  else if (combo.isEditable())
    combo.setCurrentText(keep);
}

}  // namespace

namespace {

ScatterPane::Choices readChoices(const QString& path) {
  auto db = openExistingDatabase(path, /*read_only=*/true);
  ScatterPane::Choices c;
  std::set<std::string> ladders;
  std::vector<OptionValues> rows;
  for (const auto& s : db->listRuns()) {
    if (!s.ladder_name.empty()) ladders.insert(s.ladder_name);
    rows.push_back(storage::runOptionRow(s.run, s.ladder_name));
  }
  c.ladders.assign(ladders.begin(), ladders.end());
  c.x = derivedQuantities();
  c.group = {""};
  for (const auto& name : storage::runRecordOptions()) c.group.push_back(name);
  for (const auto& name : varyingOptions(rows)) {
    if (std::find(c.group.begin(), c.group.end(), name) == c.group.end()) c.group.push_back(name);
    const bool numeric = std::all_of(rows.begin(), rows.end(), [&](const OptionValues& r) {
      const auto it = r.find(name);
      return it == r.end() || optionNumber(it->second).has_value();
    });
    if (numeric && std::find(c.x.begin(), c.x.end(), name) == c.x.end()) c.x.push_back(name);
  }
  for (const auto& v : db->savedViews("scatter")) c.views.emplace_back(v.name, v.spec_json);
  return c;
}

}  // namespace

ScatterPane::ScatterPane(QWidget* parent) : QWidget(parent) {
  const ScatterSpec defaults = defaultScatterSpec();
  ladder_ = new QComboBox;
  ladder_->addItem(tr("every ladder"));
  metric_ = new QComboBox;
  metric_->setEditable(true);
  metric_->addItems({"val/loss", "train/loss"});
  metric_->setCurrentText(QString::fromStdString(defaults.metric));
  stat_ = new QComboBox;
  stat_->addItems(
      {tr("final"), tr("minimum"), tr("mean of last k"), tr("at step"), tr("at FLOPs")});
  k_ = new QSpinBox;
  k_->setRange(1, 1000000);
  k_->setValue(defaults.k);
  k_->setPrefix(tr("k = "));
  at_ = new QLineEdit;
  at_->setPlaceholderText(tr("step or FLOPs"));
  x_ = new QComboBox;
  for (const auto& name : derivedQuantities()) x_->addItem(QString::fromStdString(name));
  x_->setCurrentText(QString::fromStdString(defaults.x));
  x_->setObjectName(QStringLiteral("scatterX"));
  group_ = new QComboBox;
  group_->addItems({"", "arm", "size", "ladder", "seed"});
  group_->setCurrentText(QString::fromStdString(defaults.group));
  group_->setObjectName(QStringLiteral("scatterGroup"));
  log_x_ = new QCheckBox(tr("log x"));
  log_x_->setChecked(defaults.log_x);
  log_y_ = new QCheckBox(tr("log y"));
  log_y_->setChecked(defaults.log_y);
  views_ = new QComboBox;
  views_->setPlaceholderText(tr("saved views"));
  views_->setMinimumContentsLength(12);
  save_ = new QPushButton(tr("Save view…"));

  auto* row1 = new QHBoxLayout;
  row1->addWidget(new QLabel(tr("y:")));
  row1->addWidget(stat_);
  row1->addWidget(k_);
  row1->addWidget(at_);
  row1->addWidget(new QLabel(tr("of")));
  row1->addWidget(metric_, 1);
  row1->addWidget(new QLabel(tr("Ladder:")));
  row1->addWidget(ladder_);
  auto* row2 = new QHBoxLayout;
  row2->addWidget(new QLabel(tr("x:")));
  row2->addWidget(x_, 1);
  row2->addWidget(new QLabel(tr("Group by:")));
  row2->addWidget(group_, 1);
  row2->addWidget(log_x_);
  row2->addWidget(log_y_);
  row2->addWidget(views_);
  row2->addWidget(save_);
  plot_ = new QCustomPlot;
  plot_->setMinimumSize(400, 300);
  note_ = new QLabel(
      tr("One point per finished run. Each group's law: the ladder's L(C) fit for a final loss "
         "against FLOPs, else y = a x^b."));
  note_->setWordWrap(true);
  note_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(row1);
  layout->addLayout(row2);
  layout->addWidget(plot_, 1);
  layout->addWidget(note_);
  auto update_stat_controls = [this] {
    const SummaryStat stat = kStats[std::max(0, stat_->currentIndex())];
    k_->setVisible(stat == SummaryStat::kLastK);
    at_->setVisible(stat == SummaryStat::kAtStep || stat == SummaryStat::kAtFlops);
  };
  update_stat_controls();
  connect(stat_, &QComboBox::currentIndexChanged, this, [this, update_stat_controls] {
    update_stat_controls();
    requestDraw();
  });
  for (QComboBox* combo : {ladder_, metric_, x_, group_})
    connect(combo, &QComboBox::currentTextChanged, this, [this] { requestDraw(); });
  connect(k_, &QSpinBox::valueChanged, this, [this] { requestDraw(); });
  connect(at_, &QLineEdit::editingFinished, this, [this] { requestDraw(); });
  connect(log_x_, &QCheckBox::toggled, this, [this] { requestDraw(); });
  connect(log_y_, &QCheckBox::toggled, this, [this] { requestDraw(); });
  connect(views_, &QComboBox::activated, this,
          [this](int index) { openView(views_->itemText(index).toStdString()); });
  connect(save_, &QPushButton::clicked, this, [this] { saveView(); });
}

void ScatterPane::setDatabase(const QString& path) {
  db_path_ = path;
  ++generation_;
  ++choices_generation_;
  input_ = {};
  plot_->clearGraphs();
  plot_->replot();
}

void ScatterPane::reload() {
  if (db_path_.isEmpty()) return;
  const int generation = ++choices_generation_;
  std::function<std::shared_ptr<const Choices>()> work = [path = db_path_] {
    return std::make_shared<const Choices>(readChoices(path));
  };
  runInBackground<std::shared_ptr<const Choices>>(
      this, work,
      [this, generation](std::shared_ptr<const Choices> choices) {
        if (generation != choices_generation_) return;
        showChoices(*choices);
        emit reloaded();
        requestDraw();
      },
      [this](const QString& message) {
        note_->setText(tr("Cannot read the runs: %1").arg(message));
      });
}

void ScatterPane::showChoices(const Choices& c) {
  filling_ = true;
  std::vector<std::string> ladders = {tr("every ladder").toStdString()};
  ladders.insert(ladders.end(), c.ladders.begin(), c.ladders.end());
  setComboItems(*ladder_, ladders, ladder_->currentText());
  setComboItems(*x_, c.x, x_->currentText());
  setComboItems(*group_, c.group, group_->currentText());
  views_json_ = c.views;
  std::vector<std::string> names;
  for (const auto& [name, spec] : c.views) names.push_back(name);
  setComboItems(*views_, names, views_->currentText());
  filling_ = false;
}

std::vector<std::string> ScatterPane::xChoices() const {
  std::vector<std::string> out;
  for (int i = 0; i < x_->count(); ++i) out.push_back(x_->itemText(i).toStdString());
  return out;
}

std::vector<std::string> ScatterPane::groupChoices() const {
  std::vector<std::string> out;
  for (int i = 0; i < group_->count(); ++i) out.push_back(group_->itemText(i).toStdString());
  return out;
}

std::vector<std::string> ScatterPane::savedViewNames() const {
  std::vector<std::string> out;
  for (const auto& [name, spec] : views_json_) out.push_back(name);
  return out;
}

ScatterSpec ScatterPane::spec() const {
  ScatterSpec s = defaultScatterSpec();
  s.ladder = ladder_->currentIndex() <= 0 ? std::string() : ladder_->currentText().toStdString();
  s.metric = metric_->currentText().toStdString();
  s.stat = kStats[std::max(0, stat_->currentIndex())];
  s.k = k_->value();
  s.at = at_->text().toDouble();
  s.x = x_->currentText().toStdString();
  s.group = group_->currentText().toStdString();
  s.log_x = log_x_->isChecked();
  s.log_y = log_y_->isChecked();
  return s;
}

void ScatterPane::setSpec(const ScatterSpec& s) {
  filling_ = true;
  auto choose = [](QComboBox& combo, const std::string& text) {
    const QString value = QString::fromStdString(text);
    if (combo.findText(value) < 0) combo.addItem(value);  // named by a view: offer it
    combo.setCurrentIndex(combo.findText(value));
  };
  if (s.ladder.empty())
    ladder_->setCurrentIndex(0);
  else
    choose(*ladder_, s.ladder);
  metric_->setCurrentText(QString::fromStdString(s.metric));
  stat_->setCurrentIndex(static_cast<int>(std::find(std::begin(kStats), std::end(kStats), s.stat) -
                                          std::begin(kStats)));
  k_->setValue(s.k);
  at_->setText(s.at != 0 ? QString::number(s.at, 'g', 12) : QString());
  choose(*x_, s.x);
  choose(*group_, s.group);
  log_x_->setChecked(s.log_x);
  log_y_->setChecked(s.log_y);
  filling_ = false;
  requestDraw();
}

bool ScatterPane::openView(const std::string& name) {
  for (const auto& [view, json] : views_json_) {
    if (view != name) continue;
    try {
      setSpec(scatterSpecFromJson(nlohmann::json::parse(json), "view '" + name + "'"));
    } catch (const std::exception& e) {
      note_->setText(tr("Cannot open the view: %1").arg(QString::fromUtf8(e.what())));
    }
    return true;
  }
  return false;
}

void ScatterPane::requestDraw() {
  if (filling_ || db_path_.isEmpty()) return;
  const int generation = ++generation_;
  std::function<plots::ScatterPlotInput()> work = [path = db_path_, spec = spec()] {
    return scatterInput(path, spec);
  };
  runInBackground<plots::ScatterPlotInput>(
      this, work,
      [this, generation](plots::ScatterPlotInput input) {
        if (generation == generation_) draw(std::move(input));
      },
      [this, generation](const QString& message) {
        if (generation != generation_) return;
        draw({});
        note_->setText(message);
      });
}

void ScatterPane::loadNow() {
  AllowGuiThreadQueries blocking_by_request;  // tests and benchmarks ask for it
  ++generation_;
  ++choices_generation_;
  showChoices(readChoices(db_path_));
  draw(scatterInput(db_path_, spec()));
}

void ScatterPane::draw(plots::ScatterPlotInput input) {
  input_ = std::move(input);
  plots::drawScatter(*plot_, input_);
  if (!input_.note.isEmpty()) note_->setText(input_.note);
  emit drawn(static_cast<int>(input_.points.size()));
}

void ScatterPane::saveViewNow(const std::string& name) {
  AllowGuiThreadQueries blocking_by_request;  // a short write the user waits on
  if (name.empty()) throw UserError("a saved view needs a name");
  const std::string json = scatterSpecToJson(spec()).dump();
  openExistingDatabase(db_path_, /*read_only=*/false)->saveView({name, "scatter", json, {}});
  auto it = std::find_if(views_json_.begin(), views_json_.end(),
                         [&](const auto& v) { return v.first == name; });
  if (it == views_json_.end())
    views_json_.emplace_back(name, json);
  else
    it->second = json;
  std::vector<std::string> names;
  for (const auto& [view, spec] : views_json_) names.push_back(view);
  setComboItems(*views_, names, QString::fromStdString(name));
}

void ScatterPane::saveView() {
  bool ok = false;
  const QString name =
      QInputDialog::getText(this, tr("Save scatter view"),
                            tr("Name (draw it again with `deepladder plot scatter --view NAME`):"),
                            QLineEdit::Normal, views_->currentText(), &ok);
  if (!ok || name.trimmed().isEmpty()) return;
  try {
    saveViewNow(name.trimmed().toStdString());
    note_->setText(tr("Saved view \"%1\".").arg(name.trimmed()));
  } catch (const std::exception& e) {
    note_->setText(tr("Cannot save the view: %1").arg(QString::fromUtf8(e.what())));
  }
}

}  // namespace deepladder::ui

// The Ladder designer (see ladder_designer_view.h).
#include "ui/workbench/ladder_designer_view.h"

#include <toml++/toml.h>

#include <QComboBox>
#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QProcess>
#include <QPushButton>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <sstream>

// Qt defines `slots` as a macro; ladder::Resources has a field of that name.
#undef slots
#include "core/ladder/ladder_spec.h"

namespace deepladder::ui {
namespace {

QString joinNumbers(const toml::array* a) {
  QStringList out;
  if (a)
    for (const auto& v : *a)
      if (auto i = v.value<int64_t>()) out << QString::number(*i);
  return out.join(QStringLiteral(", "));
}

toml::array numbersOf(const QString& text) {
  toml::array out;
  for (const QString& part : text.split(QLatin1Char(','), Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong v = part.trimmed().toLongLong(&ok);
    if (ok) out.push_back(static_cast<int64_t>(v));
  }
  return out;
}

QString duration(double s) {
  if (s < 120) return QStringLiteral("%1 s").arg(s, 0, 'f', 0);
  if (s < 7200) return QStringLiteral("%1 min").arg(s / 60, 0, 'f', 1);
  return QStringLiteral("%1 h").arg(s / 3600, 0, 'f', 1);
}

}  // namespace

LadderDesignerView::LadderDesignerView(QWidget* parent) : QWidget(parent) {
  editor_ = new QPlainTextEdit;
  editor_->setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
  editor_->setLineWrapMode(QPlainTextEdit::NoWrap);
  name_ = new QLineEdit;
  seeds_ = new QLineEdit;
  seeds_->setPlaceholderText(QStringLiteral("1, 2, 3"));
  arms_ = new QLineEdit;
  arms_->setPlaceholderText(QStringLiteral("vanilla, growth"));
  depths_ = new QLineEdit;
  depths_->setPlaceholderText(QStringLiteral("2, 4, 8"));
  budget_rule_ = new QComboBox;
  budget_rule_->addItems({"tokens_per_param", "tokens", "flops"});
  budget_value_ = new QLineEdit;
  auto* form = new QFormLayout;
  form->addRow(tr("Name"), name_);
  form->addRow(tr("Seeds"), seeds_);
  form->addRow(tr("Arms"), arms_);
  form->addRow(tr("Depths"), depths_);
  form->addRow(tr("Budget rule"), budget_rule_);
  form->addRow(tr("Budget value"), budget_value_);
  auto* form_box = new QWidget;
  auto* form_layout = new QVBoxLayout(form_box);
  auto* form_title = new QLabel(tr("<b>Form</b> (edits rewrite the TOML)"));
  form_layout->addWidget(form_title);
  form_layout->addLayout(form);
  form_layout->addStretch(1);

  status_ = new QLabel;
  status_->setWordWrap(true);
  status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  totals_ = new QLabel;
  plan_ = new QTableWidget(0, 7);
  plan_->setHorizontalHeaderLabels(
      {tr("Run"), tr("Arm"), tr("Size"), tr("Params"), tr("Tokens"), tr("FLOPs"), tr("Est. time")});
  plan_->verticalHeader()->hide();
  plan_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  // The run name takes the spare width; the numbers stay together on the left.
  plan_->horizontalHeader()->setStretchLastSection(false);
  plan_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::Stretch);
  plan_->setAlternatingRowColors(true);

  auto* open = new QPushButton(tr("Open…"));
  auto* save = new QPushButton(tr("Save as…"));
  run_ = new QPushButton(tr("Run"));
  run_->setToolTip(tr("Save the ladder and start `deepladder run` on the open database"));
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(open);
  buttons->addWidget(save);
  buttons->addStretch(1);
  buttons->addWidget(run_);

  auto* top = new QSplitter;
  top->addWidget(form_box);
  top->addWidget(editor_);
  top->setStretchFactor(1, 2);
  auto* bottom = new QWidget;
  auto* bottom_layout = new QVBoxLayout(bottom);
  bottom_layout->setContentsMargins(0, 0, 0, 0);
  bottom_layout->addWidget(status_);
  bottom_layout->addWidget(plan_, 1);
  bottom_layout->addWidget(totals_);
  auto* split = new QSplitter(Qt::Vertical);
  split->addWidget(top);
  split->addWidget(bottom);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(buttons);
  layout->addWidget(split, 1);

  debounce_ = new QTimer(this);
  debounce_->setSingleShot(true);
  debounce_->setInterval(250);
  connect(debounce_, &QTimer::timeout, this, &LadderDesignerView::validate);
  connect(editor_, &QPlainTextEdit::textChanged, this, [this] {
    if (!syncing_) debounce_->start();
  });
  for (QLineEdit* e : {name_, seeds_, arms_, depths_, budget_value_})
    connect(e, &QLineEdit::editingFinished, this, &LadderDesignerView::formToText);
  connect(budget_rule_, &QComboBox::activated, this, &LadderDesignerView::formToText);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open ladder"), {}, tr("Ladders (*.toml)"));
    QFile f(path);
    if (!path.isEmpty() && f.open(QIODevice::ReadOnly)) setText(QString::fromUtf8(f.readAll()));
  });
  auto save_as = [this]() -> QString {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save ladder"), name_->text() + ".toml", tr("Ladders (*.toml)"));
    QFile f(path);
    if (path.isEmpty()) return {};
    if (!f.open(QIODevice::WriteOnly) || f.write(text().toUtf8()) < 0) {
      QMessageBox::warning(this, tr("Cannot save"), tr("Cannot write %1.").arg(path));
      return {};
    }
    return path;
  };
  connect(save, &QPushButton::clicked, this, save_as);
  connect(run_, &QPushButton::clicked, this, [this, save_as] {
    if (!message_.isEmpty() || db_path_.isEmpty()) return;
    const QString path = save_as();
    if (path.isEmpty()) return;
    const QString cli = QDir(QCoreApplication::applicationDirPath()).filePath("deepladder");
    if (!QProcess::startDetached(cli, {"run", path, "--db", db_path_, "--quiet"}))
      QMessageBox::warning(this, tr("Cannot start"), tr("Could not start %1.").arg(cli));
    else
      status_->setText(tr("Started `deepladder run %1`; watch it in the Runs view.").arg(path));
  });
}

void LadderDesignerView::setText(const QString& toml) {
  editor_->setPlainText(toml);
  validate();
}

QString LadderDesignerView::text() const {
  return editor_->toPlainText();
}

int LadderDesignerView::plannedRuns() const {
  return plan_->rowCount();
}

void LadderDesignerView::validate() {
  const std::string text = editor_->toPlainText().toStdString();
  try {
    const auto spec = ladder::parseLadder(text, "designer");
    message_.clear();
    auto count = [](size_t n, const char* one, const char* many) {
      return QStringLiteral("%1 %2").arg(n).arg(QLatin1String(n == 1 ? one : many));
    };
    status_->setText(tr("\u2714 Valid: %1 (%2 \u00D7 %3 \u00D7 %4).")
                         .arg(count(spec.runs.size(), "run", "runs"),
                              count(spec.arms.size(), "arm", "arms"),
                              count(spec.sizes.size(), "size", "sizes"),
                              count(spec.seeds.size(), "seed", "seeds")));
    status_->setStyleSheet(QString());
    run_->setEnabled(!db_path_.isEmpty());
    plan_->setRowCount(static_cast<int>(spec.runs.size()));
    double flops = 0, seconds = 0;
    for (int i = 0; i < static_cast<int>(spec.runs.size()); ++i) {
      const auto& r = spec.runs[i];
      const QStringList cells = {QString::fromStdString(r.name),
                                 QString::fromStdString(r.arm),
                                 QString::fromStdString(r.size),
                                 locale().toString(qlonglong(r.params)),
                                 locale().toString(qlonglong(r.tokens)),
                                 QString::number(r.flops, 'g', 3),
                                 duration(r.est_seconds)};
      for (int c = 0; c < cells.size(); ++c) {
        auto* item = new QTableWidgetItem(cells[c]);
        if (c >= 3) item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);  // numbers
        plan_->setItem(i, c, item);
      }
      flops += r.flops;
      seconds += r.est_seconds;
    }
    plan_->resizeColumnsToContents();
    totals_->setText(tr("Total: %1 FLOPs, about %2 of compute (%3 slots: about %4 wall time).")
                         .arg(flops, 0, 'g', 3)
                         .arg(duration(seconds))
                         .arg(std::max<int64_t>(1, spec.resources.slots))
                         .arg(duration(seconds / std::max<int64_t>(1, spec.resources.slots))));
    // Text -> form.
    syncing_ = true;
    try {
      const auto doc = toml::parse(text);
      name_->setText(QString::fromStdString(spec.name));
      seeds_->setText(joinNumbers(doc["ladder"]["seeds"].as_array()));
      QStringList arms;
      for (const auto& a : spec.arms) arms << QString::fromStdString(a);
      arms_->setText(arms.join(QStringLiteral(", ")));
      depths_->setText(joinNumbers(doc["sizes"]["depths"].as_array()));
      const auto rule = doc["budget"]["rule"].value_or(std::string("tokens_per_param"));
      budget_rule_->setCurrentText(QString::fromStdString(rule));
      const auto value = doc["budget"][rule].value<double>();
      budget_value_->setText(value ? QString::number(*value, 'g') : QString());
    } catch (const std::exception&) {
    }
    syncing_ = false;
  } catch (const std::exception& e) {
    message_ = QString::fromUtf8(e.what());
    status_->setText(QStringLiteral("\u2716 ") + message_);
    status_->setStyleSheet(QStringLiteral("color: #c0392b;"));
    run_->setEnabled(false);
  }
}

void LadderDesignerView::formToText() {
  if (syncing_) return;
  toml::table doc;
  try {
    doc = toml::parse(editor_->toPlainText().toStdString());
  } catch (const std::exception&) {
    return;  // fix the text first; the form only edits a parseable file
  }
  if (!doc["ladder"].as_table()) doc.insert_or_assign("ladder", toml::table{});
  auto* ladder = doc["ladder"].as_table();
  ladder->insert_or_assign("name", name_->text().toStdString());
  ladder->insert_or_assign("seeds", numbersOf(seeds_->text()));
  if (!depths_->text().trimmed().isEmpty()) {
    if (!doc["sizes"].as_table()) doc.insert_or_assign("sizes", toml::table{});
    doc["sizes"].as_table()->insert_or_assign("depths", numbersOf(depths_->text()));
  }
  if (!doc["budget"].as_table()) doc.insert_or_assign("budget", toml::table{});
  auto* budget = doc["budget"].as_table();
  const std::string rule = budget_rule_->currentText().toStdString();
  budget->clear();
  budget->insert_or_assign("rule", rule);
  bool ok = false;
  const double v = budget_value_->text().toDouble(&ok);
  if (ok) {
    if (rule == "flops" || v != std::floor(v))
      budget->insert_or_assign(rule, v);
    else
      budget->insert_or_assign(rule, static_cast<int64_t>(v));
  }
  if (!doc["arms"].as_table()) doc.insert_or_assign("arms", toml::table{});
  auto* arms = doc["arms"].as_table();
  QStringList wanted;
  for (const QString& a : arms_->text().split(QLatin1Char(','), Qt::SkipEmptyParts))
    wanted << a.trimmed();
  std::vector<std::string> drop;
  for (const auto& [k, _] : *arms)
    if (!wanted.contains(QString::fromStdString(std::string(k.str())))) drop.emplace_back(k.str());
  for (const auto& k : drop) arms->erase(k);
  for (const QString& a : wanted)
    if (!arms->contains(a.toStdString())) arms->insert(a.toStdString(), toml::table{});
  std::ostringstream out;
  out << doc << "\n";
  syncing_ = true;
  editor_->setPlainText(QString::fromStdString(out.str()));
  syncing_ = false;
  validate();
}

}  // namespace deepladder::ui

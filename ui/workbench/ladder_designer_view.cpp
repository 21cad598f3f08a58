// The Ladder designer (see ladder_designer_view.h).
#include "ui/workbench/ladder_designer_view.h"

#include <QFile>
#include <QFileDialog>
#include <QFontDatabase>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QShortcut>
#include <QSplitter>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>
#include <optional>
#include <sstream>

// Qt defines `slots` as a macro; ladder::Resources has a field of that name.
#undef slots
#include "core/ladder/ladder_spec.h"
#include "core/toml_guard.h"
#include "ui/workbench/ladder_form.h"

namespace deepladder::ui {
namespace {

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
  form_ = new LadderForm;
  form_scroll_ = new QScrollArea;
  form_scroll_->setWidget(form_);
  form_scroll_->setWidgetResizable(true);
  form_scroll_->setMinimumWidth(380);
  auto* form_box = new QWidget;
  auto* form_layout = new QVBoxLayout(form_box);
  form_layout->setContentsMargins(0, 0, 0, 0);
  auto* form_title =
      new QLabel(tr("<b>Form</b>: edits rewrite the TOML; empty fields take the "
                    "defaults"));
  form_title->setWordWrap(true);
  form_layout->addWidget(form_title);
  form_layout->addWidget(form_scroll_, 1);

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
  run_->setToolTip(
      tr("Queue this ladder in the open database and run it in this window "
         "(watch it in the Runs view). Ctrl+Return"));
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
  split->setStretchFactor(0, 3);  // the form and the text get most of the height
  split->setStretchFactor(1, 2);
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
  connect(form_, &LadderForm::edited, this, &LadderDesignerView::formToText);
  connect(open, &QPushButton::clicked, this, [this] {
    const QString path =
        QFileDialog::getOpenFileName(this, tr("Open ladder"), {}, tr("Ladders (*.toml)"));
    QFile f(path);
    if (!path.isEmpty() && f.open(QIODevice::ReadOnly)) setText(QString::fromUtf8(f.readAll()));
  });
  auto save_as = [this]() -> QString {
    const QString path = QFileDialog::getSaveFileName(
        this, tr("Save ladder"), QStringLiteral("ladder.toml"), tr("Ladders (*.toml)"));
    QFile f(path);
    if (path.isEmpty()) return {};
    if (!f.open(QIODevice::WriteOnly) || f.write(text().toUtf8()) < 0) {
      QMessageBox::warning(this, tr("Cannot save"), tr("Cannot write %1.").arg(path));
      return {};
    }
    return path;
  };
  connect(save, &QPushButton::clicked, this, save_as);
  // Ctrl+Return runs while this view has the focus.
  auto* run_key = new QShortcut(QKeySequence(Qt::CTRL | Qt::Key_Return), this);
  run_key->setContext(Qt::WidgetWithChildrenShortcut);
  connect(run_key, &QShortcut::activated, run_, &QPushButton::click);
  connect(run_, &QPushButton::clicked, this, [this] {
    validate();
    if (message_.isEmpty() && !db_path_.isEmpty()) emit runRequested(text());
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
      seconds += r.est_seconds * static_cast<double>(r.config.train.ranks);  // slot-time
    }
    plan_->resizeColumnsToContents();
    totals_->setText(tr("Total: %1 FLOPs, about %2 of compute (%3 slots: about %4 wall time).")
                         .arg(flops, 0, 'g', 3)
                         .arg(duration(seconds))
                         .arg(std::max<int64_t>(1, spec.resources.slots))
                         .arg(duration(seconds / std::max<int64_t>(1, spec.resources.slots))));
    // Text -> form.
    syncing_ = true;
    form_->loadFrom(text);
    syncing_ = false;
    form_scroll_->setEnabled(true);
    form_scroll_->setToolTip(QString());
  } catch (const std::exception& e) {
    message_ = QString::fromUtf8(e.what());
    status_->setText(QStringLiteral("\u2716 ") + message_);
    status_->setStyleSheet(QStringLiteral("color: #c0392b;"));
    run_->setEnabled(false);
    // The form would rewrite a text it cannot read: keep it out of the way until the text is
    // a valid ladder again.
    form_scroll_->setEnabled(false);
    form_scroll_->setToolTip(
        tr("Fix the TOML text first (see the message below); the form "
           "edits only a valid ladder."));
  }
}

bool LadderDesignerView::formEnabled() const {
  return form_scroll_->isEnabled();
}

void LadderDesignerView::formToText() {
  if (syncing_) return;
  QString error;
  const std::string current = editor_->toPlainText().toStdString();
  if (tomlGuardProblem(current, "designer")) return validate();  // says what is wrong
  const std::optional<std::string> text = form_->applyTo(current, &error);
  if (!text) {
    status_->setText(QStringLiteral("\u2716 ") + tr("Form: %1").arg(error));
    status_->setStyleSheet(QStringLiteral("color: #c0392b;"));
    return;
  }
  syncing_ = true;
  editor_->setPlainText(QString::fromStdString(*text));
  syncing_ = false;
  validate();
}

}  // namespace deepladder::ui

// The ladder designer's form: its widgets and their bindings (see ladder_form.h; the TOML text half
// is ladder_form_text.cpp).
#include "ui/workbench/ladder_form.h"

#include <toml++/toml.h>

#include <QComboBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QStackedWidget>
#include <QStyledItemDelegate>
#include <QTabWidget>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <vector>

#include "core/architecture.h"
#include "core/ladder/section_choices.h"
#include "core/options/option_schema.h"
#include "ui/workbench/toml_text_edit.h"

namespace deepladder::ui {
namespace {

const QString kDefault = QStringLiteral("(default)");
// The value types of the ladder's own fields (those of run options come from the schema).
constexpr options::OptionType kInteger = options::OptionType::integer;
constexpr options::OptionType kNumber = options::OptionType::number;
constexpr options::OptionType kText = options::OptionType::string;

QStringList choiceList(const std::vector<std::string>& choices) {
  QStringList list;
  for (const std::string& choice : choices) list << QString::fromStdString(choice);
  return list;
}

QTableWidget* makeTable(const QStringList& headers) {
  auto* t = new QTableWidget(0, headers.size());
  t->setHorizontalHeaderLabels(headers);
  t->verticalHeader()->hide();
  t->horizontalHeader()->setStretchLastSection(true);
  t->setMinimumHeight(90);
  t->setSelectionBehavior(QAbstractItemView::SelectRows);
  return t;
}

// The Preset column edits with a list of the architecture presets (empty: none).
class PresetDelegate : public QStyledItemDelegate {
 public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem&,
                        const QModelIndex&) const override {
    auto* combo = new QComboBox(parent);
    combo->addItem(QString());
    for (const auto& name : armPresetNames()) combo->addItem(QString::fromStdString(name));
    return combo;
  }
  void setEditorData(QWidget* editor, const QModelIndex& index) const override {
    auto* combo = static_cast<QComboBox*>(editor);
    const int i = combo->findText(index.data().toString());
    combo->setCurrentIndex(std::max(0, i));
  }
  void setModelData(QWidget* editor, QAbstractItemModel* model,
                    const QModelIndex& index) const override {
    model->setData(index, static_cast<QComboBox*>(editor)->currentText());
  }
};

}  // namespace

LadderForm::LadderForm(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  auto group = [&](const QString& title) {
    auto* box = new QGroupBox(title);
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    layout->addWidget(box);
    return form;
  };
  auto row = [](QFormLayout* form, const QString& label, QWidget* w) { form->addRow(label, w); };

  // --- ladder
  QFormLayout* ladder = group(tr("Ladder"));
  row(ladder, tr("Name"), addLine("ladder", "name", kText, tr("name"), "my-ladder"));
  row(ladder, tr("Description"), addLine("ladder", "description", kText, tr("description"), ""));
  row(ladder, tr("Task"), addChoice("ladder", "task", tr("task"), {"lm", "squaring"}));
  row(ladder, tr("Seeds"),
      addLine("ladder", "seeds", kInteger, tr("seeds"), "1, 2, 3",
              /*list=*/true));

  // --- arms
  auto* arms_box = new QGroupBox(tr("Arms (preset, then model/train overrides)"));
  auto* arms_layout = new QVBoxLayout(arms_box);
  arms_ = makeTable({tr("Arm"), tr("Preset"), tr("Overrides (TOML)")});
  QStringList presets;
  for (const auto& name : armPresetNames()) presets << QString::fromStdString(name);
  arms_->setToolTip(tr("Preset: one of %1 (empty: the arm's name when it names one).\n"
                       "Overrides, e.g.: model = { n_layer = 6 }, train = { lr = 1e-3 }")
                        .arg(presets.join(QStringLiteral(", "))));
  arms_->setItemDelegateForColumn(kArmPreset, new PresetDelegate(arms_));
  auto* arm_buttons = new QHBoxLayout;
  auto* add_arm = new QPushButton(tr("Add arm"));
  auto* remove_arm = new QPushButton(tr("Remove arm"));
  arm_buttons->addWidget(add_arm);
  arm_buttons->addWidget(remove_arm);
  arm_buttons->addStretch(1);
  arms_layout->addWidget(arms_);
  arms_layout->addLayout(arm_buttons);
  layout->addWidget(arms_box);

  // --- sizes
  auto* sizes_box = new QGroupBox(tr("Sizes"));
  auto* sizes_layout = new QVBoxLayout(sizes_box);
  sizes_mode_ = new QComboBox;
  sizes_mode_->addItems({tr("Depth ladder"), tr("Explicit list")});
  sizes_layout->addWidget(sizes_mode_);
  sizes_stack_ = new QStackedWidget;
  auto* depth_page = new QWidget;
  auto* depth_form = new QFormLayout(depth_page);
  depth_form->setContentsMargins(0, 0, 0, 0);
  row(depth_form, tr("Depths"),
      addLine("sizes", "depths", kInteger, tr("depths"), "2, 4, 8",
              /*list=*/true));
  row(depth_form, tr("Width per depth"),
      addLine("sizes", "width_per_depth", kInteger, tr("width_per_depth"), "64"));
  row(depth_form, tr("Head dim"), addLine("sizes", "head_dim", kInteger, tr("head_dim"), "32"));
  auto* list_page = new QWidget;
  auto* list_layout = new QVBoxLayout(list_page);
  list_layout->setContentsMargins(0, 0, 0, 0);
  sizes_list_ = makeTable({tr("Size"), tr("Model keys (TOML)")});
  sizes_list_->setToolTip(tr("e.g.: d_model = 64, n_layer = 2, n_head = 4"));
  auto* size_buttons = new QHBoxLayout;
  auto* add_size = new QPushButton(tr("Add size"));
  auto* remove_size = new QPushButton(tr("Remove size"));
  size_buttons->addWidget(add_size);
  size_buttons->addWidget(remove_size);
  size_buttons->addStretch(1);
  list_layout->addWidget(sizes_list_);
  list_layout->addLayout(size_buttons);
  sizes_stack_->addWidget(depth_page);
  sizes_stack_->addWidget(list_page);
  sizes_layout->addWidget(sizes_stack_);
  layout->addWidget(sizes_box);

  // --- budget
  QFormLayout* budget = group(tr("Budget"));
  row(budget, tr("Rule"),
      addChoice("budget", "rule", tr("budget rule"), choiceList(ladder::budgetRuleChoices())));
  row(budget, tr("Tokens per run"),
      addLine("budget", "tokens", kNumber, tr("tokens"), "rule tokens"));
  row(budget, tr("Tokens per param"),
      addLine("budget", "tokens_per_param", kNumber, tr("tokens_per_param"),
              "rule tokens_per_param, e.g. 20"));
  row(budget, tr("FLOPs"),
      addLine("budget", "flops", kNumber, tr("flops"), "rule flops: one budget or one per size",
              /*list=*/true));

  // --- run options: every key of [model], [data], [train], [squaring], from the schema
  auto* run_box = new QGroupBox(tr("Run defaults (every run of the ladder; arms override)"));
  auto* run_layout = new QVBoxLayout(run_box);
  auto* run_tabs = new QTabWidget;
  for (options::Section section : options::allSections()) {
    if (section == options::Section::root) continue;  // name and task are the ladder's
    auto* page = new QWidget;
    auto* form = new QFormLayout(page);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    const std::string table(options::sectionName(section));
    for (const options::OptionSpec& spec : options::runOptionSchema())
      if (spec.section == section)
        form->addRow(QString::fromUtf8(spec.key.data(), spec.key.size()), addOption(spec));
    run_tabs->addTab(page, QString::fromStdString(table));
  }
  run_layout->addWidget(run_tabs);
  layout->addWidget(run_box);

  // --- resources
  QFormLayout* res = group(tr("Resources"));
  row(res, tr("Backend"),
      addChoice("resources", "backend", tr("backend"),
                choiceList(ladder::resourceBackendChoices())));
  row(res, tr("Devices"),
      addLine("resources", "devices", kText, tr("devices"), "auto, cpu or 0,1"));
  row(res, tr("Slots"), addLine("resources", "slots", kInteger, tr("slots"), "0 = cores / 2"));
  row(res, tr("Threads per slot"),
      addLine("resources", "threads_per_slot", kInteger, tr("threads_per_slot"), "0 = share"));
  row(res, tr("Retries"), addLine("resources", "retries", kInteger, tr("retries"), "2"));
  row(res, tr("Heartbeat timeout (s)"),
      addLine("resources", "heartbeat_timeout_s", kNumber, tr("heartbeat_timeout_s"), "300"));
  row(res, tr("Throughput (FLOP/s)"),
      addLine("resources", "throughput_flops", kNumber, tr("throughput_flops"),
              "2e10, for time estimates"));
  layout->addStretch(1);

  connect(choice("budget", "rule"), &QComboBox::currentTextChanged, this,
          [this] { enableBudgetFields(); });
  connect(sizes_mode_, &QComboBox::activated, this, [this](int index) {
    sizes_stack_->setCurrentIndex(index);
    emit edited();
  });
  connect(add_arm, &QPushButton::clicked, this, [this] { addTableRow(arms_); });
  connect(add_size, &QPushButton::clicked, this, [this] { addTableRow(sizes_list_); });
  for (auto [button, table] : {std::pair{remove_arm, arms_}, {remove_size, sizes_list_}})
    connect(button, &QPushButton::clicked, this, [this, table = table] {
      const int r = table->currentRow();
      if (r < 0) return;
      table->removeRow(r);
      emit edited();
    });
  for (QTableWidget* t : {arms_, sizes_list_})
    connect(t, &QTableWidget::itemChanged, this, [this] {
      if (!loading_) emit edited();
    });
  enableBudgetFields();
}

QLineEdit* LadderForm::addLine(const std::string& table, const std::string& key,
                               options::OptionType type, const QString& label,
                               const QString& placeholder, bool list) {
  auto* edit = new QLineEdit;
  edit->setPlaceholderText(placeholder);
  edit->setToolTip(
      QStringLiteral("[%1] %2").arg(QString::fromStdString(table), QString::fromStdString(key)));
  connect(edit, &QLineEdit::editingFinished, this, [this, edit] {
    if (!loading_ && edit->isModified()) {
      edit->setModified(false);
      emit edited();
    }
  });
  bindings_.push_back({table, key, type, edit, label, list});
  return edit;
}

QWidget* LadderForm::addOption(const options::OptionSpec& spec) {
  const std::string table(options::sectionName(spec.section));
  const std::string key(spec.key);
  const QString label = QString::fromStdString(spec.qualifiedKey());
  QString tip = QString::fromUtf8(spec.help.data(), spec.help.size());
  const std::string range = options::rangeDescription(spec);
  if (!range.empty()) tip += tr("\nAllowed: %1").arg(QString::fromStdString(range));
  if (!spec.unit.empty())
    tip += QStringLiteral(" (%1)").arg(QString::fromUtf8(spec.unit.data(), spec.unit.size()));
  tip += tr("\nDefault: %1").arg(QString::fromStdString(options::formatValue(spec.default_value)));
  QWidget* widget = nullptr;
  switch (spec.type) {
    case options::OptionType::choice:
    case options::OptionType::boolean: {
      QStringList choices;
      if (spec.type == options::OptionType::boolean)
        choices << QStringLiteral("true") << QStringLiteral("false");
      for (std::string_view c : spec.choices) choices << QString::fromUtf8(c.data(), c.size());
      QComboBox* combo = addChoice(table, key, label, choices);
      bindings_.back().type = spec.type;
      combo->setItemText(
          0,
          tr("(default: %1)")
              .arg(QString::fromStdString(options::formatValue(spec.default_value)).remove('"')));
      widget = combo;
      break;
    }
    case options::OptionType::integer:
    case options::OptionType::number:
    case options::OptionType::string: {
      widget =
          addLine(table, key, spec.type, label,
                  QString::fromStdString(options::formatValue(spec.default_value)).remove('"'));
      break;
    }
  }
  widget->setToolTip(tip);
  return widget;
}

QComboBox* LadderForm::addChoice(const std::string& table, const std::string& key,
                                 const QString& label, const QStringList& choices) {
  auto* combo = new QComboBox;
  combo->addItem(kDefault);
  combo->addItems(choices);
  combo->setToolTip(
      QStringLiteral("[%1] %2").arg(QString::fromStdString(table), QString::fromStdString(key)));
  connect(combo, &QComboBox::activated, this, [this] { emit edited(); });
  bindings_.push_back({table, key, options::OptionType::choice, combo, label});
  return combo;
}

void LadderForm::enableBudgetFields() {
  // Only the field the rule reads is editable (the default rule is tokens_per_param).
  QString rule = choice("budget", "rule")->currentText();
  if (choice("budget", "rule")->currentIndex() == 0) rule = QStringLiteral("tokens_per_param");
  for (const char* key : {"tokens", "tokens_per_param", "flops"})
    field("budget", key)->setEnabled(rule == QLatin1String(key));
}

void LadderForm::addTableRow(QTableWidget* table) {
  loading_ = true;
  const int r = table->rowCount();
  table->insertRow(r);
  table->setItem(r, 0,
                 new QTableWidgetItem(table == arms_ ? QStringLiteral("vanilla")
                                                     : QStringLiteral("d%1").arg(r + 1)));
  for (int c = 1; c < table->columnCount(); ++c) table->setItem(r, c, new QTableWidgetItem);
  if (table == sizes_list_)
    table->item(r, kSizeKeys)->setText(QStringLiteral("d_model = 64, n_layer = 2, n_head = 4"));
  loading_ = false;
  table->setCurrentCell(r, 0);
  emit edited();
}

QLineEdit* LadderForm::field(const std::string& table, const std::string& key) const {
  for (const auto& b : bindings_)
    if (b.table == table && b.key == key) return qobject_cast<QLineEdit*>(b.widget);
  return nullptr;
}

QComboBox* LadderForm::choice(const std::string& table, const std::string& key) const {
  for (const auto& b : bindings_)
    if (b.table == table && b.key == key) return qobject_cast<QComboBox*>(b.widget);
  return nullptr;
}

}  // namespace deepladder::ui

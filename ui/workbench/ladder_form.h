// The ladder designer's form: every part of a ladder spec (core/ladder/ladder_spec.h) as
// widgets — the ladder (name, description, task, seeds), arms with their preset and overrides,
// sizes as a depth ladder or an explicit list, the budget rule (tokens | tokens_per_param |
// flops), every run option of [model], [data], [train] and [squaring] (generated from the option
// schema, core/options/), and resources. It reads a spec's TOML text
// (loadFrom) and writes its fields back into that text (applyTo), leaving keys it does not show
// untouched; an empty field means "the default" and removes the key. The designer keeps it in
// sync with the text and disables it while the text does not parse.
#pragma once

#include <QWidget>
#include <optional>
#include <string>
#include <vector>

#include "core/options/option_schema.h"

class QComboBox;
class QLineEdit;
class QTableWidget;
class QStackedWidget;

namespace deepladder::ui {

class LadderForm : public QWidget {
  Q_OBJECT
 public:
  explicit LadderForm(QWidget* parent = nullptr);

  // Fills the form from TOML text; false (form unchanged) when the text is not TOML.
  bool loadFrom(const std::string& toml_text);
  // The text with the form's fields written into it; nullopt and `error` (naming the field and
  // what it needs) when a field holds something the spec cannot take, or the text is not TOML.
  std::optional<std::string> applyTo(const std::string& toml_text, QString* error) const;

  // For tests and the designer: the field bound to [table] key ("train", "lr"), or null.
  QLineEdit* field(const std::string& table, const std::string& key) const;
  QComboBox* choice(const std::string& table, const std::string& key) const;
  QTableWidget* armsTable() const { return arms_; }
  QTableWidget* sizesTable() const { return sizes_list_; }
  QComboBox* sizesMode() const { return sizes_mode_; }

 signals:
  // The user changed a field (not emitted by loadFrom).
  void edited();

 private:
  // A field's value type is a run option's (options::OptionType, one enum for both); `list`
  // fields take comma-separated values: a list of integers is always an array, a list of numbers
  // with one value is that number.
  struct Binding {
    std::string table;  // "ladder", "train", "resources", ...
    std::string key;
    options::OptionType type;
    QWidget* widget;
    QString label;  // for messages
    bool list = false;
  };
  QLineEdit* addLine(const std::string& table, const std::string& key, options::OptionType type,
                     const QString& label, const QString& placeholder, bool list = false);
  QComboBox* addChoice(const std::string& table, const std::string& key, const QString& label,
                       const QStringList& choices);
  // The widget of one run option (a line edit, or a list for choices and booleans), with the
  // schema's help, range and default as its tooltip and placeholder.
  QWidget* addOption(const options::OptionSpec& spec);
  void addTableRow(QTableWidget* table);
  void enableBudgetFields();
  // Columns of the arms and explicit sizes tables.
  static constexpr int kArmName = 0, kArmPreset = 1, kArmOverrides = 2;
  static constexpr int kSizeName = 0, kSizeKeys = 1;
  std::vector<Binding> bindings_;
  QTableWidget* arms_;
  QComboBox* sizes_mode_;
  QStackedWidget* sizes_stack_;
  QTableWidget* sizes_list_;
  bool loading_ = false;
};

}  // namespace deepladder::ui

// Ladder designer: the TOML text beside a small form (name, seeds, arms, depths, budget), kept
// in sync both ways, validated live by ladder::parseLadder with the CLI's own messages, and a
// plan preview (params, tokens, FLOPs, estimated time per run and in total). Run saves the
// file and starts `deepladder run FILE --db DB` as a separate process.
#pragma once

#include <QWidget>

class QPlainTextEdit;
class QLineEdit;
class QComboBox;
class QLabel;
class QTableWidget;
class QTimer;
class QPushButton;

namespace deepladder::ui {

class LadderDesignerView : public QWidget {
  Q_OBJECT
 public:
  explicit LadderDesignerView(QWidget* parent = nullptr);
  void setDatabase(const QString& path) { db_path_ = path; }
  void setText(const QString& toml);
  QString text() const;
  // "" when valid, else parseLadder's message.
  QString validationMessage() const { return message_; }
  int plannedRuns() const;

 private:
  void validate();
  void formToText();
  QString db_path_;
  QString message_;
  QPlainTextEdit* editor_;
  QLineEdit* name_;
  QLineEdit* seeds_;
  QLineEdit* arms_;
  QLineEdit* depths_;
  QComboBox* budget_rule_;
  QLineEdit* budget_value_;
  QLabel* status_;
  QLabel* totals_;
  QTableWidget* plan_;
  QTimer* debounce_;
  QPushButton* run_;
  bool syncing_ = false;
};

}  // namespace deepladder::ui

// Ladder designer: the TOML text beside a form of the whole spec (LadderForm), kept in sync
// both ways: a valid text refills the form, a form edit rewrites the text; while the text does
// not parse the form is disabled rather than allowed to clobber it. Validated live by
// ladder::parseLadder with the CLI's own messages, and a
// plan preview (params, tokens, FLOPs, estimated time per run and in total). Run hands the
// valid spec to the window (runRequested), which queues it and runs it with its own scheduler.
#pragma once

#include <QWidget>

class QPlainTextEdit;
class QLabel;
class QScrollArea;
class QTableWidget;
class QTimer;
class QPushButton;

namespace deepladder::ui {

class LadderForm;

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
  LadderForm* form() const { return form_; }
  // Whether the form can be edited (the text is a valid ladder).
  bool formEnabled() const;

 signals:
  // Run was pressed on a valid ladder: its TOML text.
  void runRequested(QString toml);

 private:
  void validate();
  void formToText();
  QString db_path_;
  QString message_;
  QPlainTextEdit* editor_;
  LadderForm* form_;
  QScrollArea* form_scroll_;
  QLabel* status_;
  QLabel* totals_;
  QTableWidget* plan_;
  QTimer* debounce_;
  QPushButton* run_;
  bool syncing_ = false;
};

}  // namespace deepladder::ui

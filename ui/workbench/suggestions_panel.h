// The suggestions beside the multiplier view: which run to buy next for the ladder on show
// (fitting/suggest.h: expected narrowing of the target multiplier's interval per FLOP), ranked on
// a worker thread (a newer request supersedes one still running), and a button that queues the
// selected run into the ladder (a scheduler running the ladder picks it up; else Resume in Runs).
#pragma once

#include <QString>
#include <QWidget>

#include "fitting/fit_types.h"

class QLabel;
class QPushButton;
class QTableView;

namespace deepladder::ui {

class SuggestionTableModel;

class SuggestionsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit SuggestionsPanel(QWidget* parent = nullptr);
  // The ladder (name in `db_path`) and the target compute; clears the table.
  void setLadder(const QString& db_path, const QString& ladder, double target);
  // Ranks the candidates (in the background unless `blocking`).
  void suggestNow(bool blocking = false);
  // Queues the selected suggestion (in the background unless `blocking`).
  void queueSelected(bool blocking = false);

  QTableView* table() const { return table_; }
  SuggestionTableModel* model() const { return model_; }
  QPushButton* queueButton() const { return queue_; }
  QLabel* statusLabel() const { return status_; }

 signals:
  void suggested();
  void queued(QString run_name);

 private:
  QString db_path_, ladder_;
  double target_ = fitting::kDefaultTarget;
  int generation_ = 0;
  SuggestionTableModel* model_;
  QTableView* table_;
  QPushButton* suggest_;
  QPushButton* queue_;
  QLabel* status_;
};

}  // namespace deepladder::ui

// A view of one run picked from a list, loaded in the background: the run picker and status line,
// setDatabase / reloadRuns / showRun, and "the newest request wins" (a generation counter drops
// the results of superseded requests). Each request opens its own read-only connection on a
// worker thread (runInBackground), lists the runs with rows in the view's table when asked, picks
// the run to show and reads its rows with the view's loader; on the GUI thread the picker is
// refilled, the view draws what was read (or the status line says why nothing could be read) and
// loaded() is emitted. A subclass gives its two plots (layOut) and draws shown(), the newest
// request's result, which it can redraw later (e.g. with another threshold).
#pragma once

#include <QWidget>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ui/workbench/database_access.h"

class QComboBox;
class QCustomPlot;
class QHBoxLayout;
class QLabel;

namespace deepladder::ui {

// What one request read: the run list (when asked for) and the run to show. A view's loader
// returns its own subclass carrying that run's rows.
struct RunLoad {
  virtual ~RunLoad() = default;
  bool listed = false;
  std::vector<RunChoice> choices;
  std::optional<int64_t> run_id;
};

class PickedRunView : public QWidget {
  Q_OBJECT
 public:
  // Reads `run_id`'s rows; runs on a worker thread, so it must not touch the view.
  using RunLoader = std::function<std::shared_ptr<RunLoad>(storage::Database& db, int64_t run_id)>;

  // `table`: the rows a run needs to be listed ("lens", "evals"); `cannot_read`: the status line
  // when a load fails, with %1 for the error.
  PickedRunView(std::string table, RunLoader loader, QString cannot_read,
                QWidget* parent = nullptr);
  ~PickedRunView() override;
  void setDatabase(const QString& path);
  // Re-lists the runs and shows the chosen one (in the background).
  void reloadRuns();
  // Shows `run_id` (loaded in the background).
  void showRun(int64_t run_id);
  // True while a load is on its way.
  bool loading() const { return pending_ > 0; }

 signals:
  // The newest request's rows arrived and were drawn (or it failed: see the status line).
  void loaded();

 protected:
  // Draws shown(); called on the GUI thread when the newest request's result arrived, after the
  // picker was refilled.
  virtual void draw() = 0;
  // The newest request's result (null before the first one or after setDatabase). Without a run
  // to show (`run_id` unset) it is a plain RunLoad, else what the loader returned: shownAs<T>().
  const RunLoad* shown() const { return shown_.get(); }
  template <typename Load>
  const Load* shownAs() const {
    return dynamic_cast<const Load*>(shown_.get());
  }
  // Lays the view out: a bar with the run picker (returned, for the view's own controls), the
  // status line, and `left` and `right` side by side below.
  QHBoxLayout* layOut(QCustomPlot* left, QCustomPlot* right);
  QLabel* statusLine() const { return status_; }

 private:
  void request(bool list_runs, int64_t run_id);
  std::string table_;
  RunLoader loader_;
  QString cannot_read_;
  QString db_path_;
  int generation_ = 0;  // results of older requests are dropped
  int pending_ = 0;
  std::shared_ptr<const RunLoad> shown_;
  QComboBox* run_;
  QLabel* status_;
};

}  // namespace deepladder::ui

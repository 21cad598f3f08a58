// The run monitor's model: one row per run (all ladders), with status, device, progress,
// tokens/s, ETA and the last train and validation loss. setRuns() takes a fresh snapshot (from
// the poller) and updates rows in place when the set of runs is unchanged, so selection and
// scroll position survive the once-a-second refresh.
#pragma once

#include <QAbstractTableModel>
#include <vector>

#include "storage/records.h"

namespace deepladder::ui {

class RunTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    kId,
    kLadder,
    kRun,
    kArm,
    kStatus,
    kDevice,
    kProgress,
    kTokensPerSecond,
    kEta,
    kTrainLoss,
    kValLoss,
    kFlops,
    kColumnCount
  };
  static constexpr int kSortRole = Qt::UserRole + 1;  // numbers sort as numbers

  explicit RunTableModel(QObject* parent = nullptr);
  void setRuns(std::vector<storage::RunSummary> runs, double now_unix);
  // Live figures from the in-process scheduler's event (between two database snapshots): the
  // run's step, tokens, last losses (NaN: unchanged) and tokens/s; progress and ETA follow.
  void applyLiveMetric(int64_t run_id, int64_t step, int64_t tokens, double train_loss,
                       double val_loss, double tokens_per_s, double now_unix);
  // Live status change (launched: running on `device`; settled: the new status).
  void applyLiveStatus(int64_t run_id, RunStatus status, const std::string& device);
  const storage::RunSummary* runAt(int row) const;
  int rowOfRun(int64_t id) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // Derived figures (public for tests): fraction done in [0, 1] (NaN when the run's planned
  // steps are unknown), tokens per second of a running run, seconds left.
  static double progressOf(const storage::RunRecord& run);
  static double tokensPerSecondOf(const storage::RunRecord& run);
  static double etaSecondsOf(const storage::RunRecord& run, double now_unix);

 private:
  struct Row {
    storage::RunSummary summary;
    double progress, tokens_per_s, eta_s;
  };
  std::vector<Row> rows_;
};

}  // namespace deepladder::ui

// The run monitor's table model (see run_table_model.h).
#include "ui/workbench/run_table_model.h"

#include <QColor>
#include <QGuiApplication>
#include <QPalette>
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/remaining_time.h"
#include "core/run_status.h"

namespace deepladder::ui {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

QString durationText(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return QStringLiteral("");
  const long s = std::lround(seconds);
  if (s < 60) return QStringLiteral("%1 s").arg(s);
  if (s < 3600) return QStringLiteral("%1 min %2 s").arg(s / 60).arg(s % 60);
  return QStringLiteral("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60);
}

QString lossText(const std::optional<double>& v) {
  if (!v) return QStringLiteral("");
  if (!std::isfinite(*v)) return QStringLiteral("NaN");
  return QString::number(*v, 'f', 4);
}

QColor statusColor(RunStatus status) {
  const bool dark = QGuiApplication::palette().color(QPalette::Base).lightness() < 128;
  if (status == RunStatus::kRunning) return dark ? QColor(110, 170, 255) : QColor(0, 90, 200);
  if (status == RunStatus::kFinished) return dark ? QColor(110, 210, 140) : QColor(0, 130, 60);
  if (status == RunStatus::kFailed || status == RunStatus::kDiverged)
    return dark ? QColor(255, 120, 110) : QColor(190, 30, 20);
  if (status == RunStatus::kCancelled || status == RunStatus::kInterrupted)
    return dark ? QColor(230, 180, 90) : QColor(160, 100, 0);
  return QGuiApplication::palette().color(QPalette::PlaceholderText);
}

}  // namespace

RunTableModel::RunTableModel(QObject* parent) : QAbstractTableModel(parent) {}

double RunTableModel::progressOf(const storage::RunRecord& run) {
  if (run.status == RunStatus::kFinished) return 1.0;
  const double steps = static_cast<double>(run.plan.steps);
  if (steps > 0) return std::clamp(static_cast<double>(run.step) / steps, 0.0, 1.0);
  return kNaN;
}

double RunTableModel::tokensPerSecondOf(const storage::RunRecord& run) {
  const double elapsed = run.heartbeat - run.started;
  if (run.started <= 0 || elapsed <= 0 || run.tokens <= 0) return kNaN;
  const double end = run.finished > 0 ? run.finished - run.started : elapsed;
  return run.tokens / std::max(end, 1e-9);
}

double RunTableModel::etaSecondsOf(const storage::RunRecord& run, double now_unix) {
  if (run.status != RunStatus::kRunning) return kNaN;
  const double elapsed = (run.heartbeat > 0 ? run.heartbeat : now_unix) - run.started;
  if (run.started <= 0 || elapsed <= 0) return kNaN;
  return remainingSeconds(elapsed, run.step, run.plan.steps).value_or(kNaN);
}

void RunTableModel::setRuns(std::vector<storage::RunSummary> runs, double now_unix) {
  std::vector<Row> rows;
  rows.reserve(runs.size());
  for (auto& s : runs) {
    Row r{std::move(s), 0, 0, 0};
    r.progress = progressOf(r.summary.run);
    r.tokens_per_s = tokensPerSecondOf(r.summary.run);
    r.eta_s = etaSecondsOf(r.summary.run, now_unix);
    rows.push_back(std::move(r));
  }
  bool same_ids = rows.size() == rows_.size();
  for (size_t i = 0; same_ids && i < rows.size(); ++i)
    same_ids = rows[i].summary.run.id == rows_[i].summary.run.id;
  if (!same_ids) {
    beginResetModel();
    rows_ = std::move(rows);
    endResetModel();
    return;
  }
  rows_ = std::move(rows);
  if (!rows_.empty())
    emit dataChanged(index(0, 0), index(static_cast<int>(rows_.size()) - 1, kColumnCount - 1));
}

void RunTableModel::applyLiveMetric(int64_t run_id, int64_t step, int64_t tokens, double train_loss,
                                    double val_loss, double tokens_per_s, double now_unix) {
  const int r = rowOfRun(run_id);
  if (r < 0) return;
  Row& row = rows_[r];
  auto& run = row.summary.run;
  run.step = std::max(run.step, step);
  run.tokens = std::max(run.tokens, tokens);
  run.heartbeat = now_unix;
  if (!std::isnan(train_loss)) row.summary.last_train_loss = train_loss;
  if (!std::isnan(val_loss)) row.summary.last_val_loss = val_loss;
  row.progress = progressOf(run);
  row.tokens_per_s = std::isfinite(tokens_per_s) ? tokens_per_s : tokensPerSecondOf(run);
  row.eta_s = etaSecondsOf(run, now_unix);
  emit dataChanged(index(r, 0), index(r, kColumnCount - 1));
}

void RunTableModel::applyLiveStatus(int64_t run_id, RunStatus status, const std::string& device) {
  const int r = rowOfRun(run_id);
  if (r < 0) return;
  auto& run = rows_[r].summary.run;
  run.status = status;
  if (!device.empty()) run.device = device;
  rows_[r].progress = progressOf(run);
  emit dataChanged(index(r, 0), index(r, kColumnCount - 1));
}

const storage::RunSummary* RunTableModel::runAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? &rows_[row].summary : nullptr;
}

int RunTableModel::rowOfRun(int64_t id) const {
  for (size_t i = 0; i < rows_.size(); ++i)
    if (rows_[i].summary.run.id == id) return static_cast<int>(i);
  return -1;
}

int RunTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(rows_.size());
}

int RunTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant RunTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= static_cast<int>(rows_.size())) return {};
  const Row& row = rows_[index.row()];
  const auto& run = row.summary.run;
  if (role == kSortRole) {
    switch (index.column()) {
      case kId:
        return static_cast<qlonglong>(run.id);
      case kProgress:
        return std::isfinite(row.progress) ? row.progress : -1.0;
      case kTokensPerSecond:
        return std::isfinite(row.tokens_per_s) ? row.tokens_per_s : -1.0;
      case kEta:
        return std::isfinite(row.eta_s) ? row.eta_s : -1.0;
      case kTrainLoss:
        return row.summary.last_train_loss.value_or(1e300);
      case kValLoss:
        return row.summary.last_val_loss.value_or(1e300);
      case kFlops:
        return run.flops;
      default:
        return data(index, Qt::DisplayRole);
    }
  }
  if (role == Qt::ForegroundRole && index.column() == kStatus) return statusColor(run.status);
  if (role == Qt::TextAlignmentRole) {
    switch (index.column()) {
      case kId:
      case kProgress:
      case kTokensPerSecond:
      case kEta:
      case kTrainLoss:
      case kValLoss:
      case kFlops:
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
      default:
        return QVariant(Qt::AlignLeft | Qt::AlignVCenter);
    }
  }
  if (role == Qt::ToolTipRole && !run.error.empty()) return QString::fromStdString(run.error);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kId:
      return static_cast<qlonglong>(run.id);
    case kLadder:
      return QString::fromStdString(row.summary.ladder_name);
    case kRun:
      return QString::fromStdString(run.name);
    case kArm:
      return QString::fromStdString(run.arm);
    case kStatus:
      return QString::fromLatin1(toString(run.status));
    case kDevice:
      return QString::fromStdString(run.device.empty() ? run.job_id : run.device);
    case kProgress:
      return std::isfinite(row.progress) ? QStringLiteral("%1%").arg(row.progress * 100, 0, 'f', 0)
                                         : QString();
    case kTokensPerSecond:
      return std::isfinite(row.tokens_per_s) ? QString::number(row.tokens_per_s, 'f', 0)
                                             : QString();
    case kEta:
      return durationText(row.eta_s);
    case kTrainLoss:
      return lossText(row.summary.last_train_loss);
    case kValLoss:
      return lossText(row.summary.last_val_loss);
    case kFlops:
      return run.flops > 0 ? QString::number(run.flops, 'g', 3) : QString();
  }
  return {};
}

QVariant RunTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* kNames[] = {"ID",       "Ladder",   "Run", "Arm",        "Status",   "Device",
                                 "Progress", "Tokens/s", "ETA", "Train loss", "Val loss", "FLOPs"};
  return section >= 0 && section < kColumnCount ? QString::fromLatin1(kNames[section]) : QVariant();
}

}  // namespace deepladder::ui

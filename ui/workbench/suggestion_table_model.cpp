// Suggestions as a table model (see suggestion_table_model.h).
#include "ui/workbench/suggestion_table_model.h"

#include <cmath>

#include "ui/plots/plot_style.h"
#undef slots  // core/ladder/ladder_spec.h (through suggest.h) has a field of that name
#include "fitting/suggest.h"

namespace deepladder::ui {
namespace {

QString interval(double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) return QStringLiteral("-");
  return QStringLiteral("[%1, %2]").arg(plots::compactNumber(lo), plots::compactNumber(hi));
}

}  // namespace

void SuggestionTableModel::setResult(std::shared_ptr<const fitting::SuggestResult> result) {
  beginResetModel();
  result_ = std::move(result);
  endResetModel();
}

const fitting::Suggestion* SuggestionTableModel::suggestionAt(int row) const {
  if (!result_ || row < 0 || row >= static_cast<int>(result_->ranked.size())) return nullptr;
  return &result_->ranked[row];
}

int SuggestionTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() || !result_ ? 0 : static_cast<int>(result_->ranked.size());
}

int SuggestionTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : kColumnCount;
}

QVariant SuggestionTableModel::data(const QModelIndex& index, int role) const {
  const fitting::Suggestion* s = suggestionAt(index.row());
  if (!s) return {};
  if (role == Qt::ToolTipRole) return QString::fromStdString(s->why);
  if (role == Qt::TextAlignmentRole && index.column() != kRun && index.column() != kKind &&
      index.column() != kWhy)
    return int(Qt::AlignRight | Qt::AlignVCenter);
  if (role != Qt::DisplayRole) return {};
  switch (index.column()) {
    case kRank:
      return index.row() + 1;
    case kRun:
      return QString::fromStdString(s->candidate.run.name);
    case kKind:
      return QString::fromUtf8(ladder::candidateKindName(s->candidate.kind));
    case kCost:
      return plots::compactNumber(s->cost_flops);
    case kHours:
      return std::isfinite(s->hours) ? plots::compactNumber(s->hours, 2) : QStringLiteral("-");
    case kNow:
      return interval(s->before_lo, s->before_hi);
    case kAfter:
      return interval(s->after_lo, s->after_hi);
    case kScore:
      return s->needed ? QStringLiteral("needed") : plots::compactNumber(s->score, 2);
    case kWhy:
      return QString::fromStdString(s->why);
  }
  return {};
}

QVariant SuggestionTableModel::headerData(int section, Qt::Orientation orientation,
                                          int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  switch (section) {
    case kRank:
      return QStringLiteral("#");
    case kRun:
      return tr("run");
    case kKind:
      return tr("kind");
    case kCost:
      return tr("FLOPs");
    case kHours:
      return tr("hours");
    case kNow:
      return tr("interval now");
    case kAfter:
      return tr("expected after");
    case kScore:
      return tr("narrowing / FLOP");
    case kWhy:
      return tr("why");
  }
  return {};
}

}  // namespace deepladder::ui

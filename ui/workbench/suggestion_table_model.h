// The suggestions of fitting/suggest.h as a table model: rank, run, kind, cost (FLOPs, hours on
// the ladder's resources), the target interval now and expected after, narrowing per FLOP, why.
// Holds no logic: it shows a SuggestResult as it is.
#pragma once

#include <QAbstractTableModel>
#include <memory>

// Not included here: fitting/suggest.h brings core/ladder/ladder_spec.h, whose Resources::slots
// Qt's `slots` keyword would swallow in a header moc sees.
namespace deepladder::fitting {
struct SuggestResult;
struct Suggestion;
}  // namespace deepladder::fitting

namespace deepladder::ui {

class SuggestionTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { kRank, kRun, kKind, kCost, kHours, kNow, kAfter, kScore, kWhy, kColumnCount };

  explicit SuggestionTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setResult(std::shared_ptr<const fitting::SuggestResult> result);
  // The suggestions shown (null before the first).
  const fitting::SuggestResult* result() const { return result_.get(); }
  const fitting::Suggestion* suggestionAt(int row) const;

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::shared_ptr<const fitting::SuggestResult> result_;
};

}  // namespace deepladder::ui

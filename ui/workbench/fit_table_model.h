// A fit's table (fitting/table_grid.h: the rows `deepladder fit` prints as Markdown) as a table
// model: one row per arm, the printed text as DisplayRole, each cell's note (the arm's
// diagnostics, what an interval is) as its tooltip, and the number a cell leads with as kSortRole
// so a QSortFilterProxyModel sorts 0.9 before 10. Holds no logic: it shows the grid as it is.
#pragma once

#include <QAbstractTableModel>
#include <QList>
#include <memory>

#include "fitting/table_grid.h"

namespace deepladder::ui {

class FitTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  // The sort key of a cell: its number, or its text when it has none.
  static constexpr int kSortRole = Qt::UserRole + 1;

  explicit FitTableModel(QObject* parent = nullptr) : QAbstractTableModel(parent) {}
  void setGrid(fitting::TableGrid grid);
  const fitting::TableGrid& grid() const { return grid_; }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

  // The header and `rows` (this model's rows, in the order given) as TSV or as a Markdown table.
  QString rowsAsTsv(const QList<int>& rows) const;
  QString rowsAsMarkdown(const QList<int>& rows) const;

 private:
  fitting::TableGrid subset(const QList<int>& rows) const;
  fitting::TableGrid grid_;
};

}  // namespace deepladder::ui

// A fit's table as a table model (see fit_table_model.h).
#include "ui/workbench/fit_table_model.h"

#include <cmath>

namespace deepladder::ui {

void FitTableModel::setGrid(fitting::TableGrid grid) {
  beginResetModel();
  grid_ = std::move(grid);
  endResetModel();
}

int FitTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(grid_.rows.size());
}

int FitTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(grid_.header.size());
}

QVariant FitTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= columnCount()) return {};
  const auto& row = grid_.rows[static_cast<size_t>(index.row())];
  if (static_cast<size_t>(index.column()) >= row.size()) return {};
  const fitting::TableCell& cell = row[static_cast<size_t>(index.column())];
  switch (role) {
    case Qt::DisplayRole:
      return QString::fromStdString(cell.text);
    case Qt::ToolTipRole:
      return cell.note.empty() ? QVariant() : QVariant(QString::fromStdString(cell.note));
    case kSortRole:
      return std::isfinite(cell.value) ? QVariant(cell.value)
                                       : QVariant(QString::fromStdString(cell.text));
    case Qt::TextAlignmentRole:
      return std::isfinite(cell.value) ? QVariant(int(Qt::AlignRight | Qt::AlignVCenter))
                                       : QVariant(int(Qt::AlignLeft | Qt::AlignVCenter));
    default:
      return {};
  }
}

QVariant FitTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole || section < 0 ||
      section >= columnCount())
    return QAbstractTableModel::headerData(section, orientation, role);
  return QString::fromStdString(grid_.header[static_cast<size_t>(section)]);
}

fitting::TableGrid FitTableModel::subset(const QList<int>& rows) const {
  fitting::TableGrid out;
  out.header = grid_.header;
  for (int r : rows)
    if (r >= 0 && r < rowCount()) out.rows.push_back(grid_.rows[static_cast<size_t>(r)]);
  return out;
}

QString FitTableModel::rowsAsTsv(const QList<int>& rows) const {
  return QString::fromStdString(fitting::tsvTable(subset(rows)));
}

QString FitTableModel::rowsAsMarkdown(const QList<int>& rows) const {
  return QString::fromStdString(fitting::markdownTable(subset(rows)));
}

}  // namespace deepladder::ui

// A sortable, copyable fit table (see fit_table_view.h).
#include "ui/workbench/fit_table_view.h"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QContextMenuEvent>
#include <QHeaderView>
#include <QKeyEvent>
#include <QMenu>
#include <QSortFilterProxyModel>
#include <algorithm>

#include "ui/workbench/fit_table_model.h"

namespace deepladder::ui {

FitTableView::FitTableView(QWidget* parent) : QTableView(parent) {
  model_ = new FitTableModel(this);
  proxy_ = new QSortFilterProxyModel(this);
  proxy_->setSourceModel(model_);
  proxy_->setSortRole(FitTableModel::kSortRole);
  setModel(proxy_);
  setSortingEnabled(true);
  sortByColumn(-1, Qt::AscendingOrder);  // the fit's order (baseline first) until a header click
  setSelectionBehavior(QAbstractItemView::SelectRows);
  setSelectionMode(QAbstractItemView::ExtendedSelection);
  setWordWrap(false);
  setAlternatingRowColors(true);
  verticalHeader()->hide();
  horizontalHeader()->setStretchLastSection(true);
  connect(model_, &QAbstractItemModel::modelReset, this, [this] { resizeColumnsToContents(); });
  auto* copy_tsv = new QAction(tr("Copy as TSV"), this);
  copy_tsv->setShortcut(QKeySequence::Copy);
  copy_tsv->setShortcutContext(Qt::WidgetShortcut);
  connect(copy_tsv, &QAction::triggered, this, [this] { copy(CopyFormat::kTsv); });
  auto* copy_md = new QAction(tr("Copy as Markdown"), this);
  connect(copy_md, &QAction::triggered, this, [this] { copy(CopyFormat::kMarkdown); });
  addAction(copy_tsv);
  addAction(copy_md);
  setToolTip(
      tr("Click a header to sort; Ctrl+C copies the selected rows (all when none is "
         "selected) as TSV; right-click for Markdown"));
}

QString FitTableView::copyText(CopyFormat format) const {
  QList<int> proxy_rows;
  for (const QModelIndex& index : selectionModel()->selectedRows()) proxy_rows << index.row();
  if (proxy_rows.isEmpty())
    for (int r = 0; r < proxy_->rowCount(); ++r) proxy_rows << r;
  std::sort(proxy_rows.begin(), proxy_rows.end());  // the order on screen
  QList<int> rows;
  for (int r : proxy_rows) rows << proxy_->mapToSource(proxy_->index(r, 0)).row();
  return format == CopyFormat::kTsv ? model_->rowsAsTsv(rows) : model_->rowsAsMarkdown(rows);
}

void FitTableView::copy(CopyFormat format) const {
  QApplication::clipboard()->setText(copyText(format));
}

void FitTableView::keyPressEvent(QKeyEvent* event) {
  if (event->matches(QKeySequence::Copy)) {
    copy(CopyFormat::kTsv);
    event->accept();
    return;
  }
  QTableView::keyPressEvent(event);
}

void FitTableView::contextMenuEvent(QContextMenuEvent* event) {
  QMenu menu(this);
  menu.addActions(actions());
  menu.exec(event->globalPos());
}

}  // namespace deepladder::ui

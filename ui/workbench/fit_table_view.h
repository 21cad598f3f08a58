// A fit table on screen: a sortable QTableView (through a QSortFilterProxyModel on the cells'
// numbers) over a FitTableModel, whose selected rows (every row when none is selected) copy to
// the clipboard as TSV (Ctrl+C, or the context menu) or as a Markdown table (context menu), in the
// order the view shows them.
#pragma once

#include <QTableView>

class QSortFilterProxyModel;

namespace deepladder::ui {

class FitTableModel;

class FitTableView : public QTableView {
  Q_OBJECT
 public:
  enum class CopyFormat { kTsv, kMarkdown };

  explicit FitTableView(QWidget* parent = nullptr);
  FitTableModel* fitModel() const { return model_; }
  QSortFilterProxyModel* proxy() const { return proxy_; }
  // What a copy would put on the clipboard.
  QString copyText(CopyFormat format) const;
  // Puts it there.
  void copy(CopyFormat format) const;

 protected:
  void contextMenuEvent(QContextMenuEvent* event) override;
  // Ctrl+C copies the rows as TSV (QAbstractItemView's own copies only the current cell).
  void keyPressEvent(QKeyEvent* event) override;

 private:
  FitTableModel* model_;
  QSortFilterProxyModel* proxy_;
};

}  // namespace deepladder::ui

// The GUI thread's query guard (see gui_query_guard.h).
#include "ui/workbench/gui_query_guard.h"

#include <QCoreApplication>
#include <QThread>
#include <QtGlobal>

#include "storage/query_thread_guard.h"

namespace deepladder::ui {
namespace {

thread_local int allowed_depth = 0;

}  // namespace

AllowGuiThreadQueries::AllowGuiThreadQueries() {
  ++allowed_depth;
}

AllowGuiThreadQueries::~AllowGuiThreadQueries() {
  --allowed_depth;
}

bool queryWouldStallGui() {
  const QCoreApplication* app = QCoreApplication::instance();
  return app && allowed_depth == 0 && QThread::currentThread() == app->thread();
}

void installGuiThreadQueryGuard() {
#ifndef NDEBUG
  storage::setQueryThreadGuard([] {
    if (queryWouldStallGui())
      qFatal("a SQLite statement ran on the GUI thread: load through runInBackground instead");
  });
#endif
}

}  // namespace deepladder::ui

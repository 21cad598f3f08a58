// Long work off the GUI thread: runInBackground(receiver, work, done) runs `work` on Qt's
// global thread pool and hands its result to `done` on the receiver's thread through a queued
// call, so the window never freezes. An exception in `work` (a UserError from storage or
// fitting) arrives as its message in `failed`. If the receiver is gone, nothing is delivered.
#pragma once

#include <QObject>
#include <QPointer>
#include <QRunnable>
#include <QString>
#include <QThreadPool>
#include <exception>
#include <functional>
#include <memory>
#include <optional>

namespace deepladder::ui {

template <typename Result>
void runInBackground(QObject* receiver, std::function<Result()> work,
                     std::function<void(Result)> done, std::function<void(QString)> failed) {
  QPointer<QObject> guard(receiver);
  QThreadPool::globalInstance()->start(QRunnable::create([guard, work, done, failed] {
    auto result = std::make_shared<std::optional<Result>>();
    QString error;
    try {
      *result = work();
    } catch (const std::exception& e) {
      error = QString::fromUtf8(e.what());
    }
    if (!guard) return;
    QMetaObject::invokeMethod(
        guard.data(),
        [guard, result, error, done, failed] {
          if (!guard) return;
          if (result->has_value())
            done(std::move(**result));
          else if (failed)
            failed(error);
        },
        Qt::QueuedConnection);
  }));
}

}  // namespace deepladder::ui

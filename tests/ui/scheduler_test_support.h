// What the tests of the window's own scheduler share: the offscreen application, a tiny ladder of
// one-slot runs on the built-in corpus, an empty database as `deepladder` would create it, and
// waiting for a condition while Qt processes events.
#pragma once

#include <QString>
#include <chrono>
#include <functional>

class QTemporaryDir;

namespace deepladder::ui::testing {

// Starts the offscreen QApplication (once) under the tests' organization name, so that their
// settings stay apart from a user's.
void startTestApplication();

// Three one-slot runs named `name` of 500 steps each (d_model 32, 1 to 3 layers, largest first)
// on the built-in corpus: seconds each on one core with the real worker.
QString tinyLadder(const QString& name);

// Creates an empty database `file` in `dir`, as `deepladder` would; returns its path.
QString emptyDatabase(const QTemporaryDir& dir, const QString& file);

// Processes events until `done()` or `timeout` has passed; returns done().
bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout);

}  // namespace deepladder::ui::testing

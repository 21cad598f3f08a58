// What the tests of the window's own scheduler share (see scheduler_test_support.h).
#include "tests/ui/scheduler_test_support.h"

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QTemporaryDir>
#include <QTest>

#include "storage/database.h"
#include "ui/plots/offscreen_app.h"

namespace deepladder::ui::testing {

void startTestApplication() {
  plots::ensureGuiApplication();
  QCoreApplication::setOrganizationName("deepladder-test");
}

QString tinyLadder(const QString& name) {
  return QString(R"([ladder]
name = "%1"
seeds = [1]

[model]
seq_len = 32
n_head = 2

[data]
kind = "builtin"

[train]
batch_size = 4
warmup_steps = 2
eval_every = 20
eval_batches = 2
checkpoint_every = 10
threads = 1

[sizes]
list = [ { name = "a", d_model = 32, n_layer = 1 },
         { name = "b", d_model = 32, n_layer = 2 },
         { name = "c", d_model = 32, n_layer = 3 } ]

[budget]
rule = "tokens"
tokens = 64000

[arms.vanilla]

[resources]
backend = "local"
devices = "cpu"
slots = 1
retries = 1
)")
      .arg(name);
}

QString emptyDatabase(const QTemporaryDir& dir, const QString& file) {
  const QString path = dir.filePath(file);
  storage::Database::open(path.toStdString());
  return path;
}

bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout) {
  QElapsedTimer t;
  t.start();
  while (!done() && t.elapsed() < timeout.count()) QTest::qWait(20);
  return done();
}

}  // namespace deepladder::ui::testing

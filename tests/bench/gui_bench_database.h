// The workbench benchmarks' database: the offscreen application and the workbench fixture
// (tests/ui/fixture_database.h) with RUNS extra runs x POINTS train/loss points each (the
// command's first two arguments; default 1,000 x 10,000: 11 million metric rows with val/loss),
// generated in a temporary folder that lives as long as the object.
#pragma once

#include <QString>
#include <QTemporaryDir>
#include <string>

namespace deepladder::bench {

class GuiBenchDatabase {
 public:
  // Reads [runs] [points] from argv[1], argv[2], starts the offscreen application, generates
  // the database and prints what was generated and how long it took.
  GuiBenchDatabase(int argc, char** argv);
  const QString& path() const { return path_; }
  std::string pathString() const { return path_.toStdString(); }
  int runs() const { return runs_; }

 private:
  QTemporaryDir dir_;
  QString path_;
  int runs_ = 0;
};

}  // namespace deepladder::bench

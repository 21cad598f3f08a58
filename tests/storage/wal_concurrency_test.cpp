// WAL: readers on their own connections (busy_timeout 0, so any lock would fail at once) keep
// reading the last committed state while another connection holds a long write transaction;
// none of them ever sees "database is locked".
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "storage/database.h"
#include "temp_dir.h"

namespace deepladder::storage {
namespace {

using testing::TempDir;

std::vector<MetricRow> lossRows(int64_t run, int64_t first_step, int64_t count) {
  std::vector<MetricRow> rows;
  for (int64_t s = first_step; s < first_step + count; ++s)
    rows.push_back({run, "train/loss", s, s * 512, s * 1e9, 10.0 / (1.0 + s), 0.01 * s});
  return rows;
}

TEST(WalConcurrency, ReadersNeverBlockDuringALongWriteTransaction) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  int64_t run = 0;
  {
    auto db = Database::open(path);
    run = db->insertRun(RunRecord{});
    db->writeMetrics(lossRows(run, 0, 1000));
  }

  std::atomic<bool> writing{false}, finished{false};
  std::string writer_error;
  std::thread writer([&] {
    try {
      auto db = Database::open(path);
      Transaction transaction(*db);
      for (int batch = 0; batch < 40; ++batch) {
        db->writeMetrics(lossRows(run, 1000 + batch * 500, 500));
        writing = true;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
      }
      transaction.commit();
    } catch (const std::exception& e) {
      writer_error = e.what();
    }
    writing = true;
    finished = true;
  });

  while (!writing) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  int reads = 0, opens = 0;
  std::string reader_error;
  try {
    auto reader = Database::open(path, /*read_only=*/true);
    reader->execute("PRAGMA busy_timeout = 0");
    while (!finished) {
      const auto curve = reader->readMetric(run, "train/loss");
      const auto runs = reader->listRuns();
      if (!finished) {
        // Only the committed points are visible while the writer's transaction is open.
        EXPECT_EQ(curve.size(), 1000u);
      }
      ASSERT_EQ(runs.size(), 1u);
      ++reads;
      if (reads % 10 == 0) {
        // Opening a connection (read-write too) during the write must not block either.
        auto other = Database::open(path);
        other->execute("PRAGMA busy_timeout = 0");
        other->metricKeys(run);
        ++opens;
      }
    }
  } catch (const std::exception& e) {
    reader_error = e.what();
  }
  writer.join();
  EXPECT_EQ(writer_error, "");
  EXPECT_EQ(reader_error, "");
  EXPECT_GT(reads, 5);
  EXPECT_GT(opens, 0);
  auto after = Database::open(path, /*read_only=*/true);
  EXPECT_EQ(after->readMetric(run, "train/loss").size(), 1000u + 40u * 500u);
}

TEST(WalConcurrency, SecondWriterWaitsForTheFirstInsteadOfFailing) {
  TempDir dir;
  const auto path = dir.file("runs.db");
  auto first = Database::open(path);
  const int64_t run = first->insertRun(RunRecord{});
  std::thread holder([&] {
    Transaction transaction(*first);
    first->writeMetrics(lossRows(run, 0, 100));
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    transaction.commit();
  });
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  auto second = Database::open(path);
  EXPECT_NO_THROW(
      second->setRunStatus(run, RunStatus::kRunning));  // waits (busy_timeout), then writes
  holder.join();
  EXPECT_EQ(second->run(run)->status, RunStatus::kRunning);
  EXPECT_EQ(second->readMetric(run, "train/loss").size(), 100u);
}

}  // namespace
}  // namespace deepladder::storage

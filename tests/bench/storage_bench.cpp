// Storage benchmark, measured side by side in one run:
//  (1) C++ batched metric upserts through Database::writeMetrics into a fresh file database (which
//      maps key names to metric_keys ids, checks the batch's runs exist and also keeps the metric
//      pyramid up to date),
//  (2) the same rows through Python's sqlite3 executemany (storage_bench_python.py) into another
//      fresh file with the same schema and settings (key names mapped to ids with a dict; no
//      pyramid), and their ratio (target: C++ >= 2x),
//  (3) reading one run's full 100,000-point loss curve on its own connection while a writer
//      thread keeps inserting (target: < 20 ms), and without the writer against the same read
//      through Python's sqlite3.
// Each target is a goal (bench_goals.h, exit 1 on a miss); the curve read returning all 100,000
// points is a correctness goal.
// Usage: storage_bench [--rows N] [--batch B] [--rounds R] [--python /usr/bin/python3] [--smoke]
// (--smoke: 50,000 rows, one round, 5 reads: seconds; timing goals not judged)
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "storage/database.h"
#include "tests/bench/bench_goals.h"

namespace fs = std::filesystem;
using deepladder::storage::Database;
using deepladder::storage::MetricRow;
using deepladder::storage::RunRecord;

namespace {

// ---- the rows both sides write (same formulas as storage_bench_python.py) -------------------
const char* const kKeys[] = {"train/loss", "lr", "grad_norm", "tokens_per_s"};
constexpr int64_t kKeyCount = 4;
constexpr int64_t kStepsPerRun = 100000;

void batchRows(int64_t first, int64_t count, std::vector<MetricRow>& rows) {
  rows.clear();
  for (int64_t i = first; i < first + count; ++i) {
    const int64_t run = 1 + i / (kStepsPerRun * kKeyCount);
    const int64_t k = i % kKeyCount;
    const int64_t step = (i / kKeyCount) % kStepsPerRun;
    rows.push_back(MetricRow{run, kKeys[k], step, step * 512, step * 512 * 6.0e6,
                             1.0 / (1.0 + step) + 0.001 * k, 0.01 * step});
  }
}

double seconds(std::chrono::steady_clock::duration d) {
  return std::chrono::duration<double>(d).count();
}

// This process's CPU seconds: robust when other jobs share the cores (wall time is not).
double processCpuSeconds() {
  timespec t;
  ::clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double threadCpuSeconds() {
  timespec t;
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return t.tv_sec + 1e-9 * t.tv_nsec;
}

double median(const std::vector<double>& sorted) {
  return sorted[sorted.size() / 2];
}

// Rows per second of wall time and of CPU time.
struct Rate {
  double wall = 0, cpu = 0;
};

void removeDatabase(const std::string& path) {
  for (const char* suffix : {"", "-wal", "-shm"}) fs::remove(path + suffix);
}

// A fresh database with the runs the rows refer to (foreign keys are on for both sides).
void createDatabase(const std::string& path, int64_t rows) {
  removeDatabase(path);
  auto db = Database::open(path);
  const int64_t runs = 1 + rows / (kStepsPerRun * kKeyCount);
  for (int64_t r = 0; r < runs; ++r) db->insertRun(RunRecord{});
}

Rate cppRowsPerSecond(const std::string& path, int64_t n_rows, int64_t batch) {
  createDatabase(path, n_rows);
  auto db = Database::open(path);
  std::vector<MetricRow> rows;
  rows.reserve(batch);
  double timed = 0, timed_cpu = 0;
  for (int64_t first = 0; first < n_rows; first += batch) {
    batchRows(first, std::min(batch, n_rows - first), rows);
    const auto t0 = std::chrono::steady_clock::now();
    const double c0 = processCpuSeconds();
    db->writeMetrics(rows);
    timed += seconds(std::chrono::steady_clock::now() - t0);
    timed_cpu += processCpuSeconds() - c0;
  }
  if (db->queryInt("SELECT count(*) FROM metrics") != n_rows) {
    std::cerr << "C++ side wrote the wrong number of rows\n";
    std::exit(1);
  }
  // Closing checkpoints what the write-ahead log still holds into the database file: part of
  // the ingestion's cost, as on the Python side.
  const auto t0 = std::chrono::steady_clock::now();
  const double c0 = processCpuSeconds();
  db.reset();
  timed += seconds(std::chrono::steady_clock::now() - t0);
  timed_cpu += processCpuSeconds() - c0;
  return {n_rows / timed, n_rows / timed_cpu};
}

// Runs the Python baseline with `arguments` and returns what it printed (exits on failure).
std::string runPython(const std::string& python, const std::string& script,
                      const std::string& arguments) {
  const std::string command = python + " " + script + " " + arguments;
  FILE* pipe = ::popen(command.c_str(), "r");
  if (!pipe) {
    std::cerr << "cannot run: " << command << "\n";
    std::exit(1);
  }
  std::string output;
  char buffer[512];
  while (std::fgets(buffer, sizeof buffer, pipe)) output += buffer;
  if (::pclose(pipe) != 0) {
    std::cerr << "Python baseline failed: " << command << "\n" << output;
    std::exit(1);
  }
  return output;
}

Rate pythonRowsPerSecond(const std::string& python, const std::string& script,
                         const std::string& path, int64_t n_rows, int64_t batch) {
  createDatabase(path, n_rows);
  const std::string output =
      runPython(python, script, path + " " + std::to_string(n_rows) + " " + std::to_string(batch));
  const auto wall = output.find(" rows_per_s="), cpu = output.find(" cpu_rows_per_s=");
  if (wall == std::string::npos || cpu == std::string::npos) {
    std::cerr << "unexpected Python output: " << output;
    std::exit(1);
  }
  return {std::stod(output.substr(wall + 12)), std::stod(output.substr(cpu + 16))};
}

// (3) Full-curve reads on one connection while another keeps writing; before the writer starts,
// the same reads through Python's sqlite3 (fetchall of the same SELECT) for comparison.
void readWhileWriting(const std::string& path, int reads, const std::string& python,
                      const std::string& script, deepladder::bench::Goals& goals) {
  removeDatabase(path);
  int64_t read_run = 0, write_run = 0;
  {
    auto db = Database::open(path);
    read_run = db->insertRun(RunRecord{});
    write_run = db->insertRun(RunRecord{});
    std::vector<MetricRow> rows;
    for (int64_t s = 0; s < 100000; ++s)
      rows.push_back({read_run, "train/loss", s, s * 512, s * 3e9, 10.0 / (1.0 + s), 0.01 * s});
    db->writeMetrics(rows);
  }
  auto reader = Database::open(path, /*read_only=*/true);
  // Wall milliseconds per read, and the reading thread's CPU milliseconds (what the read costs
  // when the machine is not shared).
  auto timeReads = [&](std::vector<double>& ms, std::vector<double>& cpu_ms, size_t& points) {
    for (int i = 0; i < reads; ++i) {
      const auto t0 = std::chrono::steady_clock::now();
      const double c0 = threadCpuSeconds();
      points = reader->readMetric(read_run, "train/loss").size();
      cpu_ms.push_back(1000 * (threadCpuSeconds() - c0));
      ms.push_back(1000 * seconds(std::chrono::steady_clock::now() - t0));
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::sort(ms.begin(), ms.end());
    std::sort(cpu_ms.begin(), cpu_ms.end());
  };
  std::vector<double> idle_ms, idle_cpu_ms, ms, cpu_ms;
  size_t points = 0;
  timeReads(idle_ms, idle_cpu_ms, points);
  std::printf(
      "curve_read_ms_no_writer points=%zu reads=%d median=%.2f max=%.2f cpu_median=%.2f "
      "cpu_max=%.2f\n",
      points, reads, median(idle_ms), idle_ms.back(), median(idle_cpu_ms), idle_cpu_ms.back());
  const std::string python_read =
      runPython(python, script,
                "--read " + path + " " + std::to_string(read_run) + " " + std::to_string(reads));
  const auto python_ms = python_read.find(" median=");
  if (python_ms == std::string::npos) {
    std::cerr << "unexpected Python output: " << python_read;
    std::exit(1);
  }
  std::printf("curve_read_ms_no_writer python %s", python_read.c_str());
  std::printf("curve_read_ratio python/cpp=%.2f (medians, no writer)\n",
              std::stod(python_read.substr(python_ms + 8)) / median(idle_ms));

  std::atomic<bool> stop{false};
  std::atomic<int64_t> written{0};
  std::thread writer([&] {
    auto db = Database::open(path);
    std::vector<MetricRow> rows;
    for (int64_t first = 0; !stop; first += 10000) {
      rows.clear();
      for (int64_t i = first; i < first + 10000; ++i)
        rows.push_back({write_run, kKeys[i % kKeyCount], i / kKeyCount, i, 1.0 * i, 0.5, 0.1});
      db->writeMetrics(rows);
      written += 10000;
    }
  });
  while (written == 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  timeReads(ms, cpu_ms, points);
  stop = true;
  writer.join();
  std::printf(
      "curve_read_ms points=%zu reads=%d median=%.2f p90=%.2f max=%.2f cpu_median=%.2f "
      "cpu_max=%.2f writer_rows_during=%lld\n",
      points, reads, median(ms), ms[(ms.size() * 9) / 10], ms.back(), median(cpu_ms), cpu_ms.back(),
      static_cast<long long>(written.load()));
  goals.holds("a curve read returns all 100000 points (" + std::to_string(points) + ")",
              points == 100000);
  goals.below("100,000-point curve read while a writer inserts, median", median(ms), 20, "ms");
  removeDatabase(path);
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals goals(deepladder::bench::takeSmokeFlag(argc, argv));
  int64_t n_rows = goals.smoke() ? 50000 : 2000000, batch = 10000;
  int rounds = goals.smoke() ? 1 : 2;
  std::string python = "/usr/bin/python3";
  std::string script = std::string(DEEPLADDER_SOURCE_DIR) + "/tests/bench/storage_bench_python.py";
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--rows")
      n_rows = std::stoll(argv[i + 1]);
    else if (flag == "--batch")
      batch = std::stoll(argv[i + 1]);
    else if (flag == "--rounds")
      rounds = std::stoi(argv[i + 1]);
    else if (flag == "--python")
      python = argv[i + 1];
    else {
      std::cerr << "usage: storage_bench [--rows N] [--batch B] [--rounds R] [--python PATH]\n";
      return 2;
    }
  }
  char dir_template[] = "/tmp/deepladder-storage-bench-XXXXXX";
  const std::string dir = ::mkdtemp(dir_template);
  const std::string cpp_db = dir + "/cpp.db", python_db = dir + "/python.db";

  std::printf("storage_bench rows=%lld batch=%lld rounds=%d (rows per transaction = batch)\n",
              static_cast<long long>(n_rows), static_cast<long long>(batch), rounds);
  std::printf(
      "cpp: Database::writeMetrics (key names -> metric_keys ids, runs checked, metric rows, "
      "pyramid buckets); "
      "python: sqlite3 executemany (key names -> ids with a dict, metric rows; no pyramid)\n");
  // Alternate the two sides so background load on a shared machine hits both alike.
  // Sustained rate over all rounds = all rows / all time, per side.
  Rate cpp_time, python_time;  // seconds summed over rounds
  for (int round = 1; round <= rounds; ++round) {
    const Rate cpp = cppRowsPerSecond(cpp_db, n_rows, batch);
    const Rate py = pythonRowsPerSecond(python, script, python_db, n_rows, batch);
    std::printf(
        "round %d ingest_rows_per_s cpp=%.0f python=%.0f ratio=%.2f | per_cpu_s cpp=%.0f "
        "python=%.0f ratio=%.2f\n",
        round, cpp.wall, py.wall, cpp.wall / py.wall, cpp.cpu, py.cpu, cpp.cpu / py.cpu);
    cpp_time.wall += n_rows / cpp.wall;
    cpp_time.cpu += n_rows / cpp.cpu;
    python_time.wall += n_rows / py.wall;
    python_time.cpu += n_rows / py.cpu;
  }
  const double rows = static_cast<double>(rounds) * n_rows;
  std::printf("ingest_rows_per_s cpp=%.0f python=%.0f ratio=%.2f (wall time)\n",
              rows / cpp_time.wall, rows / python_time.wall, python_time.wall / cpp_time.wall);
  goals.atLeast("ingest rows/s, C++ / Python (wall)", python_time.wall / cpp_time.wall, 2.0, "x");
  std::printf(
      "ingest_rows_per_cpu_s cpp=%.0f python=%.0f ratio=%.2f (CPU time of each process; "
      "robust to other load)\n",
      rows / cpp_time.cpu, rows / python_time.cpu, python_time.cpu / cpp_time.cpu);
  removeDatabase(cpp_db);
  removeDatabase(python_db);
  readWhileWriting(dir + "/read.db", goals.smoke() ? 5 : 25, python, script, goals);
  fs::remove_all(dir);
  return goals.exitCode();
}

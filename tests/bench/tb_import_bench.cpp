// TensorBoard import benchmark, measured side by side in one run on one log directory:
//  (1) `deepladder import LOGDIR` (the built CLI, a child process: read every event file, check
//      both CRC-32Cs of every record, decode the Events, store the runs and every row with the
//      metric pyramid, one transaction), against
//  (2) a Python loop with the tests' independent reader writing the same rows with python3's
//      sqlite3 (tb_import_bench_python.py) into an empty database of the same schema,
// and their ratio (goal: C++ >= 5x). The log directory is written first, as trainers write it
// (one Event per scalar; PyTorch's SummaryWriter and TF2 tensors): RUNS runs x STEPS steps of
// "loss" and "learning_rate" every step and "eval/loss" every 100 steps, a config.json per run.
// Wall and CPU seconds (the children's own, robust when others share the cores) are printed.
// Usage: tb_import_bench [--runs 100] [--steps 10000] [--python /usr/bin/python3] [--keep]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/tensorboard/tb_event.h"
#include "core/tensorboard/tfrecord.h"
#include "storage/database.h"
#include "tests/bench/bench_goals.h"

namespace fs = std::filesystem;
using namespace deepladder::tensorboard;

namespace {

void writeLogdir(const fs::path& dir, int runs, int steps) {
  for (int r = 0; r < runs; ++r) {
    const std::string name = "run" + std::to_string(r);
    fs::create_directories(dir / name);
    const double params = 1e7 * (1 + r % 10), tokens = 20 * params, flops = 6 * params * tokens;
    const double final_loss = 2.0 + 3.0 * std::pow(flops / 1e18, -0.1);
    const double wall0 = 1.7e9 + 1e5 * r;
    std::string out;
    appendTfRecord(out, encodeFileVersionEvent(wall0));
    EventEncoder encoder;
    for (int step = 0; step <= steps; ++step) {
      const double wall = wall0 + 0.25 * step, progress = double(step) / steps;
      const double loss = final_loss + 2.0 * (1 - progress) + 0.01 * std::sin(step);
      appendTfRecord(out, encoder.scalar(wall, step, "loss", loss));
      appendTfRecord(out, encoder.scalar(wall, step, "learning_rate", 3e-4 * (1 - progress)));
      if (step % 100 == 0)
        appendTfRecord(out, encoder.scalar(wall, step, "eval/loss", final_loss + (1 - progress)));
    }
    std::ofstream(dir / name / ("events.out.tfevents." + std::to_string(int64_t(wall0)) + ".bench"),
                  std::ios::binary)
        << out;
    std::ofstream(dir / name / "config.json")
        << "{\"arm\": \"vanilla\", \"size\": \"s" << r << "\", \"params\": " << params
        << ", \"tokens\": " << tokens << ", \"flops\": " << flops << "}\n";
  }
}

struct Timing {
  double wall = 0, cpu = 0;
  std::string out;
};

double childrenCpuSeconds() {
  rusage u;
  getrusage(RUSAGE_CHILDREN, &u);
  return u.ru_utime.tv_sec + u.ru_stime.tv_sec + 1e-6 * (u.ru_utime.tv_usec + u.ru_stime.tv_usec);
}

// Runs argv to its end; its stdout, wall seconds and CPU seconds.
Timing timed(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) std::exit(1);
  const double cpu0 = childrenCpuSeconds();
  const auto t0 = std::chrono::steady_clock::now();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(pipe_fds[1], 1);
    close(pipe_fds[0]);
    execv(args[0], args.data());
    _exit(127);
  }
  close(pipe_fds[1]);
  Timing t;
  char buffer[4096];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;) t.out.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  t.cpu = childrenCpuSeconds() - cpu0;
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "%s failed (status %d):\n%s\n", argv[0].c_str(), status, t.out.c_str());
    std::exit(1);
  }
  return t;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = 100, steps = 10000;
  if (deepladder::bench::takeSmokeFlag(argc, argv)) runs = 3, steps = 200;  // make bench-smoke
  std::string python = "/usr/bin/python3";
  bool keep = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--runs" && i + 1 < argc)
      runs = std::atoi(argv[++i]);
    else if (a == "--steps" && i + 1 < argc)
      steps = std::atoi(argv[++i]);
    else if (a == "--python" && i + 1 < argc)
      python = argv[++i];
    else if (a == "--keep")
      keep = true;
    else {
      std::fprintf(stderr, "usage: tb_import_bench [--runs N] [--steps S] [--python P] [--keep]\n");
      return 2;
    }
  }
  char pattern[] = "/tmp/deepladder-tb-bench-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  const auto g0 = std::chrono::steady_clock::now();
  writeLogdir(dir / "logs", runs, steps);
  uintmax_t bytes = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir / "logs"))
    if (e.is_regular_file()) bytes += e.file_size();
  std::printf(
      "log directory: %d runs x %d steps (loss, learning_rate every step, eval/loss every "
      "100), %.1f MB of event files, written in %.1f s\n",
      runs, steps, bytes / 1e6,
      std::chrono::duration<double>(std::chrono::steady_clock::now() - g0).count());

  const Timing cpp = timed({std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder", "import",
                            (dir / "logs").string(), "--db", (dir / "cpp.db").string()});
  deepladder::storage::Database::open((dir / "py.db").string());  // the same empty schema
  const Timing py =
      timed({python, std::string(DEEPLADDER_SOURCE_DIR) + "/tests/bench/tb_import_bench_python.py",
             (dir / "logs").string(), (dir / "py.db").string()});
  const int64_t cpp_rows = deepladder::storage::Database::open((dir / "cpp.db").string())
                               ->queryInt("SELECT count(*) FROM metrics");
  const int64_t py_rows = deepladder::storage::Database::open((dir / "py.db").string())
                              ->queryInt("SELECT count(*) FROM metrics");
  std::printf("deepladder import: %lld rows in %.2f s wall, %.2f s CPU\n", (long long)cpp_rows,
              cpp.wall, cpp.cpu);
  std::printf("python loop:       %lld rows in %.2f s wall, %.2f s CPU (%s)\n", (long long)py_rows,
              py.wall, py.cpu, py.out.substr(0, py.out.find('\n')).c_str());
  std::printf("ratio (python / deepladder): %.1fx wall, %.1fx CPU (goal >= 5x)\n",
              py.wall / cpp.wall, py.cpu / cpp.cpu);
  if (cpp_rows != py_rows) {
    std::fprintf(stderr, "row counts differ: %lld vs %lld\n", (long long)cpp_rows,
                 (long long)py_rows);
    return 1;
  }
  if (!keep)
    fs::remove_all(dir);
  else
    std::printf("kept %s\n", dir.c_str());
  return 0;
}

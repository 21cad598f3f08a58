// The CLI tests' fixture: runs the built `deepladder` (and `deepladder-worker`) as a user would,
// in a fresh temporary directory, and collects exit status, stdout and stderr.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <thread>
#include <vector>

#include "core/worker_process.h"

namespace deepladder::cli_fixture {

namespace fs = std::filesystem;

// True when `pid` has ended (gone, or a zombie nobody reaped yet).
inline bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

inline bool endsWithin(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (!ended(pid) && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  return ended(pid);
}

struct CommandResult {
  int code = -1;
  bool signalled = false;
  std::string out;
  std::string err;
};

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-cli-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  void write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name)) << text;
  }

  CommandResult deepladder(std::vector<std::string> args) const {
    return runProgram("deepladder", std::move(args));
  }
  CommandResult worker(std::vector<std::string> args) const {
    return runProgram("deepladder-worker", std::move(args));
  }

  // Runs build/bin/<program> (or `program` itself when it is an absolute path) with `args`; a
  // death by signal N reads as code 128 + N.
  CommandResult runProgram(const std::string& program, std::vector<std::string> args) const {
    std::vector<std::string> argv = {
        program[0] == '/' ? program : std::string(DEEPLADDER_BINARY_DIR) + "/bin/" + program};
    argv.insert(argv.end(), args.begin(), args.end());
    ProcessSpec spec;
    spec.argv = argv;
    spec.stderr_path = path("stderr.txt");
    fs::remove(spec.stderr_path);
    WorkerProcess process(spec);
    CommandResult result;
    ProcessExit exit =
        process.runToEnd([&](const std::string& line) { result.out += line + "\n"; });
    result.code = exit.exited ? exit.code : 128 + exit.signal;
    result.signalled = !exit.exited;
    std::ifstream in(spec.stderr_path);
    result.err.assign(std::istreambuf_iterator<char>(in), {});
    return result;
  }

  // A small byte-level text corpus for tiny runs.
  void writeCorpus() const {
    std::string text;
    for (int i = 0; i < 400; ++i)
      text += "the quick brown fox jumps over the lazy dog " + std::to_string(i % 7) + "\n";
    write("train.txt", text);
    write("val.txt", text.substr(0, 4000));
  }

  fs::path dir_;
};

inline std::string tinyConfig(const std::string& data_dir, int steps) {
  return "name = \"cli-tiny\"\n[model]\nd_model = 32\nn_layer = 1\nn_head = 2\nseq_len = 32\n"
         "[data]\nkind = \"text\"\ntrain = \"" +
         data_dir + "/train.txt\"\nval = \"" + data_dir +
         "/val.txt\"\n[train]\nsteps = " + std::to_string(steps) +
         "\nwarmup_steps = 2\nbatch_size = 4\neval_every = 10\neval_batches = 2\n"
         "checkpoint_every = 10\nthreads = 1\n";
}

}  // namespace deepladder::cli_fixture

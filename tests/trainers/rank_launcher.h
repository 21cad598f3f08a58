// Shared by the multi-process trainer tests: starts this test binary again as P ranks (torchrun
// variables RANK/WORLD_SIZE/MASTER_ADDR/MASTER_PORT on 127.0.0.1 plus test variables) running one
// disabled child test, and waits for them with a deadline. posix_spawn, not fork: LibTorch's
// thread pools do not survive a fork.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "core/free_port.h"

extern char** environ;

namespace deepladder::trainers::testing {

struct RankProcess {
  pid_t pid = -1;
  int rank = 0;
  std::optional<int> exit_code;  // set once it exited normally
  std::optional<int> signal;     // set once it was killed
  std::chrono::steady_clock::time_point ended;
};

// Starts `world` copies of this binary running `child_test` (a gtest filter), each with the
// torchrun variables for its rank plus `extra` variables. Children's stdout goes to /dev/null.
inline std::vector<RankProcess> launchRanks(int world, const std::string& child_test,
                                            const std::map<std::string, std::string>& extra) {
  const int port = pickFreeLocalPort();
  std::vector<RankProcess> ranks;
  for (int rank = 0; rank < world; ++rank) {
    std::map<std::string, std::string> variables = extra;
    variables["RANK"] = std::to_string(rank);
    variables["LOCAL_RANK"] = std::to_string(rank);
    variables["WORLD_SIZE"] = std::to_string(world);
    variables["MASTER_ADDR"] = "127.0.0.1";
    variables["MASTER_PORT"] = std::to_string(port);
    std::vector<std::string> env_text;
    for (char** e = environ; *e; ++e) {
      const std::string entry = *e;
      if (!variables.count(entry.substr(0, entry.find('=')))) env_text.push_back(entry);
    }
    for (const auto& [name, value] : variables) env_text.push_back(name + "=" + value);
    std::vector<char*> envp;
    for (auto& e : env_text) envp.push_back(e.data());
    envp.push_back(nullptr);
    std::string filter = "--gtest_filter=" + child_test;
    std::string disabled = "--gtest_also_run_disabled_tests";
    std::string exe = "/proc/self/exe";
    std::vector<char*> argv{exe.data(), filter.data(), disabled.data(), nullptr};
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, "/dev/null", O_WRONLY, 0);
    RankProcess process;
    process.rank = rank;
    const int rc =
        posix_spawn(&process.pid, exe.c_str(), &actions, nullptr, argv.data(), envp.data());
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw std::runtime_error(std::string("posix_spawn: ") + std::strerror(rc));
    ranks.push_back(process);
  }
  return ranks;
}

// Polls until every rank ended or `deadline` passed; kills the stragglers (SIGKILL) at the end.
// Returns true when all ended by themselves.
inline bool waitRanks(std::vector<RankProcess>& ranks, std::chrono::seconds deadline) {
  const auto until = std::chrono::steady_clock::now() + deadline;
  bool all = false;
  while (!all) {
    all = true;
    for (auto& r : ranks) {
      if (r.exit_code || r.signal) continue;
      int status = 0;
      if (::waitpid(r.pid, &status, WNOHANG) == r.pid) {
        r.ended = std::chrono::steady_clock::now();
        if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
        if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
      } else {
        all = false;
      }
    }
    if (all) break;
    if (std::chrono::steady_clock::now() > until) {
      for (auto& r : ranks)
        if (!r.exit_code && !r.signal) {
          ::kill(r.pid, SIGKILL);
          int status = 0;
          ::waitpid(r.pid, &status, 0);
          r.signal = SIGKILL;
        }
      return false;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return true;
}

// The child's view: the scenario its parent asked for, or nullopt when run directly.
inline std::optional<std::string> childScenario(const char* variable) {
  const char* value = std::getenv(variable);
  if (!value || !*value) return std::nullopt;
  return std::string(value);
}

}  // namespace deepladder::trainers::testing

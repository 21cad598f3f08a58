// The local rank group (see rank_group.h).
#include "core/scheduler/rank_group.h"

#include <signal.h>

#include <cstdio>

namespace deepladder::scheduler {

namespace {

class RankGroupExecution : public Execution {
 public:
  RankGroupExecution(const std::vector<ProcessSpec>& specs, std::string where)
      : where_(std::move(where)) {
    for (const auto& spec : specs) {
      Rank rank;
      rank.process = std::make_unique<WorkerProcess>(spec);
      ranks_.push_back(std::move(rank));
    }
  }
  RankGroupExecution(std::unique_ptr<WorkerProcess> process, std::string where)
      : where_(std::move(where)) {
    Rank rank;
    rank.process = std::move(process);
    ranks_.push_back(std::move(rank));
  }

  bool pollOutput(const std::function<void(const std::string&)>& on_line) override {
    bool any_open = false;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      Rank& r = ranks_[i];
      if (!r.output_closed) {
        // Only rank 0 speaks the protocol; a stray line from another rank is not the run's.
        r.output_closed =
            i == 0 ? !r.process->poll(0, on_line) : !r.process->poll(0, [](const std::string&) {});
      }
      if (r.output_closed && !r.exit) {
        ProcessExit exit;
        if (r.process->finished(&exit)) {
          r.exit = exit;
          noteExit(i, exit);
        }
      }
      any_open = any_open || !r.output_closed;
    }
    return any_open;
  }

  std::optional<ExecutionEnd> finished() override {
    for (const Rank& r : ranks_)
      if (!r.output_closed) return std::nullopt;
    for (size_t i = 0; i < ranks_.size(); ++i) {
      Rank& r = ranks_[i];
      if (!r.exit) {
        r.exit = r.process->wait();
        noteExit(i, *r.exit);
      }
    }
    ExecutionEnd end;
    end.killed_by_us = killed_by_us_;
    end.exit = first_failure_ ? *first_failure_ : *ranks_[0].exit;
    return end;
  }

  void terminate() override {
    killed_by_us_ = true;
    signalAll(SIGTERM);
  }
  void kill() override {
    killed_by_us_ = true;
    signalAll(SIGKILL);
  }
  std::string where() const override { return where_; }
  int pollFd() const override { return ranks_[0].process->outputFd(); }

 private:
  struct Rank {
    std::unique_ptr<WorkerProcess> process;
    bool output_closed = false;
    std::optional<ProcessExit> exit;
  };

  // The first rank to end badly decides the run's outcome; the rest cannot continue.
  void noteExit(size_t rank, const ProcessExit& exit) {
    const bool ok = exit.exited && exit.code == 0;
    if (ok || first_failure_) return;
    first_failure_ = exit;
    if (ranks_.size() == 1) return;
    std::fprintf(stderr, "deepladder: rank %zu of %zu (%s) %s; stopping the other ranks\n", rank,
                 ranks_.size(), where_.c_str(), exit.describe().c_str());
    for (Rank& r : ranks_)
      if (!r.exit) r.process->terminate(SIGTERM);
  }

  void signalAll(int signal) {
    for (Rank& r : ranks_)
      if (!r.exit) r.process->terminate(signal);
  }

  std::vector<Rank> ranks_;
  std::string where_;
  std::optional<ProcessExit> first_failure_;
  bool killed_by_us_ = false;
};

}  // namespace

std::map<std::string, std::string> rendezvousEnvironment(int64_t rank, int64_t world,
                                                         int master_port, double peer_timeout_s) {
  return {{"MASTER_ADDR", "127.0.0.1"},         {"MASTER_PORT", std::to_string(master_port)},
          {"RANK", std::to_string(rank)},       {"WORLD_SIZE", std::to_string(world)},
          {"LOCAL_RANK", std::to_string(rank)}, {"LOCAL_WORLD_SIZE", std::to_string(world)},
          peerTimeoutVariable(peer_timeout_s)};
}

std::unique_ptr<Execution> launchRankGroup(const std::vector<ProcessSpec>& specs,
                                           std::string where) {
  return std::make_unique<RankGroupExecution>(specs, std::move(where));
}

std::unique_ptr<Execution> adoptWorker(std::unique_ptr<WorkerProcess> process, std::string where) {
  return std::make_unique<RankGroupExecution>(std::move(process), std::move(where));
}

}  // namespace deepladder::scheduler

// The scheduler tests' fixture: an in-memory run store and a fake worker (a shell script that
// speaks the protocol and behaves as <workdir>/behaviour says). Shared by scheduler_test.cpp and
// scheduler_hardening_test.cpp.
#pragma once

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "core/protocol.h"
#include "core/scheduler/local_backend.h"
#include "core/scheduler/scheduler.h"

namespace deepladder::scheduler::fixture {

namespace fs = std::filesystem;

// A worker that reads its behaviour from <workdir>/behaviour: "ok SECONDS", "crash_first",
// "crash_always", "hang", "rank1_crash_first" (rank 1 of a data-parallel run dies on the first
// attempt while rank 0 waits for it forever), "bad_input" (an error, exit status 2),
// "disk_full" (an error, exit status 74: core/disk_full.h's kExitDiskFull), "metric_then_sleep"
// (one metric, then 30 s of silence),
// "odd_done" (a done whose status is neither finished nor diverged), "done_then_sleep" (a run
// that has ended, then 30 s before its process exits). It records --resume,
// CUDA_VISIBLE_DEVICES and the rendezvous variables in <workdir>/calls.
inline constexpr const char* kFakeWorker = R"SH(#!/bin/sh
workdir=""; resume=0
while [ $# -gt 0 ]; do
  case "$1" in
    --workdir) workdir="$2"; shift 2;;
    --resume) resume=1; shift;;
    *) shift;;
  esac
done
echo "resume=$resume cuda=${CUDA_VISIBLE_DEVICES-unset} rank=${RANK-unset} world=${WORLD_SIZE-unset} port=${MASTER_PORT-unset} start=$(date +%s.%N)" >> "$workdir/calls"
read kind seconds < "$workdir/behaviour"
if [ "$kind" = rank1_crash_first ] && [ "$resume" = 0 ]; then
  if [ "$RANK" = 1 ]; then sleep 0.3; kill -9 $$; else sleep 30; fi
fi
echo '{"type":"hello","run_id":"x"}'
case "$kind" in
  crash_first) if [ "$resume" = 0 ]; then echo '{"type":"metric","step":1,"values":{"train/loss":3}}'; kill -9 $$; fi;;
  crash_always) echo '{"type":"error","message":"out of memory"}'; kill -9 $$;;
  hang) sleep 30;;
  bad_input) echo '{"type":"error","message":"data.train: no such file"}'; exit 2;;
  metric_then_sleep) echo '{"type":"metric","step":1,"values":{"train/loss":3}}'; sleep 30;;
  disk_full) echo '{"type":"error","message":"disk full: cannot write ckpt-2.pt.tmp"}'; exit 74;;
  odd_done) echo '{"type":"done","status":"exploded","final_loss":1.0}'; exit 0;;
  done_then_sleep) echo '{"type":"done","status":"finished","final_loss":2.0}'; sleep 30;;
esac
[ -n "$seconds" ] && sleep "$seconds"
echo '{"type":"metric","step":2,"values":{"train/loss":2}}'
echo '{"type":"done","status":"finished","final_loss":2.0}'
)SH";

struct MemoryRun {
  PendingRun pending;
  RunStatus status = RunStatus::kQueued;
  std::string message;
  std::vector<std::string> lines;
  bool cancel = false;
  bool cancel_after_done = false;  // a cancel (or a halving stop) that arrives after its done line
};

class MemorySink : public RunSink {
 public:
  explicit MemorySink(MemoryRun& run) : run_(run) {}
  std::optional<protocol::Message> line(const std::string& l) override {
    run_.lines.push_back(l);
    auto m = protocol::decode(l);
    if (!m) return m;
    if (auto* d = std::get_if<protocol::Done>(&*m)) done_ = d->status;
    if (auto* e = std::get_if<protocol::Error>(&*m)) error_ = e->message;
    return m;
  }
  void flush() override {}
  std::optional<RunStatus> doneStatus() const override { return done_; }
  std::string doneMessage() const override { return {}; }
  std::string lastError() const override { return error_; }
  int64_t lastStep() const override { return 0; }

 private:
  MemoryRun& run_;
  std::optional<RunStatus> done_;
  std::string error_;
};

class MemoryStore : public RunStore {
 public:
  std::map<int64_t, MemoryRun> runs;
  std::vector<int64_t> launch_order;

  std::vector<PendingRun> pending() override {
    std::vector<PendingRun> out;
    for (auto& [id, r] : runs)
      if (r.status == RunStatus::kQueued || r.status == RunStatus::kInterrupted)
        out.push_back(r.pending);
    std::stable_sort(out.begin(), out.end(), [](auto& a, auto& b) { return a.flops > b.flops; });
    return out;
  }
  void markLaunched(int64_t id, const std::string&, int64_t attempt) override {
    runs[id].status = RunStatus::kRunning;
    runs[id].pending.attempt = attempt;
    launch_order.push_back(id);
  }
  std::unique_ptr<RunSink> sink(int64_t id) override {
    return std::make_unique<MemorySink>(runs[id]);
  }
  void settle(int64_t id, RunStatus status, const std::string& message) override {
    runs[id].status = status;
    runs[id].message = message;
  }
  bool cancelRequested(int64_t id) override {
    const MemoryRun& run = runs[id];
    const bool done = std::any_of(run.lines.begin(), run.lines.end(), [](const std::string& l) {
      return l.find("\"done\"") != std::string::npos;
    });
    return run.cancel || (run.cancel_after_done && done);
  }
};

class SchedulerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-sched-XXXXXX";
    dir_ = mkdtemp(pattern);
    worker_ = (dir_ / "fake-worker.sh").string();
    std::ofstream(worker_) << kFakeWorker;
    chmod(worker_.c_str(), 0755);
  }
  void TearDown() override { fs::remove_all(dir_); }

  void addRun(int64_t id, double flops, const std::string& behaviour, int64_t ranks = 1) {
    MemoryRun run;
    run.pending.id = id;
    run.pending.ranks = ranks;
    run.pending.name = "run" + std::to_string(id);
    run.pending.flops = flops;
    run.pending.workdir = (dir_ / run.pending.name).string();
    fs::create_directories(run.pending.workdir);
    std::ofstream(run.pending.workdir + "/behaviour") << behaviour << "\n";
    store_.runs[id] = run;
  }

  std::vector<std::string> calls(int64_t id) {
    std::ifstream in(store_.runs[id].pending.workdir + "/calls");
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
  }

  std::vector<Slot> cpuSlots(int n) {
    ladder::Resources r;
    r.devices = "cpu";
    r.slots = n;
    return localSlots(r, 2, {});
  }

  SchedulerOptions options(int64_t retries = 2, double heartbeat = 60) {
    SchedulerOptions o;
    o.worker_path = worker_;
    o.retries = retries;
    o.heartbeat_timeout_s = heartbeat;
    return o;
  }

  fs::path dir_;
  std::string worker_;
  MemoryStore store_;
};

inline double seconds(std::chrono::steady_clock::time_point since) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - since).count();
}

}  // namespace deepladder::scheduler::fixture

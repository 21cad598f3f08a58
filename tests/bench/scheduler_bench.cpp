// Scheduler figures (issue: ladder orchestration), measured in one run with the real worker:
//   - a ladder of 8 tiny runs with 2 CPU slots against the same ladder with 1 slot (target: the
//     2-slot ladder takes at most 0.6x as long);
//   - scheduling overhead: from a slot freeing (the previous worker's last line) to the next
//     worker's launch, next to the worker's own start-up (launch -> hello -> first metric).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <vector>

#include "core/ladder/ladder_spec.h"
#include "core/protocol.h"
#include "core/scheduler/local_backend.h"
#include "core/scheduler/scheduler.h"
#include "storage/database.h"
#include "storage/ladder_queue.h"
#include "storage/run_store_sqlite.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

struct Timeline {
  std::map<int64_t, double> launched, hello, first_metric, last_line;
  std::map<int64_t, std::string> slot;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

std::string ladderText(const std::string& name, const fs::path& dir, int slots) {
  return "[ladder]\nname = \"" + name +
         "\"\nseeds = [1, 2, 3, 4]\n"
         "[model]\nseq_len = 32\nn_head = 2\n"
         "[data]\nkind = \"text\"\ntrain = \"" +
         (dir / "train.txt").string() + "\"\nval = \"" + (dir / "val.txt").string() +
         "\"\n"
         "[train]\nbatch_size = 8\nwarmup_steps = 2\neval_every = 1000\neval_batches = 2\n"
         "checkpoint_every = 0\n"
         "[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 }, "
         "{ name = \"b\", d_model = 32, n_layer = 2 } ]\n"
         "[budget]\nrule = \"tokens\"\ntokens = 40960\n"  // 160 steps of 256 tokens
         "[resources]\ndevices = \"cpu\"\nslots = " +
         std::to_string(slots) + "\nthreads_per_slot = 1\n";
}

double runLadder(const fs::path& dir, int slots, Timeline& timeline) {
  const std::string db_path = (dir / ("runs-" + std::to_string(slots) + ".db")).string();
  auto db = storage::Database::open(db_path);
  const ladder::LadderSpec spec = ladder::parseLadder(
      ladderText("bench-" + std::to_string(slots), dir, slots), "scheduler_bench");
  const auto queued = storage::enqueueLadder(*db, spec, (dir / "work").string());
  storage::SqliteRunStore store(*db, queued.ladder_id);
  scheduler::LocalBackend backend(scheduler::localSlots(spec.resources, 2, {}));
  scheduler::SchedulerOptions options;
  options.worker_path = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker";
  scheduler::Scheduler sched(store, backend, options);
  sched.onEvent([&](const scheduler::SchedulerEvent& e) {
    if (e.kind == scheduler::SchedulerEvent::kLaunched) {
      timeline.launched[e.run_id] = e.time_s;
      timeline.slot[e.run_id] = e.where;
      return;
    }
    if (e.kind != scheduler::SchedulerEvent::kLine) return;
    timeline.last_line[e.run_id] = e.time_s;
    auto m = protocol::decode(e.detail);
    if (!m) return;
    if (std::holds_alternative<protocol::Hello>(*m)) timeline.hello[e.run_id] = e.time_s;
    if (std::holds_alternative<protocol::Metric>(*m) && !timeline.first_metric.count(e.run_id))
      timeline.first_metric[e.run_id] = e.time_s;
  });
  const auto start = std::chrono::steady_clock::now();
  const int done = sched.run();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (done != 8) std::fprintf(stderr, "scheduler_bench: only %d of 8 runs finished\n", done);
  return seconds;
}

}  // namespace

int main() {
  char pattern[] = "/tmp/deepladder-schedbench-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "and the evening and the morning were the day " + std::to_string(i % 13) + ".\n";
  std::ofstream(dir / "train.txt") << text;
  std::ofstream(dir / "val.txt") << text.substr(0, 8000);

  Timeline serial_timeline, parallel_timeline;
  const double serial = runLadder(dir, 1, serial_timeline);
  const double parallel = runLadder(dir, 2, parallel_timeline);
  std::printf("scheduler_ladder runs=8 slots1_s=%.2f slots2_s=%.2f ratio=%.3f (target <= 0.6)\n",
              serial, parallel, parallel / serial);

  // Overhead on the 1-slot ladder: consecutive runs share the slot.
  std::vector<std::pair<double, int64_t>> order;
  for (const auto& [id, t] : serial_timeline.launched) order.emplace_back(t, id);
  std::sort(order.begin(), order.end());
  std::vector<double> overhead, startup_hello, startup_metric;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t id = order[i].second;
    startup_hello.push_back(serial_timeline.hello[id] - serial_timeline.launched[id]);
    startup_metric.push_back(serial_timeline.first_metric[id] - serial_timeline.launched[id]);
    if (i > 0) overhead.push_back(order[i].first - serial_timeline.last_line[order[i - 1].second]);
  }
  std::printf("scheduler_overhead slot_free_to_launch_ms median=%.1f max=%.1f (target < 300)\n",
              1e3 * median(overhead),
              overhead.empty() ? 0.0 : 1e3 * *std::max_element(overhead.begin(), overhead.end()));
  std::printf(
      "worker_startup launch_to_hello_ms median=%.1f launch_to_first_metric_ms median=%.1f\n",
      1e3 * median(startup_hello), 1e3 * median(startup_metric));
  std::printf("slot_free_to_first_metric_ms median=%.1f (= overhead + worker start-up)\n",
              1e3 * (median(overhead) + median(startup_metric)));
  fs::remove_all(dir);
  return parallel / serial <= 0.6 ? 0 : 1;
}

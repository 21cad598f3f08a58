// Scheduler figures (issue: ladder orchestration), measured in one run with the real worker:
//   - a ladder of 8 tiny runs with 2 CPU slots against the same ladder with 1 slot (target: the
//     2-slot ladder takes at most 0.6x as long);
//   - scheduling overhead: from a slot freeing (the previous worker's last line) to the next
//     worker's launch, next to the worker's own start-up (launch -> hello -> first metric);
//   - the 1-slot ladder (1 thread) again with warm standby workers (SchedulerOptions::
//     standby_workers): the same figures side by side, a run's launch -> hello being a standby's
//     assignment -> hello; the ladder's wall time shows what loading the next run's standby while
//     a run trains costs (nothing on a spare core, a slower run on a busy machine).
// Each target is a goal (bench_goals.h, exit 1 on a miss); every run of every ladder finishing is
// a correctness goal. --smoke: 4 runs of 10 steps per ladder (seconds; timing goals not judged).
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
#include "tests/bench/bench_goals.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

bool smoke = false;
int expected_runs() {
  return smoke ? 4 : 8;
}

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
         "\"\nseeds = " + std::string(smoke ? "[1, 2]" : "[1, 2, 3, 4]") +
         "\n"
         "[model]\nseq_len = 32\nn_head = 2\n"
         "[data]\nkind = \"text\"\ntrain = \"" +
         (dir / "train.txt").string() + "\"\nval = \"" + (dir / "val.txt").string() +
         "\"\n"
         "[train]\nbatch_size = 8\nwarmup_steps = 2\neval_every = 1000\neval_batches = 2\n"
         "checkpoint_every = 0\n"
         "[sizes]\nlist = [ { name = \"a\", d_model = 32, n_layer = 1 }, "
         "{ name = \"b\", d_model = 32, n_layer = 2 } ]\n"
         "[budget]\nrule = \"tokens\"\ntokens = " +
         std::string(smoke ? "2560" : "40960") +
         "\n"  // 10 or 160 steps of 256 tokens
         "[resources]\ndevices = \"cpu\"\nslots = " +
         std::to_string(slots) + "\nthreads_per_slot = 1\n";
}

double runLadder(const fs::path& dir, int slots, Timeline& timeline, int& finished,
                 bool standby = false) {
  const std::string tag = std::to_string(slots) + (standby ? "-standby" : "");
  const std::string db_path = (dir / ("runs-" + tag + ".db")).string();
  auto db = storage::Database::open(db_path);
  const ladder::LadderSpec spec =
      ladder::parseLadder(ladderText("bench-" + tag, dir, slots), "scheduler_bench");
  // Each database its own work directory (a work directory belongs to one database).
  const auto queued = storage::enqueueLadder(*db, spec, (dir / ("work-" + tag)).string());
  storage::SqliteRunStore store(*db, queued.ladder_id);
  scheduler::LocalBackend backend(scheduler::localSlots(spec.resources, 2, {}));
  scheduler::SchedulerOptions options;
  options.worker_path = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker";
  options.standby_workers = standby ? scheduler::SchedulerOptions::Standby::kAlways
                                    : scheduler::SchedulerOptions::Standby::kOff;
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
  finished = done;
  return seconds;
}

// Per-run start-up on a ladder whose runs share one slot, in seconds (medians).
struct Startup {
  double overhead = 0, overhead_max = 0, hello = 0, first_metric = 0;
};

Startup startupOf(Timeline& timeline) {
  std::vector<std::pair<double, int64_t>> order;
  for (const auto& [id, t] : timeline.launched) order.emplace_back(t, id);
  std::sort(order.begin(), order.end());
  std::vector<double> overhead, hello, metric;
  for (size_t i = 0; i < order.size(); ++i) {
    const int64_t id = order[i].second;
    hello.push_back(timeline.hello[id] - timeline.launched[id]);
    metric.push_back(timeline.first_metric[id] - timeline.launched[id]);
    if (i > 0) overhead.push_back(order[i].first - timeline.last_line[order[i - 1].second]);
  }
  Startup out;
  out.overhead = median(overhead);
  out.overhead_max = overhead.empty() ? 0.0 : *std::max_element(overhead.begin(), overhead.end());
  out.hello = median(hello);
  out.first_metric = median(metric);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  bench::Goals goals(bench::takeSmokeFlag(argc, argv));
  smoke = goals.smoke();
  char pattern[] = "/tmp/deepladder-schedbench-XXXXXX";
  const fs::path dir = mkdtemp(pattern);
  std::string text;
  for (int i = 0; i < 2000; ++i)
    text += "and the evening and the morning were the day " + std::to_string(i % 13) + ".\n";
  std::ofstream(dir / "train.txt") << text;
  std::ofstream(dir / "val.txt") << text.substr(0, 8000);

  Timeline serial_timeline, parallel_timeline, standby_timeline;
  int done[3] = {0, 0, 0};
  const double serial = runLadder(dir, 1, serial_timeline, done[0]);
  const double parallel = runLadder(dir, 2, parallel_timeline, done[1]);
  const double warm = runLadder(dir, 1, standby_timeline, done[2], /*standby=*/true);
  goals.holds(
      "every run of the three ladders finished (" + std::to_string(done[0]) + ", " +
          std::to_string(done[1]) + ", " + std::to_string(done[2]) + " of " +
          std::to_string(expected_runs()) + ")",
      done[0] == expected_runs() && done[1] == expected_runs() && done[2] == expected_runs());
  std::printf("scheduler_ladder runs=%d slots1_s=%.2f slots2_s=%.2f ratio=%.3f\n", expected_runs(),
              serial, parallel, parallel / serial);
  goals.atMost("2-slot ladder time / 1-slot ladder time", parallel / serial, 0.6, "");

  // Overhead on the 1-slot ladder: consecutive runs share the slot.
  const Startup cold = startupOf(serial_timeline);
  std::printf("scheduler_overhead slot_free_to_launch_ms median=%.1f max=%.1f\n",
              1e3 * cold.overhead, 1e3 * cold.overhead_max);
  goals.below("slot free -> next launch, median", 1e3 * cold.overhead, 300, "ms");
  std::printf(
      "worker_startup launch_to_hello_ms median=%.1f launch_to_first_metric_ms median=%.1f\n",
      1e3 * cold.hello, 1e3 * cold.first_metric);
  std::printf("slot_free_to_first_metric_ms median=%.1f (= overhead + worker start-up)\n",
              1e3 * (cold.overhead + cold.first_metric));
  // The first run of a ladder has no standby yet: the median is over the 7 that follow.
  const Startup standby = startupOf(standby_timeline);
  std::printf(
      "standby_workers slots1 ladder_s cold=%.2f standby=%.2f; launch_to_hello_ms cold=%.1f "
      "standby=%.1f; slot_free_to_first_metric_ms cold=%.1f standby=%.1f\n",
      serial, warm, 1e3 * cold.hello, 1e3 * standby.hello,
      1e3 * (cold.overhead + cold.first_metric), 1e3 * (standby.overhead + standby.first_metric));
  goals.below("standby worker launch -> hello, median", 1e3 * standby.hello, 300, "ms");
  fs::remove_all(dir);
  return goals.exitCode();
}

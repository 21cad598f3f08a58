// Peak memory and speed of real training runs against the memory plan (core/memory_model.h),
// measured on deepladder-worker processes (peak resident set from wait4, tokens/s from the
// worker's own metrics), side by side in one run:
//   1. estimate vs measured peak for six shapes, each without and with activation checkpointing
//      (goal: within 15%);
//   2. activation checkpointing at 64, 256 and 1,024 blocks of d_model 32: memory and tokens/s,
//      none against every_k = round(sqrt(L));
//   3. bf16 autocast against fp32 at d 256 x 6 layers, T 256 (where the CPU has AVX512-BF16):
//      tokens/s and the loss after --bf16-steps steps;
//   4. DEEPLADDER_RETURN_FREED_MEMORY=1 against =0 on a d32 x 64-block model (--only freed): the
//      same run trained both ways, tokens/s and peak RSS (docs/gpu.md quotes the slow-down).
//
//   memory_bench [--worker PATH] [--only estimate|depth|bf16|freed] [--bf16-steps N] [--threads N]
//                [--explain] [--config RUN.toml] [--smoke]
//   --smoke    the runtime worker and one small shape (seconds): every worker must finish; the 15%
//              goal is judged by the full run only (small shapes are mostly the runtime term)
// Goals (bench_goals.h, exit 1 on a miss): every estimate within 15% of the measured peak, and
// every worker finishes.
//   --explain  each estimate's terms and phases, and the worker's own peak after its last step
//              (before validation and the checkpoint write)
//   --config   that run alone, for the steps its file sets, instead of the shapes above
// The machine may be shared: tokens/s are what this run saw. The workers run with
// DEEPLADDER_RETURN_FREED_MEMORY=1 (trainers/memory_usage.h: freed tensors go back to the system,
// so the peak RSS is the live peak the plan counts; slower) unless the bench's environment sets
// it already (=0: glibc's default heaps, whose peaks run 14-54% above the estimate here).
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/memory_model.h"
#include "core/run_config.h"
#include "tests/bench/bench_goals.h"

namespace {

namespace fs = std::filesystem;
using namespace deepladder;

struct Args {
  std::string worker = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker";
  std::string only;
  int bf16_steps = 10;
  int threads = 1;
  std::string config;    // --config: one run TOML of the user's, estimated and measured
  bool explain = false;  // each estimate's terms and phases beside the measured peaks
  bool smoke = false;    // --smoke
};

deepladder::bench::Goals* goals = nullptr;

struct Measured {
  bool ok = false;
  double peak_bytes = 0;    // ru_maxrss of the worker
  double tokens_per_s = 0;  // mean over the logged steps after the first
  double final_loss = 0;
  double training_peak_bytes = 0;  // the worker's own peak_memory_gb after its last step
};

// A run TOML on the built-in corpus: `model` and `train` are extra lines of those sections.
std::string runToml(const std::string& model, const std::string& train, int steps, int threads) {
  return "name = \"memory-bench\"\n[model]\nvocab_size = 256\n" + model +
         "\n[data]\nkind = \"builtin\"\n[train]\nsteps = " + std::to_string(steps) +
         "\nwarmup_steps = 1\neval_every = " + std::to_string(steps) +
         "\neval_batches = 2\ncheckpoint_every = " + std::to_string(steps) +
         "\nlog_every = 1\nthreads = " + std::to_string(threads) + "\n" + train + "\n";
}

// Trains `toml` (a run's text) or, when `toml` is empty, the run file `config_path`.
Measured runWorker(const Args& args, const fs::path& dir, const std::string& toml,
                   const fs::path& config_path = {}) {
  fs::remove_all(dir);
  fs::create_directories(dir);
  const fs::path config = toml.empty() ? config_path : dir / "run.toml", out = dir / "out.jsonl";
  if (!toml.empty()) std::ofstream(config) << toml;
  const pid_t pid = fork();
  if (pid == 0) {
    std::freopen(out.c_str(), "w", stdout);
    std::freopen((dir / "err.txt").c_str(), "w", stderr);
    execl(args.worker.c_str(), args.worker.c_str(), "--config", config.c_str(), "--workdir",
          (dir / "work").c_str(), "--run-id", "1", static_cast<char*>(nullptr));
    _exit(127);
  }
  int status = 0;
  rusage usage{};
  wait4(pid, &status, 0, &usage);
  Measured m;
  m.peak_bytes = static_cast<double>(usage.ru_maxrss) * 1024.0;
  std::ifstream in(out);
  std::string line;
  double sum = 0;
  int count = 0;
  while (std::getline(in, line)) {
    const auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded()) continue;
    if (j.value("type", "") == "metric" && j["values"].contains("tokens_per_s") &&
        j.value("step", 0) > 1) {
      sum += j["values"]["tokens_per_s"].get<double>();
      ++count;
    }
    if (j.value("type", "") == "metric" && j["values"].contains("tokens_per_s") &&
        j["values"].contains("peak_memory_gb"))
      m.training_peak_bytes = j["values"]["peak_memory_gb"].get<double>() * 1e9;
    if (j.value("type", "") == "done") {
      m.ok = j.value("status", "") == "finished";
      m.final_loss = j.value("final_loss", 0.0);
    }
  }
  m.tokens_per_s = count > 0 ? sum / count : 0;
  if (!m.ok || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    std::fprintf(stderr, "worker failed in %s (see err.txt there)\n", dir.c_str());
  return m;
}

MemoryEstimate estimateFor(const std::string& toml) {
  const RunConfig c = parseRunConfigToml(toml, "memory-bench.toml");
  return estimateMemory(c, c.train.micro_batch, memoryModelOptionsFor(c));
}

double estimatePeak(const std::string& toml) {
  return estimateFor(toml).peak;
}

// One "[ figure ]" line: estimate against measured peak (and with --explain the estimate's terms).
void report(const Args& args, const std::string& label, const MemoryEstimate& est,
            const Measured& m) {
  std::printf(
      "[ figure ] %-44s: estimate %7.1f MB, measured peak RSS %7.1f MB, estimate / measured "
      "%.3f%s\n",
      label.c_str(), est.peak / 1e6, m.peak_bytes / 1e6, est.peak / m.peak_bytes,
      m.ok ? "" : " (worker failed)");
  goals->holds(label + ": the worker finishes", m.ok);
  goals->atMost(label + ": |estimate / measured - 1|", std::fabs(est.peak / m.peak_bytes - 1), 0.15,
                "");
  if (args.explain)
    std::printf(
        "           estimate: %s; training %.1f MB, validation %.1f MB, checkpoint write %.1f MB; "
        "measured after the last step (before validation) %.1f MB\n",
        describeMemory(est).c_str(), est.training_peak / 1e6, est.validation_peak / 1e6,
        est.checkpoint_peak / 1e6, m.training_peak_bytes / 1e6);
  std::fflush(stdout);
}

// The model's fixed CPU runtime term against the smallest worker that trains: one step of a
// d16 x 1 model, whose tensors are a few MB.
void runtime(const Args& args, const fs::path& root) {
  const std::string toml = runToml("d_model = 16\nn_layer = 1\nn_head = 1\nseq_len = 16",
                                   "batch_size = 1", 1, args.threads);
  const MemoryEstimate est = estimateFor(toml);
  const Measured m = runWorker(args, root / "runtime", toml);
  std::printf(
      "[ figure ] runtime: a one-step d16 x 1 worker peaks at %.1f MB; the model's runtime term "
      "is %.1f MB, its whole estimate %.1f MB%s\n",
      m.peak_bytes / 1e6, est.runtime / 1e6, est.peak / 1e6, m.ok ? "" : " (worker failed)");
  std::fflush(stdout);
}

// --config FILE: the user's own run, for the number of steps in its file.
void userConfig(const Args& args, const fs::path& root) {
  const RunConfig c = loadRunConfigToml(args.config);
  const MemoryEstimate est = estimateMemory(c, c.train.micro_batch, memoryModelOptionsFor(c));
  report(args, args.config, est, runWorker(args, root / "config", "", fs::absolute(args.config)));
}

void estimates(const Args& args, const fs::path& root) {
  struct Shape {
    const char* label;
    std::string model, train;
  };
  std::vector<Shape> shapes = {
      {"d128 L8 T256 B16", "d_model = 128\nn_layer = 8\nn_head = 4\nseq_len = 256",
       "batch_size = 16"},
      {"d256 L4 T256 B16", "d_model = 256\nn_layer = 4\nn_head = 4\nseq_len = 256",
       "batch_size = 16"},
      {"d64 L32 T128 B16", "d_model = 64\nn_layer = 32\nn_head = 2\nseq_len = 128",
       "batch_size = 16"},
      {"d128 L8 T256 B16 mb4", "d_model = 128\nn_layer = 8\nn_head = 4\nseq_len = 256",
       "batch_size = 16\nmicro_batch = 4"},
      {"d64 L16 T256 B16 BO/4",
       "d_model = 64\nn_layer = 16\nn_head = 2\nseq_len = 256\nboundary_every = 4",
       "batch_size = 16"},
      {"d128 L6 T256 B16 swiglu muon",
       "d_model = 128\nn_layer = 6\nn_head = 4\nseq_len = 256\nmlp = \"swiglu\"\nqk_norm = true",
       "batch_size = 16\noptimizer = \"muon\""},
  };
  if (args.smoke)
    shapes = {{"d32 L2 T64 B4 (smoke)", "d_model = 32\nn_layer = 2\nn_head = 2\nseq_len = 64",
               "batch_size = 4"}};
  int index = 0;
  for (const Shape& s : shapes)
    for (const char* checkpointing : {"none", "blocks"}) {
      const std::string train = s.train + "\nactivation_checkpointing = \"" + checkpointing + "\"";
      const std::string toml = runToml(s.model, train, 3, args.threads);
      const MemoryEstimate est = estimateFor(toml);
      const Measured m = runWorker(args, root / ("estimate-" + std::to_string(index++)), toml);
      report(args, std::string(s.label) + " checkpointing " + checkpointing, est, m);
      std::fflush(stdout);
    }
}

void depths(const Args& args, const fs::path& root) {
  for (int layers : {64, 256, 1024}) {
    Measured none;
    for (const char* checkpointing : {"none", "every_k"}) {
      const std::string model = "d_model = 32\nn_layer = " + std::to_string(layers) +
                                "\nn_head = 2\nseq_len = 64\nresidual_scale = 0.5";
      const std::string train =
          std::string("batch_size = 16\nactivation_checkpointing = \"") + checkpointing + "\"";
      const std::string toml = runToml(model, train, 3, args.threads);
      const double estimate = estimatePeak(toml);
      const Measured m =
          runWorker(args, root / ("depth-" + std::to_string(layers) + "-" + checkpointing), toml);
      if (std::string(checkpointing) == "none") none = m;
      std::printf(
          "[ figure ] %4d blocks d32 T64 B16, checkpointing %-7s: peak RSS %7.1f MB (estimate "
          "%7.1f), %8.0f tokens/s%s%s\n",
          layers, checkpointing, m.peak_bytes / 1e6, estimate / 1e6, m.tokens_per_s,
          std::string(checkpointing) == "none"
              ? ""
              : (", vs none: memory x" + std::to_string(m.peak_bytes / none.peak_bytes) +
                 ", time x" + std::to_string(none.tokens_per_s / m.tokens_per_s))
                    .c_str(),
          m.ok ? "" : " (worker failed)");
      std::fflush(stdout);
    }
  }
}

void bf16(const Args& args, const fs::path& root) {
  Measured fp32;
  for (const char* precision : {"fp32", "bf16"}) {
    const std::string model = "d_model = 256\nn_layer = 6\nn_head = 4\nseq_len = 256";
    const std::string train =
        std::string("batch_size = 8\nlr = 1e-3\nprecision = \"") + precision + "\"";
    const Measured m = runWorker(args, root / (std::string("bf16-") + precision),
                                 runToml(model, train, args.bf16_steps, args.threads));
    if (std::string(precision) == "fp32") fp32 = m;
    std::printf(
        "[ figure ] d256 L6 T256 B8 %s: %8.0f tokens/s, val loss after %d steps %.4f, peak RSS "
        "%.1f MB%s%s\n",
        precision, m.tokens_per_s, args.bf16_steps, m.final_loss, m.peak_bytes / 1e6,
        std::string(precision) == "fp32"
            ? ""
            : (", speed vs fp32 x" + std::to_string(m.tokens_per_s / fp32.tokens_per_s)).c_str(),
        m.ok ? "" : " (worker failed: see its err.txt; bf16 needs AVX512-BF16)");
    std::fflush(stdout);
  }
}

// The same run with freed memory returned to the system at once and with glibc's default heaps,
// alternating, best tokens/s of `rounds` each (the machine may be shared).
void freedMemory(const Args& args, const fs::path& root, int rounds) {
  const std::string model =
      "d_model = 32\nn_layer = 64\nn_head = 2\nseq_len = 64\nresidual_scale = 0.5";
  const std::string toml = runToml(model, "batch_size = 16", 6, args.threads);
  const char* saved = std::getenv("DEEPLADDER_RETURN_FREED_MEMORY");
  const std::string before = saved ? saved : "";
  Measured best[2];
  for (int round = 0; round < rounds; ++round)
    for (int on = 0; on < 2; ++on) {
      setenv("DEEPLADDER_RETURN_FREED_MEMORY", on ? "1" : "0", 1);
      const Measured m = runWorker(args, root / ("freed-" + std::to_string(on)), toml);
      goals->holds(std::string("d32 x 64 blocks, DEEPLADDER_RETURN_FREED_MEMORY=") +
                       (on ? "1" : "0") + ": the worker finishes",
                   m.ok);
      if (m.tokens_per_s > best[on].tokens_per_s) best[on] = m;
    }
  if (saved)
    setenv("DEEPLADDER_RETURN_FREED_MEMORY", before.c_str(), 1);
  else
    unsetenv("DEEPLADDER_RETURN_FREED_MEMORY");
  std::printf(
      "[ figure ] d32 x 64 blocks T64 B16: DEEPLADDER_RETURN_FREED_MEMORY=0 %.0f tokens/s, peak "
      "RSS %.1f MB; =1 %.0f tokens/s, peak RSS %.1f MB; =1 trains %.2fx slower (best of %d "
      "rounds each)\n",
      best[0].tokens_per_s, best[0].peak_bytes / 1e6, best[1].tokens_per_s,
      best[1].peak_bytes / 1e6, best[0].tokens_per_s / best[1].tokens_per_s, rounds);
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  deepladder::bench::Goals bench_goals(deepladder::bench::takeSmokeFlag(argc, argv));
  goals = &bench_goals;
  Args args;
  args.smoke = bench_goals.smoke();
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--explain") {
      args.explain = true;
      continue;
    }
    if (i + 1 >= argc) break;
    const std::string value = argv[++i];
    if (flag == "--worker") args.worker = value;
    if (flag == "--only") args.only = value;
    if (flag == "--config") args.config = value;
    if (flag == "--bf16-steps") args.bf16_steps = std::atoi(value.c_str());
    if (flag == "--threads") args.threads = std::atoi(value.c_str());
  }
  setenv("DEEPLADDER_RETURN_FREED_MEMORY", "1", /*overwrite=*/0);
  std::printf("workers run with DEEPLADDER_RETURN_FREED_MEMORY=%s\n",
              std::getenv("DEEPLADDER_RETURN_FREED_MEMORY"));
  char pattern[] = "/tmp/deepladder-memory-bench-XXXXXX";
  const fs::path root = mkdtemp(pattern);
  if (!args.config.empty()) {
    userConfig(args, root);
    fs::remove_all(root);
    return bench_goals.exitCode();
  }
  if (args.only.empty() || args.only == "estimate") {
    runtime(args, root);
    estimates(args, root);
  }
  if (!args.smoke && (args.only.empty() || args.only == "depth")) depths(args, root);
  if (!args.smoke && (args.only.empty() || args.only == "bf16")) bf16(args, root);
  if (!args.smoke && (args.only.empty() || args.only == "freed")) freedMemory(args, root, 2);
  fs::remove_all(root);
  return bench_goals.exitCode();
}

// A stand-in for deepladder-worker in the live-ladder tests: it reads the run's config like the
// worker does, trains nothing, and reports a final loss drawn from a known scaling law, so a
// ladder "runs" in a fraction of a second and its fits have a truth to match.
//   L(C) = 1.8 + A_arm (C / 1e10)^-gamma_arm + 0.002 z(run name),  C = the run's planned FLOPs
// Laws: DEEPLADDER_FAKE_LAWS="arm:A:gamma,..." (default vanilla:1.2:0.10 and deep:1.1:0.13);
// DEEPLADDER_FAKE_SLEEP_MS (default 150) delays each run's end, so runs end one after another.
// Same command line as the worker: --config FILE --workdir DIR --run-id ID [--threads N]
// [--resume].
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>

#include "core/flop_model.h"
#include "core/protocol.h"
#include "core/run_config.h"

using namespace deepladder;

namespace {

std::map<std::string, std::pair<double, double>> laws() {
  const char* env = std::getenv("DEEPLADDER_FAKE_LAWS");
  std::string text = env ? env : "vanilla:1.2:0.10,deep:1.1:0.13";
  std::map<std::string, std::pair<double, double>> out;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t a = item.find(':'), b = item.rfind(':');
    out[item.substr(0, a)] = {std::stod(item.substr(a + 1, b - a - 1)),
                              std::stod(item.substr(b + 1))};
  }
  return out;
}

// A deterministic standard-normal-ish deviate from the run's name (sum of 12 uniforms - 6).
double deviate(const std::string& name) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  double sum = 0;
  for (int i = 0; i < 12; ++i) {
    h ^= h >> 33, h *= 0xff51afd7ed558ccdull, h ^= h >> 33;
    sum += double(h % 1000003) / 1000003.0;
  }
  return sum - 6.0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 2 && !std::strcmp(argv[1], "--standby")) {
    std::fprintf(stderr, "fake_worker: no standby mode; the scheduler launches cold\n");
    return 2;
  }
  std::string config_path, run_id;
  for (int i = 1; i + 1 < argc; ++i) {
    if (!std::strcmp(argv[i], "--config")) config_path = argv[i + 1];
    if (!std::strcmp(argv[i], "--run-id")) run_id = argv[i + 1];
  }
  std::ifstream in(config_path);
  const RunConfig config = runConfigFromJson(nlohmann::json::parse(in));
  const int64_t tokens_per_step = config.train.batch_size * config.model.seq_len;
  const int64_t steps = config.train.steps;
  const double flops = trainingFlops(config.model, steps, tokens_per_step);
  // The arm: the run's name without "-<size>-s<seed>".
  std::string arm = config.name.substr(0, config.name.rfind("-s"));
  arm = arm.substr(0, arm.rfind('-'));
  const auto all = laws();
  const auto law = all.count(arm) ? all.at(arm) : std::make_pair(1.2, 0.10);
  const double loss =
      1.8 + law.first * std::pow(flops / 1e10, -law.second) + 0.002 * deviate(config.name);

  protocol::Hello hello;
  hello.run_id = run_id;
  hello.config_hash = configHash(config);
  hello.device = "cpu";
  hello.flops_per_token = flopsPerToken(config.model);
  std::printf("%s\n", protocol::encode(hello).c_str());
  protocol::Metric metric;
  metric.step = steps;
  metric.tokens = steps * tokens_per_step;
  metric.flops = flops;
  metric.wall_s = 0.1;
  metric.values = {{"train/loss", loss}, {"val/loss", loss}};
  std::printf("%s\n", protocol::encode(metric).c_str());
  std::fflush(stdout);
  const char* sleep_ms = std::getenv("DEEPLADDER_FAKE_SLEEP_MS");
  std::this_thread::sleep_for(std::chrono::milliseconds(sleep_ms ? std::atoi(sleep_ms) : 150));
  protocol::Done done;
  done.final_loss = loss;
  done.steps = steps;
  done.tokens = metric.tokens;
  done.flops = flops;
  done.wall_s = 0.2;
  std::printf("%s\n", protocol::encode(done).c_str());
  return 0;
}

// Shared by the trainer tests: a tiny run config (d 32, 2 layers, seq 32) over a generated text
// corpus in a temp directory, and a runner that collects the protocol messages it emits.
// The corpus is made up here (numbered English sentences from a fixed word list), so it needs no
// fixture file and is the same on every machine.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "core/protocol.h"
#include "core/run_config.h"
#include "trainers/trainer.h"

namespace deepladder::trainers::testing {

inline std::string makeCorpus(int sentences, unsigned seed) {
  static const char* words[] = {"the", "cat", "sat", "on",  "a",   "mat",  "and", "dog",
                                "ran", "to",  "see", "old", "red", "barn", "in",  "rain"};
  std::string text;
  unsigned state = seed;
  for (int s = 0; s < sentences; ++s) {
    const int length = 4 + s % 5;
    for (int w = 0; w < length; ++w) {
      state = state * 1103515245u + 12345u;
      text += words[(state >> 16) % 16];
      text += w + 1 < length ? " " : ". ";
    }
    if (s % 8 == 7) text += "\n";
  }
  return text;
}

// A fresh temp directory with train.txt / val.txt.
inline std::filesystem::path makeWorkspace(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() /
                   ("deepladder-trainers-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "train.txt") << makeCorpus(3000, 1);
  std::ofstream(dir / "val.txt") << makeCorpus(400, 2);
  return dir;
}

inline RunConfig tinyConfig(const std::filesystem::path& workspace) {
  RunConfig c;
  c.name = "tiny";
  c.model.vocab_size = 256;
  c.model.d_model = 32;
  c.model.n_layer = 2;
  c.model.n_head = 2;
  c.model.seq_len = 32;
  c.data.kind = DataKind::text;
  c.data.train = (workspace / "train.txt").string();
  c.data.val = (workspace / "val.txt").string();
  c.train.batch_size = 8;
  c.train.steps = 20;
  c.train.lr = 3e-3;
  c.train.warmup_steps = 4;
  c.train.eval_every = 10;
  c.train.eval_batches = 2;
  c.train.checkpoint_every = 5;
  c.train.log_every = 1;
  c.train.threads = 1;  // deterministic and immune to a busy machine
  return c;
}

struct Collected {
  std::vector<protocol::Message> messages;
  TrainOutcome outcome;

  template <typename T>
  std::vector<T> all() const {
    std::vector<T> out;
    for (const auto& m : messages)
      if (const T* t = std::get_if<T>(&m)) out.push_back(*t);
    return out;
  }
  // step -> value of `key` over all metric messages
  std::map<int64_t, double> curve(const std::string& key) const {
    std::map<int64_t, double> out;
    for (const auto& m : all<protocol::Metric>())
      for (const auto& [k, v] : m.values)
        if (k == key) out[m.step] = v;
    return out;
  }
};

inline Collected runTiny(const RunConfig& config, TrainerOptions options) {
  Collected result;
  result.outcome = runTraining(config, options,
                               [&](const protocol::Message& m) { result.messages.push_back(m); });
  return result;
}

// A 10-step growing run (checkpoints every 3 steps, growth at step 5) stopped after step 4 (newest
// checkpoint 3, before growth) and after step 8 (checkpoint 6, after growth), then resumed: the
// resumed steps must log exactly the uninterrupted run's losses. `check(stop_at, resumed)` adds
// the caller's own expectations about each resumed part.
inline void expectResumeAcrossGrowthReproducesTheCurve(
    const RunConfig& config, const std::filesystem::path& dir,
    const std::function<void(int64_t, const Collected&)>& check = {}) {
  TrainerOptions full;
  full.workdir = (dir / "full").string();
  const auto reference = runTiny(config, full).curve("train/loss");
  ASSERT_EQ(reference.size(), 10u);
  for (const int64_t stop_at : {4, 8}) {
    TrainerOptions first;
    first.workdir = (dir / ("split" + std::to_string(stop_at))).string();
    first.max_steps = stop_at;
    runTiny(config, first);
    TrainerOptions second = first;
    second.max_steps = -1;
    second.resume = true;
    const auto resumed = runTiny(config, second);
    EXPECT_EQ(resumed.all<protocol::Hello>().at(0).resumed_from, stop_at == 4 ? 3 : 6);
    const auto curve = resumed.curve("train/loss");
    EXPECT_EQ(curve.size(), static_cast<size_t>(10 - (stop_at == 4 ? 3 : 6)));
    for (const auto& [step, loss] : curve)
      EXPECT_EQ(loss, reference.at(step)) << "stopped at " << stop_at << ", step " << step;
    if (check) check(stop_at, resumed);
  }
}

}  // namespace deepladder::trainers::testing

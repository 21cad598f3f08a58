// A run dispatched to a warm standby worker (core/scheduler/standby_pool.h) trains exactly as a
// cold-launched worker does: the real deepladder-worker, a tiny text run, the same losses line
// for line; the run's logs (worker.jsonl, worker.log) are the same files, without the standby's
// ready line.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "core/protocol.h"
#include "core/run_config.h"
#include "core/scheduler/local_backend.h"
#include "tests/app/cli_fixture.h"

using namespace deepladder;
using namespace deepladder::cli_fixture;

namespace {

const std::string kWorker = std::string(DEEPLADDER_BINARY_DIR) + "/bin/deepladder-worker";

class WorkerStandby : public CliTest {
 protected:
  // A queued run in its own directory, holding config.json as the scheduler writes it.
  scheduler::PendingRun tinyRun(int64_t id, const std::string& name) {
    std::string text;
    for (int i = 0; i < 300; ++i) text += "the quick brown fox jumps over the lazy dog\n";
    write("train.txt", text);
    write("val.txt", text.substr(0, 3000));
    write(name + ".toml", "name = \"" + name +
                              "\"\n[model]\nd_model = 32\nn_layer = 1\nn_head = 2\nseq_len = 32\n"
                              "[data]\nkind = \"text\"\ntrain = \"" +
                              path("train.txt") + "\"\nval = \"" + path("val.txt") +
                              "\"\nmax_epochs = 100\n[train]\nsteps = 12\nwarmup_steps = 2\n"
                              "batch_size = 4\neval_every = 6\neval_batches = 2\nthreads = 1\n");
    scheduler::PendingRun run;
    run.id = id;
    run.name = name;
    run.workdir = path(name);
    std::filesystem::create_directories(run.workdir);
    std::ofstream(run.workdir + "/config.json")
        << toJson(loadRunConfigToml(path(name + ".toml"))).dump();
    return run;
  }

  // What the run trained to: every loss the worker reported ("step key value") and its done.
  static std::vector<std::string> losses(scheduler::LocalBackend& backend,
                                         const scheduler::PendingRun& run,
                                         const std::vector<scheduler::Slot>& slots) {
    auto execution = backend.launch(run, slots, kWorker);
    std::vector<std::string> out;
    auto collect = [&](const std::string& line) {
      const auto message = protocol::decode(line);
      if (!message) {
        out.push_back("undecodable: " + line);
      } else if (const auto* metric = std::get_if<protocol::Metric>(&*message)) {
        for (const auto& [key, value] : metric->values)
          if (key.find("loss") != std::string::npos)
            out.push_back(std::to_string(metric->step) + " " + key + " " + std::to_string(value));
      } else if (const auto* done = std::get_if<protocol::Done>(&*message)) {
        out.push_back("done " + std::string(toString(done->status)) + " " +
                      std::to_string(done->steps) + " " + std::to_string(done->final_loss));
      } else if (const auto* error = std::get_if<protocol::Error>(&*message)) {
        out.push_back("error " + error->message);
      }
    };
    while (execution->pollOutput(collect))
      std::this_thread::sleep_for(std::chrono::milliseconds(5));
    while (!execution->finished()) std::this_thread::sleep_for(std::chrono::milliseconds(5));
    return out;
  }

  static std::vector<scheduler::Slot> oneSlot() {
    scheduler::Slot slot;
    slot.name = "cpu0";
    slot.env["CUDA_VISIBLE_DEVICES"] = "";
    slot.threads = 1;
    return {slot};
  }
};

std::string readAll(const std::string& file) {
  std::ifstream in(file);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST_F(WorkerStandby, ARunOnAStandbyTrainsExactlyAsAColdLaunchedOne) {
  const auto slots = oneSlot();
  scheduler::LocalBackend cold_backend(slots);
  const std::vector<std::string> cold = losses(cold_backend, tinyRun(1, "cold"), slots);
  EXPECT_EQ(cold_backend.standbyLaunches(), 0);

  scheduler::LocalBackend backend(slots);
  backend.prepareStandbys(slots, kWorker);
  ASSERT_EQ(backend.standbyPids().size(), 1u);
  const scheduler::PendingRun run = tinyRun(2, "warm");
  const std::vector<std::string> warm = losses(backend, run, slots);
  EXPECT_EQ(backend.standbyLaunches(), 1);
  EXPECT_TRUE(backend.standbyPids().empty()) << "the standby became the run";

  ASSERT_GE(cold.size(), 3u);
  EXPECT_EQ(cold.back().rfind("done finished 12 ", 0), 0u) << cold.back();
  EXPECT_EQ(warm, cold);
  const std::string jsonl = readAll(run.workdir + "/worker.jsonl");
  EXPECT_EQ(jsonl.find("standby"), std::string::npos) << jsonl;
  EXPECT_EQ(jsonl.rfind("{\"", 0), 0u) << jsonl;
  EXPECT_NE(jsonl.find("\"hello\""), std::string::npos) << jsonl;
  EXPECT_NE(readAll(run.workdir + "/worker.log").find("run 2 (warm)"), std::string::npos);
}

}  // namespace

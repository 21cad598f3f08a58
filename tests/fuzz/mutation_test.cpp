// The deterministic fuzz test in `make test`: for every parser (fuzz_inputs.h), a few hundred
// mutants of its seeds (fuzz_seeds.h), made by a seeded mutator (mutator.h), each parsed in a
// forked child. A mutant must be accepted (exit 0) or refused with a UserError (exit 2): never
// another exception (exit 1), a signal, or a hang (20 s). Failing mutants are saved under
// build/fuzz-failures/ to reproduce with the libFuzzer targets (fuzz_target.cpp).
//
// Inputs fuzzing once found crashing are replayed too (tests/fuzz/regressions/).
// DEEPLADDER_MUTANTS=N sets the number of mutants per parser (default 300);
// DEEPLADDER_FUZZ_SEEDS_DIR=DIR writes the seeds to DIR/<parser>/ (a corpus for a campaign).
#include <ATen/Parallel.h>
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "tests/fuzz/fuzz_inputs.h"
#include "tests/fuzz/fuzz_seeds.h"
#include "tests/fuzz/mutator.h"

namespace fs = std::filesystem;
using namespace deepladder;
using namespace deepladder::fuzz;

namespace {

constexpr unsigned kHangSeconds = 20;

struct Outcome {
  int exit_code = -1;  // 0 accepted, 2 refused, 1 another exception
  int signal = 0;      // SIGALRM: a hang
  std::string message;
};

// Runs `entry` on `input` in a child process.
Outcome runIsolated(FuzzEntry entry, const std::string& input) {
  int pipe_fds[2];
  if (pipe(pipe_fds) != 0) return {-1, 0, "pipe failed"};
  const pid_t child = fork();
  if (child == 0) {
    close(pipe_fds[0]);
    alarm(kHangSeconds);
    int code = 0;
    std::string message;
    try {
      entry(reinterpret_cast<const uint8_t*>(input.data()), input.size());
    } catch (const UserError&) {
      code = 2;
    } catch (const std::exception& e) {
      code = 1;
      message = e.what();
    } catch (...) {
      code = 1;
      message = "a non-standard exception";
    }
    if (!message.empty())
      (void)!write(pipe_fds[1], message.data(), std::min<size_t>(message.size(), 2000));
    _exit(code);
  }
  close(pipe_fds[1]);
  Outcome outcome;
  char buffer[2048];
  for (ssize_t n; (n = read(pipe_fds[0], buffer, sizeof buffer)) > 0;)
    outcome.message.append(buffer, n);
  close(pipe_fds[0]);
  int status = 0;
  waitpid(child, &status, 0);
  if (WIFEXITED(status)) outcome.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) outcome.signal = WTERMSIG(status);
  return outcome;
}

int mutantsPerParser() {
  const char* env = std::getenv("DEEPLADDER_MUTANTS");
  return env ? std::max(1, std::atoi(env)) : 300;
}

void writeSeeds(const std::string& parser, const std::vector<std::string>& seeds) {
  const char* dir = std::getenv("DEEPLADDER_FUZZ_SEEDS_DIR");
  if (!dir) return;
  const fs::path out = fs::path(dir) / parser;
  fs::create_directories(out);
  for (size_t i = 0; i < seeds.size(); ++i)
    std::ofstream(out / ("seed-" + std::to_string(i)), std::ios::binary) << seeds[i];
}

class MutationTest : public ::testing::TestWithParam<FuzzParser> {
 protected:
  static void SetUpTestSuite() {
    at::set_num_threads(1);  // no thread pool before fork(): the children stay single-threaded
  }
};

}  // namespace

TEST_P(MutationTest, MutantsAreAcceptedOrRefusedNeverCrash) {
  const FuzzParser parser = GetParam();
  const std::vector<std::string> seeds = seedsFor(parser.name);
  ASSERT_FALSE(seeds.empty());
  writeSeeds(parser.name, seeds);
  for (size_t i = 0; i < seeds.size(); ++i) {
    const Outcome seed = runIsolated(parser.entry, seeds[i]);
    EXPECT_EQ(seed.exit_code, 0) << parser.name << " seed " << i << ": " << seed.message;
  }
  Mutator mutator(seeds, dictionaryFor(parser.name), /*seed=*/20240520);
  const int count = mutantsPerParser();
  int accepted = 0, refused = 0, other = 0, signals = 0, hangs = 0;
  const fs::path failures = fs::path(DEEPLADDER_BINARY_DIR) / "fuzz-failures";
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < count; ++i) {
    const std::string mutant = mutator.next();
    const Outcome outcome = runIsolated(parser.entry, mutant);
    if (outcome.exit_code == 0)
      ++accepted;
    else if (outcome.exit_code == 2)
      ++refused;
    else if (outcome.signal == SIGALRM)
      ++hangs;
    else if (outcome.signal != 0)
      ++signals;
    else
      ++other;
    if (outcome.exit_code == 0 || outcome.exit_code == 2) continue;
    fs::create_directories(failures);
    const fs::path saved = failures / (std::string(parser.name) + "-" + std::to_string(i));
    std::ofstream(saved, std::ios::binary) << mutant;
    ADD_FAILURE() << parser.name << " mutant " << i << " (saved as " << saved.string() << "): "
                  << (outcome.signal ? "signal " + std::to_string(outcome.signal)
                                     : "exit " + std::to_string(outcome.exit_code))
                  << " " << outcome.message.substr(0, 300);
  }
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[ mutants  ] %s: %d mutants, %d accepted, %d refused (exit 2), %d other errors, "
      "%d signals, %d hangs, %.1f s\n",
      parser.name, count, accepted, refused, other, signals, hangs, seconds);
}

// Inputs that fuzzing once found crashing, and hand-written inputs at each parser's edges
// (tests/fuzz/regressions/<parser>/, see its README). Every parser has some: none is skipped.
TEST_P(MutationTest, InputsFoundByFuzzingAreAcceptedOrRefused) {
  const FuzzParser parser = GetParam();
  const fs::path dir =
      fs::path(DEEPLADDER_SOURCE_DIR) / "tests" / "fuzz" / "regressions" / parser.name;
  ASSERT_TRUE(fs::is_directory(dir)) << "no regression inputs for " << parser.name << " in " << dir;
  int replayed = 0;
  for (const auto& entry : fs::directory_iterator(dir)) {
    ++replayed;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string input((std::istreambuf_iterator<char>(in)), {});
    const Outcome outcome = runIsolated(parser.entry, input);
    EXPECT_TRUE(outcome.exit_code == 0 || outcome.exit_code == 2)
        << entry.path() << ": exit " << outcome.exit_code << ", signal " << outcome.signal << " "
        << outcome.message;
  }
  EXPECT_GT(replayed, 0) << dir << " is empty";
}

INSTANTIATE_TEST_SUITE_P(Parsers, MutationTest, ::testing::ValuesIn(fuzzParsers()),
                         [](const ::testing::TestParamInfo<FuzzParser>& info) {
                           return std::string(info.param.name);
                         });

// Child processes: stdout arrives line by line, exits and kills are reported, env is passed.
#include "core/worker_process.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <string>
#include <vector>

#include "core/terminal_progress.h"

using namespace deepladder;

TEST(WorkerProcess, ReadsLinesAndExitStatus) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "echo one; printf 'two\\nthree'; echo \"$DL_X\" >&2; exit 3"};
  spec.env["DL_X"] = "passed";
  WorkerProcess p(spec);
  std::vector<std::string> lines;
  ProcessExit e = p.runToEnd([&](const std::string& l) { lines.push_back(l); });
  EXPECT_EQ(lines, (std::vector<std::string>{"one", "two", "three"}));
  EXPECT_TRUE(e.exited);
  EXPECT_EQ(e.code, 3);
  EXPECT_EQ(e.describe(), "exit status 3");
}

TEST(WorkerProcess, KillReachesTheProcessGroup) {
  ProcessSpec spec;
  spec.argv = {"/bin/sh", "-c", "sleep 30 & sleep 30; echo never"};
  WorkerProcess p(spec);
  p.terminate(SIGKILL);
  std::vector<std::string> lines;
  ProcessExit e = p.runToEnd([&](const std::string& l) { lines.push_back(l); });
  EXPECT_FALSE(e.exited);
  EXPECT_EQ(e.signal, SIGKILL);
  EXPECT_TRUE(lines.empty());
}

TEST(WorkerProcess, MissingProgramExits127) {
  ProcessSpec spec;
  spec.argv = {"/nonexistent/deepladder-worker"};
  spec.stderr_path = "/dev/null";
  WorkerProcess p(spec);
  ProcessExit e = p.runToEnd([](const std::string&) {});
  EXPECT_EQ(e.code, 127);
}

TEST(TerminalProgress, FormatsDurationsAndLine) {
  EXPECT_EQ(formatDuration(42), "42s");
  EXPECT_EQ(formatDuration(185), "3m05s");
  EXPECT_EQ(formatDuration(3720), "1h02m");
  EXPECT_EQ(formatDuration(-1), "-");
  ProgressState s;
  s.label = "tiny";
  s.step = 50;
  s.total_steps = 100;
  s.tokens_per_s = 12345;
  s.train_loss = 2.5;
  s.elapsed_s = 10;
  const std::string line = formatProgressLine(s, 10);
  EXPECT_NE(line.find("[#####.....]"), std::string::npos) << line;
  EXPECT_NE(line.find("step 50/100"), std::string::npos) << line;
  EXPECT_NE(line.find("loss 2.5000"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA 10s"), std::string::npos) << line;
}

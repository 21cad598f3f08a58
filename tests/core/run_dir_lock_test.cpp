// Orphan-proof workers: the run directory lock (one holder at a time, its pid verified through
// /proc, a stale holder stopped), and children that die with the process that started them, even
// when that process is killed with SIGKILL.
#include "core/run_dir_lock.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/worker_process.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

class RunDirLockTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-lock-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// True when `pid` has ended (gone, or a zombie nobody reaped yet).
bool ended(pid_t pid) {
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(stat, text)) return true;
  const size_t close = text.rfind(')');
  return close != std::string::npos && close + 2 < text.size() && text[close + 2] == 'Z';
}

bool endsWithin(pid_t pid, double seconds) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < deadline) {
    if (ended(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return ended(pid);
}

}  // namespace

TEST_F(RunDirLockTest, OneHolderAtATime) {
  EXPECT_FALSE(lockHolder(dir_, kWorkerLockName));
  {
    auto lock = RunDirLock::acquire(dir_, kWorkerLockName, 0);
    ASSERT_TRUE(lock);
    bool verified = false;
    EXPECT_EQ(lockHolder(dir_, kWorkerLockName, &verified), getpid());
    EXPECT_TRUE(verified);
    EXPECT_FALSE(RunDirLock::acquire(dir_, kWorkerLockName, 0.2)) << "a second holder got in";
    EXPECT_TRUE(RunDirLock::acquire(dir_, kOwnerLockName, 0)) << "the locks are independent";
  }
  EXPECT_FALSE(lockHolder(dir_, kWorkerLockName)) << "released with its holder";
  EXPECT_TRUE(RunDirLock::acquire(dir_, kWorkerLockName, 0));
}

TEST_F(RunDirLockTest, MissingDirectoryIsAnError) {
  EXPECT_THROW(RunDirLock::acquire((dir_ / "gone").string(), kWorkerLockName, 0),
               std::runtime_error);
  EXPECT_FALSE(lockHolder((dir_ / "gone").string(), kWorkerLockName));
}

TEST_F(RunDirLockTest, AStaleHolderIsStoppedAndTheLockIsFreed) {
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = RunDirLock::acquire(dir_, kWorkerLockName, 0);
    ::pause();  // a worker left over from a dead scheduler
    _exit(0);
  }
  while (!lockHolder(dir_, kWorkerLockName))
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  bool verified = false;
  EXPECT_EQ(lockHolder(dir_, kWorkerLockName, &verified), child);
  EXPECT_TRUE(verified);
  EXPECT_TRUE(stopLockHolder(dir_, kWorkerLockName, 5, 10));
  int status = 0;
  ASSERT_EQ(waitpid(child, &status, 0), child);
  EXPECT_TRUE(WIFSIGNALED(status)) << "the holder should have been signalled";
  EXPECT_TRUE(RunDirLock::acquire(dir_, kWorkerLockName, 0));
}

TEST_F(RunDirLockTest, AnUnverifiedPidIsNeverSignalled) {
  // The holder's file names another process (this test): that one does not hold the lock file,
  // so nobody is signalled; the lock stays held and stopLockHolder says so.
  const pid_t test = getpid();
  const pid_t child = fork();
  ASSERT_GE(child, 0);
  if (child == 0) {
    auto lock = RunDirLock::acquire(dir_, kWorkerLockName, 0);
    std::ofstream(dir_ / kWorkerLockName) << test << "\n";
    ::pause();
    _exit(0);
  }
  bool verified = true;
  while (lockHolder(dir_, kWorkerLockName, &verified) != test)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_FALSE(verified);
  EXPECT_FALSE(stopLockHolder(dir_, kWorkerLockName, 0.1, 0.5));
  EXPECT_FALSE(ended(child));
  ::kill(child, SIGKILL);
  waitpid(child, nullptr, 0);
}

TEST_F(RunDirLockTest, ChildrenDieWithTheirParentEvenUnderKillNine) {
  int pipe_fds[2];
  ASSERT_EQ(pipe(pipe_fds), 0);
  const pid_t parent = fork();
  ASSERT_GE(parent, 0);
  if (parent == 0) {  // a scheduler: starts a long worker, then is killed
    ProcessSpec spec;
    spec.argv = {"/bin/sleep", "300"};
    WorkerProcess worker(spec);
    const pid_t pid = worker.pid();
    (void)!write(pipe_fds[1], &pid, sizeof pid);
    ::pause();
    _exit(0);
  }
  pid_t worker = -1;
  ASSERT_EQ(read(pipe_fds[0], &worker, sizeof worker), static_cast<ssize_t>(sizeof worker));
  close(pipe_fds[0]);
  close(pipe_fds[1]);
  ASSERT_FALSE(ended(worker));
  ASSERT_EQ(::kill(parent, SIGKILL), 0);
  waitpid(parent, nullptr, 0);
  EXPECT_TRUE(endsWithin(worker, 5)) << "the worker outlived its killed parent";
  if (!ended(worker)) ::kill(worker, SIGKILL);
}

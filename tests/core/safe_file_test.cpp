// Files where a regular file belongs (core/safe_file.h): a link is refused and its target left
// alone (a run's lock file, its logs), a FIFO or device is refused at once instead of blocking,
// and an output is renamed into place only when written whole (a write error leaves the old file
// and no temporary).
#include "core/safe_file.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "core/errors.h"
#include "core/run_dir_lock.h"
#include "core/worker_process.h"

namespace fs = std::filesystem;
using namespace deepladder;

namespace {

class SafeFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char pattern[] = "/tmp/deepladder-safe-file-XXXXXX";
    dir_ = mkdtemp(pattern);
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string read(const std::string& name) const {
    std::ifstream in(path(name));
    return std::string((std::istreambuf_iterator<char>(in)), {});
  }
  fs::path dir_;
};

TEST_F(SafeFileTest, LinkedLockFileIsRefusedAndItsTargetKept) {
  std::ofstream(path("precious.txt")) << "keep me\n";
  fs::create_directories(path("run"));
  fs::create_symlink(path("precious.txt"), path("run/worker.lock"));
  EXPECT_THROW(RunDirLock::acquire(path("run"), kWorkerLockName, 0), UserError);
  EXPECT_EQ(read("precious.txt"), "keep me\n");
  EXPECT_FALSE(lockHolder(path("run"), kWorkerLockName).has_value());
}

TEST_F(SafeFileTest, LinkedWorkerLogsAreNotAppendedTo) {
  std::ofstream(path("precious.txt")) << "keep me\n";
  fs::create_symlink(path("precious.txt"), path("worker.log"));
  ProcessSpec spec;
  spec.argv = {"/bin/true"};
  spec.stderr_path = path("worker.log");
  EXPECT_THROW(WorkerProcess process(spec), UserError);
  spec.stderr_path.clear();
  spec.stdout_copy_path = path("worker.log");
  EXPECT_THROW(WorkerProcess process(spec), UserError);
  EXPECT_EQ(read("precious.txt"), "keep me\n");
}

TEST_F(SafeFileTest, RunDirectoryThatIsALinkIsRefused) {
  fs::create_directories(path("elsewhere"));
  fs::create_directory_symlink(path("elsewhere"), path("run"));
  EXPECT_THROW(requireRealDirectory(path("run"), "the run directory"), UserError);
  fs::create_directories(path("real"));
  EXPECT_NO_THROW(requireRealDirectory(path("real"), "the run directory"));
}

TEST_F(SafeFileTest, FifoAndDeviceAreRefusedWithoutBlocking) {
  ASSERT_EQ(::mkfifo(path("fifo").c_str(), 0644), 0);
  const auto start = std::chrono::steady_clock::now();
  try {
    openRegularFile(path("fifo"), O_RDONLY, "the data");
    ADD_FAILURE() << "a FIFO was opened";
  } catch (const UserError& e) {
    EXPECT_NE(std::string(e.what()).find("FIFO"), std::string::npos) << e.what();
  }
  EXPECT_THROW(openRegularFile("/dev/zero", O_RDONLY, "the data"), UserError);
  EXPECT_THROW(openRegularFile(path("fifo"), O_WRONLY | O_APPEND, "the log"), UserError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(5));
  EXPECT_NE(notRegularFileProblem(path("fifo")).find("FIFO"), std::string::npos);
  EXPECT_EQ(notRegularFileProblem(path("missing")), "does not exist");
}

TEST_F(SafeFileTest, AtomicOutputReplacesWholeOrNotAtAll) {
  writeFileAtomically(path("out.md"), "first\n", "the table");
  EXPECT_EQ(read("out.md"), "first\n");
  writeFileAtomically(path("out.md"), "second\n", "the table");
  EXPECT_EQ(read("out.md"), "second\n");
  {
    AtomicOutputFile out(path("out.md"), "the table");
    out.write("never committed");
    EXPECT_NE(out.writePath(), path("out.md"));
    EXPECT_NE(out.writePath().find(".md"), std::string::npos) << "the extension is kept";
  }
  EXPECT_EQ(read("out.md"), "second\n");
  int entries = 0;
  for (const auto& entry : fs::directory_iterator(dir_)) entries += entry.is_regular_file();
  EXPECT_EQ(entries, 1) << "a temporary was left behind";
  EXPECT_THROW(writeFileAtomically("/dev/full", "x", "the table"), UserError);
  EXPECT_THROW(writeFileAtomically(path("no-such-folder/out.md"), "x", "the table"), UserError);
  EXPECT_THROW(writeFileAtomically(dir_.string(), "x", "the table"), UserError);
  fs::create_symlink(path("out.md"), path("link.md"));
  EXPECT_THROW(writeFileAtomically(path("link.md"), "x", "the table"), UserError);
  EXPECT_EQ(read("out.md"), "second\n");
}

TEST_F(SafeFileTest, OutputsRefuseTheirInputsAndAnythingInsideAWorkDirectory) {
  std::ofstream(path("runs.db")) << "database\n";
  fs::create_directories(path("work/ladder/run"));
  std::ofstream(path("work/ladder/run/ckpt-10.pt")) << "checkpoint\n";
  ASSERT_EQ(::link(path("runs.db").c_str(), path("alias.md").c_str()), 0);
  ProtectedPaths inputs;
  inputs.addDatabase(path("runs.db"));
  inputs.addDirectory(path("work"), "the work directory");
  auto refused = [&](const std::string& out, const std::string& says) {
    const std::string problem = outputPathProblem(out, inputs);
    EXPECT_NE(problem.find(says), std::string::npos) << out << ": " << problem;
  };
  refused(path("runs.db"), "the database");
  refused(path("./work/../runs.db"), "the database");     // another spelling
  refused(path("alias.md"), "the database");              // a hard link: same inode
  refused(path("runs.db-wal"), "write-ahead log");        // not there yet: by its path
  refused(path("work/ladder/run/ckpt-10.pt"), "inside");  // a checkpoint
  refused(path("work/new-folder/table.md"), "inside");    // below, though not there yet
  refused("", "empty");
  refused("/dev/null", "character device");
  refused(path("work"), "directory");
  refused(path(std::string(300, 'x')), "longer than the system allows for one name");
  std::string deep;
  for (int i = 0; i < 21; ++i) deep += std::string(200, 'd') + "/";
  refused(path(deep + "t.md"), "longer than the system allows for a path");
  EXPECT_EQ(outputPathProblem(path("table.md"), inputs), "");
  EXPECT_EQ(outputPathProblem(path("workshop/table.md"), inputs), "") << "a prefix, not inside";
  // The writer checks before it creates anything: the database and the checkpoint are kept.
  EXPECT_THROW(writeFileAtomically(path("runs.db"), "x", "the table", inputs), UserError);
  EXPECT_THROW(writeFileAtomically(path("work/ladder/run/ckpt-10.pt"), "x", "t", inputs),
               UserError);
  EXPECT_EQ(read("runs.db"), "database\n");
  EXPECT_EQ(read("work/ladder/run/ckpt-10.pt"), "checkpoint\n");
  EXPECT_FALSE(fs::exists(path("runs.db-wal")));
}

TEST_F(SafeFileTest, AnOutputWithALongNameGetsAShortEnoughTemporary) {
  const std::string name = std::string(250, 'n') + ".md";  // 253 bytes: the limit is 255
  writeFileAtomically(path(name), "whole\n", "the table");
  EXPECT_EQ(read(name), "whole\n");
}

}  // namespace

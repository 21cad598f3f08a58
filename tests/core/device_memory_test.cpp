// The device memory a local slot gives a run (core/scheduler/device_memory.h): CPU slots share
// the machine's memory, GPU slots get the smallest chosen GPU (nvidia-smi, faked here), Slurm
// and an explicit resources.device_memory_gb take precedence or leave it unknown.
#include "core/scheduler/device_memory.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <string>

namespace deepladder::scheduler {
namespace {

double memTotalBytes() {
  std::ifstream in("/proc/meminfo");
  std::string key, unit;
  double kib = 0;
  while (in >> key >> kib >> unit)
    if (key == "MemTotal:") return kib * 1024.0;
  return 0;
}

// Sets an environment variable for the scope of a test.
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) { setenv(name, value, 1); }
  ~ScopedEnv() { unsetenv(name_); }

 private:
  const char* name_;
};

TEST(DeviceMemory, CpuSlotsShareTheMachinesMemory) {
  ladder::Resources r;
  r.devices = "cpu";
  r.slots = 2;
  const ladder::DeviceBudget budget = localDeviceMemory(r);
  ASSERT_GT(memTotalBytes(), 0);
  EXPECT_DOUBLE_EQ(budget.bytes, memTotalBytes() / 2);
  EXPECT_NE(budget.source.find("2 CPU slots"), std::string::npos) << budget.source;
}

TEST(DeviceMemory, GpuSlotsGetTheSmallestChosenGpu) {
  ScopedEnv gpus("DEEPLADDER_FAKE_GPUS", "0,1,2");
  ScopedEnv memory("DEEPLADDER_FAKE_GPU_MEMORY_MB", "81559,40960,81559");
  ladder::Resources r;
  r.devices = "0,2";
  EXPECT_DOUBLE_EQ(localDeviceMemory(r).bytes, 81559.0 * 1024 * 1024);
  r.devices = "auto";
  const ladder::DeviceBudget all = localDeviceMemory(r);
  EXPECT_DOUBLE_EQ(all.bytes, 40960.0 * 1024 * 1024);
  EXPECT_NE(all.source.find("nvidia-smi"), std::string::npos) << all.source;
}

TEST(DeviceMemory, AGpuNvidiaSmiDoesNotReportIsUnknown) {
  ScopedEnv gpus("DEEPLADDER_FAKE_GPUS", "0,1");
  ScopedEnv memory("DEEPLADDER_FAKE_GPU_MEMORY_MB", "81559");
  ladder::Resources r;
  r.devices = "auto";
  EXPECT_EQ(localDeviceMemory(r).bytes, 0);
}

TEST(DeviceMemory, SlurmIsUnknownAndTheLaddersOwnSizeWins) {
  ladder::Resources r;
  r.backend = "slurm";
  EXPECT_EQ(localDeviceMemory(r).bytes, 0);
  EXPECT_EQ(deviceBudgetFor(r).bytes, 0);
  r.device_memory_gb = 80;
  EXPECT_DOUBLE_EQ(deviceBudgetFor(r).bytes, 80e9);
  EXPECT_NE(deviceBudgetFor(r).source.find("device_memory_gb"), std::string::npos);
}

}  // namespace
}  // namespace deepladder::scheduler

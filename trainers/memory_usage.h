// What a training process actually holds, measured the way the memory plan (core/memory_model.h)
// counts it: on CUDA the caching allocator's peak of allocated bytes (torch.cuda's
// max_memory_allocated), on the CPU the process's peak resident set (getrusage's ru_maxrss).
// The worker reports it as the metric value "peak_memory_gb" (decimal GB, as `plan --json`'s
// peak_memory_gb) on its progress lines and once more before its done line.
//
// On the CPU the resident set follows the live tensors only if freed buffers go back to the
// system: glibc's malloc serves blocks below its mmap threshold from heaps that keep freed memory,
// and by default it raises that threshold (up to 32 MiB) each time a larger mmapped block is freed,
// so after the first step every activation comes from a heap whose high-water mark, with the
// fragmentation of many short-lived buffers, exceeds the live peak (memory_bench's twelve runs
// peaked well above the live bytes).
// useReturningCpuAllocator() fixes the threshold at 64 KiB (every tensor of 64 KiB or more is its
// own mapping, unmapped when freed) and trims the heap top beyond 1 MiB, so the peak RSS is the
// peak of live bytes plus the runtime. The cost is an mmap, a munmap and a page fault per 4 KiB
// for every fresh tensor, which slows training several-fold (memory_bench), so it is opt-in: the
// worker calls it only when DEEPLADDER_RETURN_FREED_MEMORY=1 (memory_bench sets it to measure what
// the plan counts) and the environment does not set glibc's own tunables (MALLOC_MMAP_THRESHOLD_,
// MALLOC_TRIM_THRESHOLD_ or GLIBC_TUNABLES).
#pragma once

#include <torch/torch.h>

namespace deepladder::trainers {

// Sets glibc's mmap and trim thresholds as described above when DEEPLADDER_RETURN_FREED_MEMORY=1;
// returns false where it is not asked for, the environment sets glibc's tunables (nothing
// changed) or the C library is not glibc.
bool useReturningCpuAllocator();

// Peak bytes so far of `device`: CUDA max allocated (in builds against a CUDA LibTorch, 0
// otherwise), or the peak resident set of this process for the CPU.
double peakMemoryBytes(const torch::Device& device);

}  // namespace deepladder::trainers

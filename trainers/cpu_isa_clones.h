// DEEPLADDER_ISA_CLONES: put on a plain function holding a fused CPU kernel's inner loop, it
// compiles the function once per x86-64 level (v4: AVX-512, v3: AVX2 + FMA, and the build's
// baseline) and picks the best the running CPU supports when the program loads (GCC's
// target_clones, an ifunc). The build targets the baseline ISA, so without it those loops run
// on 4-wide SSE while LibTorch's own kernels dispatch to AVX2/AVX-512 at run time. Empty for
// other compilers (GCC before 12 has no x86-64-v3/v4 clones) and architectures: the function is
// then compiled once, as before. Results differ only by FMA contraction (fp32 rounding).
#pragma once

#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 12 && defined(__x86_64__) && \
    defined(__linux__)
#define DEEPLADDER_ISA_CLONES \
  __attribute__((target_clones("arch=x86-64-v4", "arch=x86-64-v3", "default")))
#else
#define DEEPLADDER_ISA_CLONES
#endif

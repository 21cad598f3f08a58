// One libFuzzer target per parser: this file compiled once per entry of fuzz_inputs.h, with
// DEEPLADDER_FUZZ_ENTRY naming it (tests/fuzz/CMakeLists.txt, DEEPLADDER_FUZZ=ON, clang only).
// A UserError is a clean refusal; any other exception escapes and libFuzzer reports it, as it
// does crashes, sanitizer findings, timeouts and leaks.
#include <cstddef>
#include <cstdint>

#include "core/errors.h"
#include "tests/fuzz/fuzz_inputs.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  try {
    deepladder::fuzz::DEEPLADDER_FUZZ_ENTRY(data, size);
  } catch (const deepladder::UserError&) {
  }
  return 0;
}

// A vectorizable float32 exp for the fused CPU kernels' inner loops. Cephes' expf scheme (round
// x log2(e) to n, a degree-6 polynomial on the remainder, times 2^n built in the exponent bits),
// written without branches or library calls so the compiler vectorizes the calling loop. Relative
// error about 2 ulp on [-87, 88]; inputs below -87 give ~1e-38 instead of a smaller number
// (softmax terms that small do not change a float32 sum), +inf gives e^88. NaN (the scores of a
// diverged run) comes back out as NaN without reaching the integer conversion, where it would be
// undefined behaviour.
#pragma once

#include <cstdint>
#include <cstring>

namespace deepladder::trainers {

inline float expFinite(float in) {
  const bool is_nan = in != in;
  float x = is_nan ? 0.0f : in;  // selects, no branch
  x = x < -87.0f ? -87.0f : x;
  x = x > 88.0f ? 88.0f : x;
  const float shifter = 12582912.0f;  // 1.5 x 2^23: adding it rounds to an integer
  const float t = x * 1.44269504088896341f + shifter;
  const float n = t - shifter;                                  // round(x / ln 2)
  const float r = (x - n * 0.693359375f) + n * 2.12194440e-4f;  // x - n ln 2, two-part ln 2
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  p = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(n) + 127) << 23;  // 2^n
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  return is_nan ? in : p * scale;
}

}  // namespace deepladder::trainers

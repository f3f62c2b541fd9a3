// Random numbers for the path tracer. Every (seed, pixel, sample) triple gets its own PCG32 stream,
// so an image is the same bit for bit whatever the thread count or the order pixels are visited.
#pragma once
#include <cstdint>

namespace vx::samples {

// SplitMix64 finaliser: a strong 64-bit mix used to derive independent stream seeds.
constexpr uint64_t mix64(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

// PCG32 (O'Neill 2014): 64-bit state, 32-bit output, XSH-RR permutation.
class Rng {
 public:
  Rng(uint64_t seed, uint64_t pixel, uint64_t sample) {
    uint64_t s = mix64(mix64(mix64(seed) ^ pixel) ^ (sample * 0xD1B54A32D192ED03ull));
    inc_ = (mix64(s ^ 0x5851F42D4C957F2Dull) << 1) | 1u;
    state_ = 0;
    next_u32();
    state_ += s;
    next_u32();
  }

  uint32_t next_u32() {
    uint64_t old = state_;
    state_ = old * 6364136223846793005ull + inc_;
    uint32_t xorshifted = uint32_t(((old >> 18u) ^ old) >> 27u);
    uint32_t rot = uint32_t(old >> 59u);
    return (xorshifted >> rot) | (xorshifted << ((32 - rot) & 31));
  }
  // Uniform in [0, 1): 24 random mantissa bits, never 1.0f.
  float uniform() { return float(next_u32() >> 8) * 0x1.0p-24f; }

 private:
  uint64_t state_ = 0, inc_ = 1;
};

}  // namespace vx::samples

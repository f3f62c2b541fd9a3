// IEEE 754 binary16 <-> binary32 conversion, bit-exact, round-to-nearest-even. Portable (no
// _Float16), so the CPU reference and file readers behave the same on every compiler.
#pragma once
#include <cstdint>
#include <cstring>

namespace vx {

inline float half_to_float(uint16_t h) {
  uint32_t sign = uint32_t(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1Fu;
  uint32_t mantissa = h & 0x3FFu;
  uint32_t bits;
  if (exponent == 0) {
    if (mantissa == 0) {
      bits = sign;
    } else {  // subnormal: normalise
      int e = -1;
      do {
        ++e;
        mantissa <<= 1;
      } while ((mantissa & 0x400u) == 0);
      bits = sign | uint32_t(127 - 15 - e) << 23 | (mantissa & 0x3FFu) << 13;
    }
  } else if (exponent == 31) {
    bits = sign | 0x7F800000u | mantissa << 13;  // inf or NaN
  } else {
    bits = sign | (exponent + 127 - 15) << 23 | mantissa << 13;
  }
  float f;
  std::memcpy(&f, &bits, 4);
  return f;
}

inline uint16_t float_to_half(float f) {
  uint32_t x;
  std::memcpy(&x, &f, 4);
  uint32_t sign = (x >> 16) & 0x8000u;
  uint32_t abs = x & 0x7FFFFFFFu;
  if (abs >= 0x7F800000u) {  // inf or NaN (keep NaN quiet)
    return uint16_t(sign | 0x7C00u | (abs > 0x7F800000u ? 0x200u | ((abs >> 13) & 0x3FFu) : 0u));
  }
  if (abs >= 0x477FF000u) return uint16_t(sign | 0x7C00u);  // rounds to >= 65520: overflow to inf
  if (abs < 0x38800000u) {                                  // result is subnormal or zero
    if (abs < 0x33000000u) return uint16_t(sign);           // below half of the smallest subnormal
    uint32_t exponent = abs >> 23;
    uint32_t mantissa = (abs & 0x7FFFFFu) | 0x800000u;
    uint32_t shift = 126 - exponent;  // 14 + (113 - exponent) - 1 ... so that the result has 10 bits
    uint32_t result = mantissa >> (shift - 0);
    uint32_t rest = mantissa & ((1u << shift) - 1);
    uint32_t halfway = 1u << (shift - 1);
    if (rest > halfway || (rest == halfway && (result & 1u))) ++result;
    return uint16_t(sign | result);
  }
  uint32_t result = ((abs - 0x38000000u) >> 13);  // rebias exponent 127 -> 15
  uint32_t rest = abs & 0x1FFFu;
  if (rest > 0x1000u || (rest == 0x1000u && (result & 1u))) ++result;
  return uint16_t(sign | result);
}

}  // namespace vx

// round_quotient(x, s) = roundEven(x / s) as the CPU reference computes it: an fp32 quotient
// correctly rounded, then round half to even. Vulkan lets a division be 2.5 ULP off (NVIDIA's is),
// so a quotient just beside a half, such as -127.49999, can come out as -127.5 and round the other
// way (ONNX's DynamicQuantizeLinear case did). Far from a half the approximate quotient decides;
// near a half b, the residual t = x - b*s is computed exactly (b*s split into p + e by Dekker's
// product: Vulkan's fp32 adds and multiplies are correctly rounded, `precise` keeps them unfused).
// The fp32 quotient is b itself when |t| / |s| is within half of b's ULP (common with decimal
// operands: 0.35f / 0.1f is 3.5f), and then rounds to even; else t's sign gives the side.

// Veltkamp's split: a = hi + lo exactly, hi with 12 significant bits.
float round_quotient_split(float a, out float lo) {
  precise float c = 4097.0 * a;
  precise float hi = c - (c - a);
  precise float l = a - hi;
  lo = l;
  return hi;
}

float round_quotient(float x, float s) {
  float q = x / s;
  if (!(abs(q) < 8388608.0)) return roundEven(q);  // |q| >= 2^23 is an integer already; inf, NaN
  float b = floor(q) + 0.5;  // the half nearest q
  if (abs(q - b) > 16.0 * 1.1920929e-7 * max(abs(b), 1.0)) return roundEven(q);
  float b_lo, s_lo;
  float b_hi = round_quotient_split(b, b_lo), s_hi = round_quotient_split(s, s_lo);
  precise float p = b * s;
  precise float e = ((b_hi * s_hi - p) + b_hi * s_lo + b_lo * s_hi) + b_lo * s_lo;  // b*s - p
  precise float t = (x - p) - e;                                                     // x - b*s
  int exponent;
  frexp(b, exponent);  // |b| in [2^(exponent-1), 2^exponent): its ULP is 2^(exponent-24)
  if (abs(t) <= ldexp(abs(s), exponent - 25)) return roundEven(b);
  return (t > 0.0) == (s > 0.0) ? b + 0.5 : b - 0.5;
}

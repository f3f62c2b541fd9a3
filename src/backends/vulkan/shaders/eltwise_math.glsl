// Shared by the element-wise shaders: integer wrapping and saturation as the CPU's conversions do,
// and float helpers with the accuracy the CPU reference has (GLSL has no erf or expm1, and its
// tanh / exp overflow for large arguments on some drivers).
// Integer outputs narrower than int32 wrap as C++ conversions do: 1 = uint8, 2 = int8.
int wrap_int(int v, int wrap) {
  if (wrap == 1) return v & 0xFF;
  if (wrap == 2) return (v << 24) >> 24;
  return v;
}

// float -> int32 saturating (NaN -> 0), as the CPU's saturate_from_double.
int saturate_int(float v) {
  if (isnan(v)) return 0;
  if (v >= 2147483520.0) return 2147483647;
  if (v <= -2147483648.0) return -2147483647 - 1;
  return int(v);
}

float expm1_accurate(float x) {
  if (abs(x) < 0.1) {
    // Taylor series: exp(x) - 1 loses all relative precision near 0.
    float x2 = x * x;
    return x + x2 * (0.5 + x * (1.0 / 6.0 + x * (1.0 / 24.0 + x * (1.0 / 120.0 + x * (1.0 / 720.0)))));
  }
  return exp(x) - 1.0;
}

// erf with a fixed instruction count (a data-dependent series loop made Erf and GELU compute-bound):
// two minimax approximations (N. Juffa's erff), max error about 1 ulp in fp32 (6e-8 absolute).
float erf_accurate(float x) {
  float t = abs(x), s = x * x, r;
  if (t > 0.927734375) {
    r = fma(-1.72853470e-5, t, 3.83197126e-4);
    float u = fma(-3.88396438e-3, t, 2.42546219e-2);
    r = fma(r, s, u);
    r = fma(r, t, -1.06777877e-1);
    r = fma(r, t, -6.34846687e-1);
    r = fma(r, t, -1.28717512e-1);
    r = fma(r, t, -t);
    r = 1.0 - exp(r);
    return x < 0.0 ? -r : r;
  }
  r = -5.96761703e-4;
  r = fma(r, s, 4.99119423e-3);
  r = fma(r, s, -2.67681349e-2);
  r = fma(r, s, 1.12819925e-1);
  r = fma(r, s, -3.76125336e-1);
  r = fma(r, s, 1.28379166e-1);
  return fma(r, x, x);
}

float tanh_stable(float x) {
  float a = abs(x);
  if (a < 0.1) {  // series: (1 - e) / (1 + e) loses relative precision near 0
    float x2 = x * x;
    return x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
  }
  float e = exp(-2.0 * a);
  return sign(x) * (1.0 - e) / (1.0 + e);
}

float sigmoid_stable(float x) {
  if (x >= 0.0) return 1.0 / (1.0 + exp(-x));
  float e = exp(x);
  return e / (1.0 + e);
}

float log1p_accurate(float x) {
  if (abs(x) < 1e-3) return x * (1.0 - x * (0.5 - x * (1.0 / 3.0)));
  return log(1.0 + x);
}

// pow with ONNX (C) semantics: negative bases with integer exponents, exact small integer powers.
float pow_onnx(float x, float y) {
  if (isnan(x) || isnan(y)) return x == 1.0 ? 1.0 : (y == 0.0 ? 1.0 : x + y);
  if (y == 0.0) return 1.0;
  bool integral = floor(y) == y;
  if (integral && abs(y) <= 64.0) {
    int n = int(abs(y));
    float base = x, r = 1.0;
    while (n > 0) {
      if ((n & 1) != 0) r *= base;
      base *= base;
      n >>= 1;
    }
    return y < 0.0 ? 1.0 / r : r;
  }
  if (x == 0.0) return y > 0.0 ? 0.0 : uintBitsToFloat(0x7F800000u);
  if (x < 0.0) {
    if (!integral) return uintBitsToFloat(0x7FC00000u);
    float r = exp2(y * log2(-x));
    return mod(y, 2.0) == 1.0 ? -r : r;
  }
  return exp2(y * log2(x));
}

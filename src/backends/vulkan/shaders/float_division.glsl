// quotient(x, y): x / y correctly rounded to fp32, as the CPU (and numpy, ONNX's reference) divide.
// Vulkan lets fp32 division be 2.5 ULP off and NVIDIA's is: a quotient beside a half, such as
// -127.49999, came out as -127.5, and Round or QuantizeLinear then went the other way (ONNX's
// DynamicQuantizeLinear cases did). The approximate quotient q is corrected once by the residual
// x - q*y, computed exactly with Dekker's product (Vulkan's fp32 adds and multiplies are correctly
// rounded; `precise` keeps them unfused): q + (x - q*y) / y. Operands beyond about 1e30, below about
// 1e-30, and non-finite quotients keep the division's own result (the split could overflow or lose
// bits there; no tensor we divide lives there).

// Veltkamp's split: a = hi + lo exactly, hi with 12 significant bits.
float float_division_split(float a, out float lo) {
  precise float c = 4097.0 * a;
  precise float hi = c - (c - a);
  precise float l = a - hi;
  lo = l;
  return hi;
}

float quotient(float x, float y) {
  float q = x / y;
  const float big = 1e30, small = 1e-30;
  if (!(abs(q) < big) || abs(x) > big || abs(y) > big || q == 0.0 || abs(x) < small || abs(y) < small ||
      abs(q) < small)
    return q;
  float q_lo, y_lo;
  float q_hi = float_division_split(q, q_lo), y_hi = float_division_split(y, y_lo);
  precise float p = q * y;
  precise float e = ((q_hi * y_hi - p) + q_hi * y_lo + q_lo * y_hi) + q_lo * y_lo;  // q*y - p
  precise float r = (x - p) - e;                                                     // x - q*y
  precise float corrected = q + r / y;
  return corrected;
}

// Shared by the scatter shaders: combining an update with the present value per the reduction
// attribute (0 none, 1 add, 2 mul, 3 max, 4 min), in int32 or fp32 arithmetic.
#if TX == 2
int combine(int a, int b, int reduction) {
  if (reduction == 1) return a + b;
  if (reduction == 2) return a * b;
  if (reduction == 3) return max(a, b);
  if (reduction == 4) return min(a, b);
  return b;
}
#else
elem_t combine(elem_t a, elem_t b, int reduction) {
  if (reduction == 0) return b;
  float x = float(a), y = float(b);
  if (reduction == 1) return elem_t(x + y);
  if (reduction == 2) return elem_t(x * y);
  if (reduction == 3) return elem_t(max(x, y));
  return elem_t(min(x, y));
}
#endif

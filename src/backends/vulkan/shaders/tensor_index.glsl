// Shared by the shaders that walk dense row-major tensors in ONNX layout (data movement, reductions):
// the rank their index loops unroll to, the invocation's index (one per element; dispatches spill
// into y past 65535 groups) and a modulo for negative coordinates.
#define kMaxRank 6

#include "linear_index.glsl"

// x mod m in [0, m) for any sign of x (GLSL's % is undefined for negative operands); m > 0.
int positive_mod(int x, int m) { return x >= 0 ? x % m : m - 1 - ((-x - 1) % m); }

// Shared by the data-movement (mv_*) and reduction (red_*) shaders. Tensors are dense row-major in
// ONNX layout. Storage types by variant:
//   FP16=1: float16_t storage (arithmetic in fp32); I32=1: int; else 32-bit (float, or raw bits
//   in the pure-copy shaders, which serve f32 and i32 tensors alike).
// One invocation per element; dispatches spill into y past 65535 groups (linear_groups() on the host).
#if FP16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define elem_t float16_t
#define move_t float16_t
#elif I32
#define elem_t int
#define move_t uint
#else
#define elem_t float
#define move_t uint
#endif

// fp32 (or int for I32) arithmetic type of the storage type.
#if I32
#define acc_t int
#else
#define acc_t float
#endif

#define kMaxRank 6

int global_index() {
  return int(gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x + gl_GlobalInvocationID.x);
}

// x mod m in [0, m) for any sign of x (GLSL's % is undefined for negative operands); m > 0.
int positive_mod(int x, int m) { return x >= 0 ? x % m : m - 1 - ((-x - 1) % m); }

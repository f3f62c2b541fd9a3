// Shared by the nn_* shaders (general ONNX ops: GEMM, Conv, pooling, normalisation). Tensors are
// dense row-major in ONNX layout; the storage type `sfp` is f32, or f16 with FP16=1; arithmetic is
// always fp32 (loads convert, stores round once).
#extension GL_EXT_control_flow_attributes : require
#if FP16
#extension GL_EXT_shader_16bit_storage : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#define sfp float16_t
#else
#define sfp float
#endif

// The largest finite fp32 value: max reductions start below every input (fp16 storage included).
#define NN_LOWEST (-3.402823466e38)

// Index of a linear dispatch (op_kernel.h linear_groups: x spills into y).
uint nn_linear_index(uint local_size) {
  return gl_GlobalInvocationID.y * (gl_NumWorkGroups.x * local_size) + gl_GlobalInvocationID.x;
}

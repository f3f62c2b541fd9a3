#version 450
// The custom-op example's Vulkan kernel (tests/parity/vulkan_custom_op_test.cpp), compiled by the
// build with glslc as a user would compile theirs: y = x * sigmoid(alpha * x), float32 storage.
// Bindings: the op's inputs then outputs; push constants from the op's launch function.
layout(local_size_x = 256) in;
layout(std430, binding = 0) readonly buffer Input { float x[]; };
layout(std430, binding = 1) writeonly buffer Output { float y[]; };
layout(push_constant) uniform Params {
  uint count;
  float alpha;
} p;

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= p.count) return;
  float v = x[i];
  y[i] = v / (1.0 + exp(-p.alpha * v));
}

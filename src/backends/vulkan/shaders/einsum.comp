#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// Einsum as one generic contraction: one invocation per output element, looping over every
// combination of the summed labels and multiplying the operands (up to 4) in fp32. The label
// table (a constant) holds the extents of all labels (output labels first) and, per operand, the
// element stride of each label (0 where broadcast; summed over repeats, which walks diagonals).
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer A0 { elem_t a0[]; };
layout(std430, binding = 1) readonly buffer A1 { elem_t a1[]; };
layout(std430, binding = 2) readonly buffer A2 { elem_t a2[]; };
layout(std430, binding = 3) readonly buffer A3 { elem_t a3[]; };
layout(std430, binding = 4) readonly buffer Table { int table[]; };  // dims[labels], strides[operands][labels]
layout(std430, binding = 5) writeonly buffer Y { elem_t y[]; };

layout(push_constant) uniform Push {
  uint count;
  int operands;
  int out_labels;
  int labels;
  uint summed;  // product of the summed labels' extents
} p;

float operand(int i, int at) {
  if (i == 0) return float(a0[at]);
  if (i == 1) return float(a1[at]);
  if (i == 2) return float(a2[at]);
  return float(a3[at]);
}

void main() {
  uint o = linear_index();
  if (o >= p.count) return;
  int base[4] = int[4](0, 0, 0, 0);
  uint rest = o;
  for (int l = p.out_labels - 1; l >= 0; --l) {
    int c = int(rest % uint(table[l]));
    rest /= uint(table[l]);
    for (int i = 0; i < p.operands; ++i) base[i] += c * table[p.labels * (1 + i) + l];
  }
  float acc = 0.0;
  for (uint s = 0u; s < p.summed; ++s) {
    int offset[4] = base;
    uint r = s;
    for (int l = p.labels - 1; l >= p.out_labels; --l) {
      int c = int(r % uint(table[l]));
      r /= uint(table[l]);
      for (int i = 0; i < p.operands; ++i) offset[i] += c * table[p.labels * (1 + i) + l];
    }
    float prod = 1.0;
    for (int i = 0; i < p.operands; ++i) prod *= operand(i, offset[i]);
    acc += prod;
  }
  y[o] = elem_t(acc);
}

#version 450
// NO_DEFAULT_VARIANT
// VARIANT b32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT b32_vec4 -DTX=0 -DVEC4=1
// VARIANT f16_vec4 -DTX=1 -DVEC4=1
// The generic strided copy: the element at coordinate c of a view of extents dims (rank <= 6)
// moves from src[src_base + sum c[d] * src_strides[d]] to dst[dst_base + sum c[d] * dst_strides[d]].
// Transpose, Slice (negative strides), Concat and Split (offset regions), Expand (zero strides),
// DepthToSpace and SpaceToDepth are all such views. Bits are copied as they are.
// VEC4 variants move groups of 4 elements (16 bytes, or 8 for f16) when the innermost axis is
// contiguous in both tensors and every offset is a multiple of 4 (strided_copy.cpp converts the
// view into units of 4): a quarter of the index arithmetic and vector loads.
#include "element_types.glsl"
#include "tensor_index.glsl"
#if VEC4
#undef move_t
#if TX == 1
#define move_t uvec2
#else
#define move_t uvec4
#endif
#endif

layout(local_size_x = 256) in;
layout(push_constant) uniform Params {
  int count, rank, src_base, dst_base;
  int dims[kMaxRank];
  int src_strides[kMaxRank];
  int dst_strides[kMaxRank];
} p;
layout(std430, binding = 0) readonly buffer Src { move_t src[]; };
layout(std430, binding = 1) writeonly buffer Dst { move_t dst[]; };

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int s = p.src_base, d = p.dst_base, rest = i;
  for (int k = p.rank - 1; k >= 0; --k) {
    int c = rest % p.dims[k];
    rest /= p.dims[k];
    s += c * p.src_strides[k];
    d += c * p.dst_strides[k];
  }
  dst[d] = src[s];
}

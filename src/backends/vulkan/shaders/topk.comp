#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// VARIANT i32 -DTX=2
// TopK along one axis by ranking: invocation (row, e) counts the row's elements that come before
// element e (by value, largest or smallest first, NaN counted greatest, then by lower index: a
// strict total order, so ranks are unique) and, when its rank is below k, writes the value and
// its index to output position `rank`. O(n) per element, no shared state; the output is sorted.
#include "element_types.glsl"
#include "tensor_index.glsl"

layout(local_size_x = 256) in;
layout(push_constant) uniform Params { int count, n, inner, k, largest; } p;
layout(std430, binding = 0) readonly buffer Src { elem_t src[]; };
layout(std430, binding = 1) writeonly buffer Values { elem_t values[]; };
layout(std430, binding = 2) writeonly buffer Indices { int indices[]; };

bool comes_before(acc_t a, int ia, acc_t b, int ib) {
#if TX != 2
  bool na = isnan(a), nb = isnan(b);
  if (na != nb) return p.largest != 0 ? na : nb;
  if (na) return ia < ib;
#endif
  if (a != b) return p.largest != 0 ? a > b : a < b;
  return ia < ib;
}

void main() {
  int i = global_index();
  if (i >= p.count) return;
  int row = i / p.n, e = i % p.n;
  int outer = row / p.inner, pos = row % p.inner;
  int base = outer * p.n * p.inner + pos;
  elem_t stored = src[base + e * p.inner];
  acc_t v = acc_t(stored);
  int rank = 0;
  for (int j = 0; j < p.n && rank < p.k; ++j)
    if (j != e && comes_before(acc_t(src[base + j * p.inner]), j, v, e)) ++rank;
  if (rank >= p.k) return;
  int at = (outer * p.k + rank) * p.inner + pos;
  values[at] = stored;
  indices[at] = e;
}

// LayerNormalization and vx.LayerNorm over the last axis: one pass per row over the thread pool
// (no oneDNN primitive). Declines extra outputs (mean, inverse std dev), other axes and dtypes.
#include <algorithm>
#include <cmath>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "ops/fused_ops.h"

namespace vx::cpu::fast {
namespace {

bool layer_norm_supports_unchecked(const Node& node, const Graph& g) {
  if (node.outputs.size() != 1 && !(node.op == "LayerNormalization" && node.outputs.size() <= 3)) return false;
  for (size_t i = 1; i < node.outputs.size(); ++i)
    if (node.outputs[i] != kNoValue) return false;  // mean / inv std dev wanted: the reference writes them
  if (!known_f32(g, node.input(0)) || !single_f32_output(node, g)) return false;
  const Shape& x = g.value(node.input(0)).shape;
  if (x.rank() == 0 || x.numel() == 0) return false;
  const int64_t rank = int64_t(x.rank());
  int64_t axis = node.attrs.get_int("axis", -1);
  if (axis < 0) axis += rank;
  if (axis != rank - 1) return false;
  const int64_t c = x[size_t(rank - 1)];
  for (size_t i : {size_t(1), size_t(2)}) {
    const ValueId id = node.input(i);
    if (id == kNoValue) {
      if (i == 1) return false;
      continue;
    }
    const Shape& p = g.value(id).shape;
    if (!known_f32(g, id) || p.numel() != c || (p.rank() > 1 && p[p.rank() - 1] != c)) return false;
  }
  return true;
}

bool layer_norm_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return layer_norm_supports_unchecked(node, g); });
}

void layer_norm_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t c = x.dim(x.rank() - 1), rows = x.numel() / c;
  const float eps = ctx.node().attrs.get_float("epsilon", 1e-5f);
  const float* scale = ctx.input(1).data<float>();
  const float* bias = ctx.has_input(2) ? ctx.input(2).data<float>() : nullptr;
  const float* in = x.data<float>();
  float* out = ctx.output(0, DType::f32, x.shape()).data<float>();
  ctx.pool().parallel_for(rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const float* row = in + r * c;
      float* y = out + r * c;
      float sum = 0.0f;
      for (int64_t i = 0; i < c; ++i) sum += row[i];
      const float mean = sum / float(c);
      float sq = 0.0f;
      for (int64_t i = 0; i < c; ++i) sq += (row[i] - mean) * (row[i] - mean);
      const float inv = 1.0f / std::sqrt(sq / float(c) + eps);
      for (int64_t i = 0; i < c; ++i) y[i] = (row[i] - mean) * inv * scale[i] + (bias ? bias[i] : 0.0f);
    }
  }, std::max<int64_t>(1, 16384 / c));
}

}  // namespace

VX_REGISTER_CPU_KERNEL(layer_norm_fast, {"LayerNormalization", "fast", 10, layer_norm_supports, layer_norm_fast});
VX_REGISTER_CPU_KERNEL(vx_layer_norm_fast, {kLayerNorm, "fast", 10, layer_norm_supports, layer_norm_fast});

}  // namespace vx::cpu::fast

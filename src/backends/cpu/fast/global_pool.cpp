// GlobalAveragePool and GlobalMaxPool, f32, rank >= 3: one contiguous row of D1*D2*... values per
// (n, c), rows spread over the thread pool. Both keep 8 partial results in SSE registers; sums add
// blocks of 1024 floats in float and the blocks in double, so long rows stay close to the
// reference's double sum. Like the reference, GlobalMaxPool skips NaNs and gives -inf for an empty
// row, GlobalAveragePool 0. Declines other dtypes and ranks below 3.
#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

constexpr int kLanes = 8;

float sum_block(const float* p, int64_t n) {
  float acc[kLanes] = {};
  int64_t i = 0;
  for (; i + kLanes <= n; i += kLanes)
    for (int k = 0; k < kLanes; ++k) acc[k] += p[i + k];
  float tail = 0.0f;
  for (; i < n; ++i) tail += p[i];
  return ((acc[0] + acc[4]) + (acc[1] + acc[5])) + ((acc[2] + acc[6]) + (acc[3] + acc[7])) + tail;
}

float row_average(const float* p, int64_t n) {
  if (n == 0) return 0.0f;
  constexpr int64_t kBlock = 1024;
  double sum = 0.0;
  for (int64_t i = 0; i < n; i += kBlock) sum += sum_block(p + i, std::min(kBlock, n - i));
  return float(sum / double(n));
}

// Four floats as one SSE register (GCC / Clang vector extension): g++ does not vectorise a float
// max loop without -ffast-math, as it may not reorder a max that must keep NaN and -0 rules.
using Float4 = float __attribute__((vector_size(16)));

Float4 load4(const float* p) {
  Float4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

float row_max(const float* p, int64_t n) {
  const Float4 lowest = Float4{} - std::numeric_limits<float>::infinity();
  Float4 a = lowest, b = lowest;
  int64_t i = 0;
  // v > best ? v : best keeps best when v is NaN, as the reference's std::max(best, v) does.
  for (; i + kLanes <= n; i += kLanes) {
    const Float4 u = load4(p + i), v = load4(p + i + 4);
    a = u > a ? u : a;
    b = v > b ? v : b;
  }
  float best = -std::numeric_limits<float>::infinity();
  for (; i < n; ++i) best = p[i] > best ? p[i] : best;
  for (int k = 0; k < 4; ++k) {
    best = a[k] > best ? a[k] : best;
    best = b[k] > best ? b[k] : best;
  }
  return best;
}

bool global_pool_supports_unchecked(const Node& node, const Graph& g) {
  const ValueId x = node.input(0);
  return x != kNoValue && g.value(x).dtype == DType::f32 && g.value(x).shape.rank() >= 3 && single_f32_output(node, g);
}

bool global_pool_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return global_pool_supports_unchecked(node, g); });
}

template <float (*Reduce)(const float*, int64_t)>
void global_pool_fast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 3, InvalidArgument, ctx.node().op, " '", ctx.node().name, "': expects N x C x D1..., got ",
           x.shape().str());
  const int64_t planes = x.dim(0) * x.dim(1), size = planes > 0 ? x.numel() / planes : 0;
  std::vector<int64_t> dims(x.rank(), 1);
  dims[0] = x.dim(0);
  dims[1] = x.dim(1);
  float* out = ctx.output(0, DType::f32, Shape(dims)).data<float>();
  const float* in = x.data<float>();
  ctx.pool().parallel_for(planes, [&](int64_t begin, int64_t end) {
    for (int64_t p = begin; p < end; ++p) out[p] = Reduce(in + p * size, size);
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, size)));
}

}  // namespace

VX_REGISTER_CPU_KERNEL(global_average_pool_fast,
                       {"GlobalAveragePool", "fast", 10, global_pool_supports, global_pool_fast<row_average>});
VX_REGISTER_CPU_KERNEL(global_max_pool_fast,
                       {"GlobalMaxPool", "fast", 10, global_pool_supports, global_pool_fast<row_max>});

}  // namespace vx::cpu::fast

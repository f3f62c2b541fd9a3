// GlobalAveragePool and GlobalMaxPool, f32, rank >= 3: one contiguous row of D1*D2*... values per
// (n, c), rows spread over the thread pool. Both keep 8 partial results in SSE registers; sums add
// blocks of 1024 floats in float and the blocks in double, so long rows stay close to the
// reference's double sum. Like the reference, GlobalMaxPool skips NaNs and gives -inf for an empty
// row, GlobalAveragePool 0. Declines other dtypes and ranks below 3.
//
// A 4-D input may also come in a oneDNN convolution's layout (cpu_layout.h: the node's
// cpu.layout_inputs): NHWC, reduced per image (or per run of 16-channel blocks of an image, when
// the pool splits one) over its pixels, or nChw16c / nChw8c, reduced per channel block the same way.
// Blocks of up to 256 pixels (16 KiB) are reduced 16 channels at a time in SSE registers (two
// partials per channel, up to 128 values each); sums add the blocks in double. The [N,C,1,1] output is the
// same bytes in every layout.
#include <algorithm>
#include <cstring>
#include <limits>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/float4.h"
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
void global_pool_planes(KernelContext& ctx) {
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

// ---- channels-last inputs (NHWC, nChw16c, nChw8c) ----

constexpr int64_t kChannelBlock = 16;   // the unit of the split over channels
constexpr int64_t kMaxChannels = 128;   // channels reduced together (results on the stack)
constexpr int64_t kPixelBlock = 256;    // at most this many rows reduced in registers, then combined
constexpr int64_t kBlockFloats = 4096;  // and at most 16 KiB of them: read once per 16 channels, from L1

// Columns [0, 4 V) of `rows` rows `stride` floats apart, reduced in registers (two partials per
// column, even and odd rows, so that the adds do not wait on each other): result[j] holds
// columns 4j .. 4j+3. Not inlined: inlined into its callers, g++ (x86-64-v2, 16 SSE registers)
// spilled one of the 8 partials to the stack, halving the speed.
template <int V, class Op>
__attribute__((noinline)) void reduce_columns(const float* in, int64_t rows, int64_t stride, float init, Op op,
                                              Float4* result) {
  const Float4 start = Float4{} + init;
  Float4 even[V], odd[V];
  for (int j = 0; j < V; ++j) even[j] = odd[j] = start;
  int64_t r = 0;
  for (; r + 2 <= rows; r += 2) {
    const float* row = in + r * stride;
    for (int j = 0; j < V; ++j) {
      even[j] = op(even[j], load4(row + 4 * j));
      odd[j] = op(odd[j], load4(row + stride + 4 * j));
    }
  }
  if (r < rows)
    for (int j = 0; j < V; ++j) even[j] = op(even[j], load4(in + r * stride + 4 * j));
  for (int j = 0; j < V; ++j) result[j] = op(even[j], odd[j]);
}

// result[c] = op over the rows of in[row * stride + c], for c < channels (<= kMaxChannels): 16
// channels at a time, then 4, then one.
template <class Op>
void reduce_block(const float* in, int64_t rows, int64_t stride, int64_t channels, float init, Op op, float* result) {
  Float4 v[4];
  int64_t c = 0;
  for (; c + 16 <= channels; c += 16) {
    reduce_columns<4>(in + c, rows, stride, init, op, v);
    std::memcpy(result + c, v, sizeof v);
  }
  for (; c + 4 <= channels; c += 4) {
    reduce_columns<1>(in + c, rows, stride, init, op, v);
    std::memcpy(result + c, v, sizeof v[0]);
  }
  for (; c < channels; ++c) {
    Float4 acc = Float4{} + init;  // one lane used: the same operation as the vector lanes
    for (int64_t r = 0; r < rows; ++r) acc = op(acc, Float4{} + in[r * stride + c]);
    result[c] = acc[0];
  }
}

// Rows per block for pixels `stride` floats apart.
int64_t block_rows(int64_t stride) { return std::clamp<int64_t>(kBlockFloats / stride, 2, kPixelBlock); }

// Per-channel averages of `channels` (<= kMaxChannels) interleaved channels over `pixels` pixels
// `stride` floats apart: out[c] = the mean over p of in[p * stride + c]. Each float partial sums at
// most kPixelBlock / 2 values; the blocks add up in double.
void average_interleaved(const float* in, int64_t pixels, int64_t stride, int64_t channels, float* out) {
  double total[kMaxChannels] = {};
  float block[kMaxChannels];
  const int64_t rows = block_rows(stride);
  for (int64_t p0 = 0; p0 < pixels; p0 += rows) {
    reduce_block(in + p0 * stride, std::min(rows, pixels - p0), stride, channels, 0.0f,
                 [](Float4 a, Float4 b) { return a + b; }, block);
    for (int64_t c = 0; c < channels; ++c) total[c] += double(block[c]);
  }
  for (int64_t c = 0; c < channels; ++c) out[c] = pixels > 0 ? float(total[c] / double(pixels)) : 0.0f;
}

// The same with maxima.
void max_interleaved(const float* in, int64_t pixels, int64_t stride, int64_t channels, float* out) {
  // v > best ? v : best keeps best when v is NaN, as the reference's std::max(best, v) does; the
  // partials are never NaN, so combining them the same way is exact.
  auto keep = [](Float4 best, Float4 v) { return v > best ? v : best; };
  const float lowest = -std::numeric_limits<float>::infinity();
  std::fill_n(out, channels, lowest);
  float block[kMaxChannels];
  const int64_t rows = block_rows(stride);
  for (int64_t p0 = 0; p0 < pixels; p0 += rows) {
    reduce_block(in + p0 * stride, std::min(rows, pixels - p0), stride, channels, lowest, keep, block);
    for (int64_t c = 0; c < channels; ++c) out[c] = block[c] > out[c] ? block[c] : out[c];
  }
}

template <void (*Reduce)(const float*, int64_t, int64_t, int64_t, float*)>
void global_pool_channels_last(KernelContext& ctx, Layout layout) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 4, InvalidArgument, ctx.node().op, " '", ctx.node().name,
           "': an input in a channels-last layout must be 4-D, got ", x.shape().str());
  const int64_t n = x.dim(0), c = x.dim(1), pixels = x.dim(2) * x.dim(3);
  const int64_t block = channel_block(layout);
  VX_CHECK(block == 0 || c % block == 0, Internal, "a blocked input with ", c, " channels");
  float* out = ctx.output(0, DType::f32, Shape({n, c, 1, 1})).data<float>();
  const float* in = x.data<float>();
  // Tasks: (image, block of 16 channels); a run of them within one image is reduced together.
  const int64_t blocks = (c + kChannelBlock - 1) / kChannelBlock;
  ctx.pool().parallel_for(n * blocks, [&](int64_t begin, int64_t end) {
    for (int64_t t = begin; t < end;) {
      const int64_t b = t / blocks, first = t % blocks, last = std::min(blocks, first + (end - t));
      for (int64_t k = first * kChannelBlock; k < std::min(c, last * kChannelBlock); k += kMaxChannels) {
        const int64_t count = std::min({kMaxChannels, c - k, last * kChannelBlock - k});
        if (layout == Layout::nhwc) {
          Reduce(in + b * pixels * c + k, pixels, c, count, out + b * c + k);
        } else {  // nChw16c / nChw8c: each block of channels is its own [pixels][block] array
          for (int64_t j = k; j < k + count; j += block)
            Reduce(in + (b * c + j) * pixels, pixels, block, block, out + b * c + j);
        }
      }
      t += last - first;
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, kChannelBlock * pixels)));
}

template <float (*Plane)(const float*, int64_t), void (*Interleaved)(const float*, int64_t, int64_t, int64_t, float*)>
KernelFn make_global_pool(const Node& node, const Graph&) {
  const Layout layout = follower_input_layout(node, 0);
  if (layout == Layout::nchw) return global_pool_planes<Plane>;
  return [layout](KernelContext& ctx) { global_pool_channels_last<Interleaved>(ctx, layout); };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(global_average_pool_fast,
                       {"GlobalAveragePool", "fast", 10, global_pool_supports, nullptr,
                        make_global_pool<row_average, average_interleaved>});
VX_REGISTER_CPU_KERNEL(global_max_pool_fast, {"GlobalMaxPool", "fast", 10, global_pool_supports, nullptr,
                                              make_global_pool<row_max, max_interleaved>});

}  // namespace vx::cpu::fast

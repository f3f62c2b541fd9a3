// MaxPool and AveragePool over 2-D windows, f32, known shapes, in any of the CPU layouts
// (cpu_layout.h: a layout follower, it pools in its input's layout and writes the same one, so
// that ResNet's max pool keeps the stem's nChw8c). Declines what the reference alone handles
// (auto_pad, ceil_mode, dilations, pads as large as the window, the Indices output, storage_order).
//
// Why our own and not oneDNN's pooling: on AVX2 oneDNN's max pool took 0.30-0.47 ms for ResNet-50's
// 3x3 / 2 pool (64 x 112 x 112, nChw8c or NHWC) where ONNX Runtime's takes 0.08, and on NCHW it
// falls back to a scalar loop (4.4 ms).
//
// Each layout is seen as [N, groups, H, W, run] with `run` channels contiguous per pixel: NCHW
// (groups C, run 1), NHWC (1, C), nChw16c / nChw8c (C / block, block). One job pools output rows
// of one group; each output pixel's run of channels is pooled in SSE registers, 16 channels at a
// time (a vector per 4), over its window clipped to the image.
//
// Max skips NaN (v > acc ? v : acc from -inf), where the reference keeps a NaN that is first in its
// window; AveragePool sums in float (the reference in double) and divides by the window's count:
// the positions inside the padded extent with count_include_pad, else the valid ones.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/float4.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/window_geometry.h"

namespace vx::cpu::fast {
namespace {

struct PoolShape {
  bool max = true, include_pad = false;
  Shape in, out;
  int64_t groups = 0, run = 0;  // the layout's view: [N, groups, H, W, run]
  int64_t kernel[2] = {}, strides[2] = {}, pads_begin[2] = {}, pads_end[2] = {};
};

PoolShape pool_shape(const Node& node, const Graph& g, Layout layout) {
  const std::string what = cat(node.op, " '", node.name, "'");
  const Shape& x = g.value(node.input(0)).shape;
  VX_CHECK(x.rank() == 4 && x.is_known(), Unsupported, what, ": needs a known 4-D input");
  VX_CHECK(node.attrs.get_string("auto_pad", "NOTSET") == "NOTSET" && node.attrs.get_int("ceil_mode", 0) == 0,
           Unsupported, what, ": auto_pad / ceil_mode");
  for (int64_t d : node.attrs.get_ints("dilations", {1, 1})) VX_CHECK(d == 1, Unsupported, what, ": dilation");
  const std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape");
  VX_CHECK(kernel.size() == 2, Unsupported, what, ": needs a 2-D kernel_shape");
  const WindowGeometry geo = window_geometry(node.attrs, {x[2], x[3]}, kernel, false, what);
  PoolShape s;
  s.max = node.op == "MaxPool";
  s.include_pad = node.attrs.get_int("count_include_pad", 0) != 0;
  s.in = x;
  s.out = Shape({x[0], x[1], geo.output[0], geo.output[1]});
  for (size_t i = 0; i < 2; ++i) {
    // A window wholly in the padding would have nothing to pool.
    VX_CHECK(geo.pads_begin[i] < kernel[i] && geo.pads_end[i] < kernel[i], Unsupported, what,
             ": pads as large as the window");
    s.kernel[i] = kernel[i];
    s.strides[i] = geo.strides[i];
    s.pads_begin[i] = geo.pads_begin[i];
    s.pads_end[i] = geo.pads_end[i];
  }
  const int64_t block = channel_block(layout);
  VX_CHECK(block == 0 || x[1] % block == 0, Internal, what, ": ", x[1], " channels in blocks of ", block);
  s.groups = layout == Layout::nchw ? x[1] : layout == Layout::nhwc ? 1 : x[1] / block;
  s.run = x[1] / s.groups;
  return s;
}

// Channels [0, 4 V) of one output pixel: the window's rows [y0, y1) and columns [x0, x1) of `in`
// (pixel (y, x) at in + (y * w + x) * run), into out[0, 4 V); AveragePool's sums times `scale`.
template <bool kMax, int V>
void pool_channels(const float* in, int64_t w, int64_t run, int64_t y0, int64_t y1, int64_t x0, int64_t x1,
                   float scale, float* out) {
  Float4 acc[V];
  for (int j = 0; j < V; ++j) acc[j] = Float4{} + (kMax ? -std::numeric_limits<float>::infinity() : 0.0f);
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = x0; x < x1; ++x) {
      const float* p = in + (y * w + x) * run;
      for (int j = 0; j < V; ++j) {
        const Float4 v = load4(p + 4 * j);
        if constexpr (kMax)
          acc[j] = v > acc[j] ? v : acc[j];
        else
          acc[j] += v;
      }
    }
  if constexpr (!kMax)
    for (int j = 0; j < V; ++j) acc[j] *= scale;
  std::memcpy(out, acc, sizeof acc);
}

// The same for one channel (written apart: through the vector template the NCHW pool took 2.5x as
// long).
template <bool kMax>
float pool_channel(const float* in, int64_t w, int64_t run, int64_t y0, int64_t y1, int64_t x0, int64_t x1,
                   float scale) {
  float acc = kMax ? -std::numeric_limits<float>::infinity() : 0.0f;
  for (int64_t y = y0; y < y1; ++y)
    for (int64_t x = x0; x < x1; ++x) {
      const float v = in[(y * w + x) * run];
      acc = kMax ? (v > acc ? v : acc) : acc + v;
    }
  return kMax ? acc : acc * scale;
}

// One output row (oy) of one group of one image: `in` and `out` point at that group's first pixel.
// Each output pixel's channels are pooled in registers, 16 at a time, then 8, 4, one.
template <bool kMax>
void pool_row(const PoolShape& s, const float* in, float* out, int64_t oy) {
  const int64_t h = s.in[2], w = s.in[3], ow = s.out[3], run = s.run;
  const int64_t top = oy * s.strides[0] - s.pads_begin[0];
  const int64_t y0 = std::max<int64_t>(top, 0), y1 = std::min(top + s.kernel[0], h);
  const int64_t rows = s.include_pad ? std::min(top + s.kernel[0], h + s.pads_end[0]) - top : y1 - y0;
  for (int64_t ox = 0; ox < ow; ++ox) {
    const int64_t left = ox * s.strides[1] - s.pads_begin[1];
    const int64_t x0 = std::max<int64_t>(left, 0), x1 = std::min(left + s.kernel[1], w);
    const int64_t cols = s.include_pad ? std::min(left + s.kernel[1], w + s.pads_end[1]) - left : x1 - x0;
    const float scale = 1.0f / float(rows * cols);
    float* o = out + (oy * ow + ox) * run;
    int64_t c = 0;
    for (; c + 16 <= run; c += 16) pool_channels<kMax, 4>(in + c, w, run, y0, y1, x0, x1, scale, o + c);
    if (c + 8 <= run) {  // nChw8c's block in one pass
      pool_channels<kMax, 2>(in + c, w, run, y0, y1, x0, x1, scale, o + c);
      c += 8;
    }
    for (; c + 4 <= run; c += 4) pool_channels<kMax, 1>(in + c, w, run, y0, y1, x0, x1, scale, o + c);
    for (; c < run; ++c) o[c] = pool_channel<kMax>(in + c, w, run, y0, y1, x0, x1, scale);
  }
}

bool pool_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {  // pool_shape throws for a node this kernel does not take
    if (node.outputs.size() != 1 || !known_f32(g, node.input(0)) || !single_f32_output(node, g)) return false;
    if (node.op == "MaxPool" && node.attrs.get_int("storage_order", 0) != 0) return false;
    const PoolShape s = pool_shape(node, g, Layout::nchw);
    const Value& y = g.value(node.outputs[0]);
    return !y.shape.is_known() || y.shape == s.out;
  });
}

KernelFn make_pool(const Node& node, const Graph& g) {
  const Layout layout = follower_input_layout(node, 0);
  auto s = std::make_shared<PoolShape>(pool_shape(node, g, layout));
  // The output is stored in the input's layout, or is 1x1 spatially: the same bytes in any.
  VX_CHECK(follower_output_layout(node) == layout || (s->out[2] == 1 && s->out[3] == 1), Internal, node.op, " '",
           node.name, "' writes another layout than it reads");
  return [s](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == s->in, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", s->in.str());
    Tensor& y = ctx.output(0, DType::f32, s->out);
    const float* in = x.data<float>();
    float* out = y.data<float>();
    const int64_t oh = s->out[2], in_group = s->in[2] * s->in[3] * s->run, out_group = oh * s->out[3] * s->run;
    const int64_t rows = s->in[0] * s->groups * oh;
    // About 4096 output values a job: small rows (NCHW planes) are taken several at once.
    const int64_t grain = std::max<int64_t>(1, 4096 / std::max<int64_t>(1, s->out[3] * s->run));
    ctx.pool().parallel_for(rows, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t group = job / oh, oy = job % oh;  // group counts over images too
        const float* from = in + group * in_group;
        float* to = out + group * out_group;
        if (s->max)
          pool_row<true>(*s, from, to, oy);
        else
          pool_row<false>(*s, from, to, oy);
      }
    }, grain);
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(max_pool_fast, {"MaxPool", kFastVariant, 10, pool_supports, nullptr, make_pool});
VX_REGISTER_CPU_KERNEL(average_pool_fast, {"AveragePool", kFastVariant, 10, pool_supports, nullptr, make_pool});

}  // namespace vx::cpu::fast

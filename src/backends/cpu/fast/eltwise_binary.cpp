// Add, Sub, Mul, Div, Pow, and Min, Max, Sum, Mean of exactly two inputs, on f32 with ONNX (numpy)
// broadcasting, threaded over the thread pool. The broadcast is decomposed once per pair of input
// shapes (at plan time when they are known, else per run): extent-1 axes dropped, neighbouring axes
// that both inputs step through alike merged (merged_axes.h), leaving a few outer axes and one
// innermost run along which each input either advances (stride 1) or holds one value (stride 0).
// So the same shape is one run, a scalar operand is a run against one value, [N,C,H,W] op
// [1,C,1,1] or [N,C,1,1] is one run of H*W per plane against that plane's value, and everything
// else walks the outer axes with an odometer around the same inner loops (SSE-vectorised by the
// compiler).
//
// Each element is computed by the reference's own float expression (a + b, a / b, (a + b) / 2 for
// Mean, NaN-propagating Min and Max written as the reference writes them), in float as the
// reference does, so results match it bit for bit. An output that shares the memory of a
// same-shape input is fine: element i reads only element i of it.
//
// In a prepared plan (cpu_layout.h) a 4-D node may store its output, and the operand of the same
// shape, in a oneDNN convolution's layout (the node's cpu.layout_output): then elementwise and
// scalar operands loop as before, and an operand holding one value per channel and/or image
// ([N,C,1,1], [1,C,1,1], [C,1,1]) is broadcast over the activation's physical axes instead:
// NHWC as [N, H*W, C] against [N|1, 1, C|1], nChw16c / nChw8c (block B) as [N, C/B, H*W, B]
// against [N|1, C/B|1, 1, B|1]. One value per channel would then make runs of only C (or B)
// elements, so that case runs as periodic loops instead: within an image (NHWC) or a channel block
// of an image (nChw16c, nChw8c) the operand's values repeat with period C (B); they are tiled into a buffer of
// up to kTile floats once per such segment and the runs go over whole tiles.
//
// Declines: other element types (integers, f16: the reference converts or wraps), Min / Max / Sum
// / Mean with other than two inputs, shapes that do not broadcast (the reference reports them).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <optional>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/merged_axes.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

enum class BinaryOp { add, sub, mul, div, pow, min, max, mean };

template <BinaryOp op>
inline float binary_value(float a, float b) {
  if constexpr (op == BinaryOp::add) return a + b;
  else if constexpr (op == BinaryOp::sub) return a - b;
  else if constexpr (op == BinaryOp::mul) return a * b;
  else if constexpr (op == BinaryOp::div) return a / b;
  else if constexpr (op == BinaryOp::pow) return std::pow(a, b);  // the reference's call: same bits
  else if constexpr (op == BinaryOp::mean) return (a + b) / 2.0f;  // Sum, then divided by the count
  else if constexpr (op == BinaryOp::max) {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    return a < b ? b : a;
  } else {
    if (std::isnan(a) || std::isnan(b)) return std::numeric_limits<float>::quiet_NaN();
    return b < a ? b : a;
  }
}

// The broadcast of two shapes as loops: outer axes (extents and each input's element strides) and
// the innermost run of `inner` elements, along which each input steps by step_a / step_b (0 or 1).
struct BroadcastLoops {
  Shape a, b, out;
  std::vector<int64_t> outer, stride_a, stride_b;
  int64_t inner = 1, total = 0;
  int step_a = 1, step_b = 1;
};

BroadcastLoops broadcast_loops(const Shape& a, const Shape& b) {
  BroadcastLoops l;
  l.a = a;
  l.b = b;
  l.out = broadcast_shapes(a, b);
  l.total = l.out.numel();
  if (l.total == 0) return l;  // nothing to loop over (and no strides to trust)
  MergedAxes m = merge_axes(l.out.dims(), {broadcast_strides(a, l.out), broadcast_strides(b, l.out)});
  std::vector<int64_t>& dims = m.dims;
  std::vector<int64_t>& xa = m.strides[0];
  std::vector<int64_t>& xb = m.strides[1];
  if (dims.empty()) return l;  // one element
  // The innermost axis of an input that is not broadcast there has stride 1 (every axis after it
  // has extent 1), so the run steps by 0 or 1.
  l.inner = dims.back();
  l.step_a = int(xa.back());
  l.step_b = int(xb.back());
  VX_CHECK((l.step_a == 0 || l.step_a == 1) && (l.step_b == 0 || l.step_b == 1), Internal,
           "broadcast of ", a.str(), " and ", b.str(), ": inner strides ", l.step_a, ", ", l.step_b);
  dims.pop_back();
  xa.pop_back();
  xb.pop_back();
  l.outer = std::move(dims);
  l.stride_a = std::move(xa);
  l.stride_b = std::move(xb);
  return l;
}

// The loops for an output stored in `layout` (above): a's and b's logical shapes are kept in
// a / b / out, the loops walk the physical axes.
BroadcastLoops layout_loops(const Shape& a, const Shape& b, Layout layout) {
  if (layout == Layout::nchw || a == b || a.numel() == 1 || b.numel() == 1) return broadcast_loops(a, b);
  const Shape out = broadcast_shapes(a, b);
  VX_CHECK(out.rank() == 4 && (a == out || b == out), Internal, "operands ", a.str(), " and ", b.str(),
           " in layout ", int(layout), ": neither is the full activation");
  const int64_t n = out[0], c = out[1], pixels = out[2] * out[3];
  const int64_t block = channel_block(layout);
  VX_CHECK(layout == Layout::nhwc || (block != 0 && c % block == 0), Internal, "layout ", int(layout), " with ", c,
           " channels");
  auto physical = [&](const Shape& s) {
    if (s == out) return layout == Layout::nhwc ? Shape({n, pixels, c}) : Shape({n, c / block, pixels, block});
    int64_t d[4] = {1, 1, 1, 1};
    for (size_t i = 0; i < s.rank(); ++i) d[4 - s.rank() + i] = s[i];
    VX_CHECK(s.rank() <= 4 && d[2] == 1 && d[3] == 1, Internal, "operand ", s.str(), " is not 1x1 against ",
             out.str());
    const bool per_channel = d[1] != 1;
    return layout == Layout::nhwc ? Shape({d[0], 1, d[1]})
                                  : Shape({d[0], per_channel ? c / block : 1, 1, per_channel ? block : 1});
  };
  BroadcastLoops l = broadcast_loops(physical(a), physical(b));
  l.a = a;
  l.b = b;
  l.out = out;
  return l;
}

// out[i] = op(a[i * SA], b[i * SB]) for i < n: the inner loops, one per pair of steps.
template <BinaryOp op, int SA, int SB>
inline void binary_run(const float* a, const float* b, float* out, int64_t n) {
  if constexpr (SA == 1 && SB == 1) {
    for (int64_t i = 0; i < n; ++i) out[i] = binary_value<op>(a[i], b[i]);
  } else if constexpr (SA == 1) {
    const float y = b[0];
    for (int64_t i = 0; i < n; ++i) out[i] = binary_value<op>(a[i], y);
  } else {
    const float x = a[0];
    for (int64_t i = 0; i < n; ++i) out[i] = binary_value<op>(x, b[i]);
  }
}

// Output elements [begin, end): the first outer index from `begin`, then run by run.
template <BinaryOp op, int SA, int SB>
void binary_range(const BroadcastLoops& l, const float* a, const float* b, float* out, int64_t begin, int64_t end) {
  int64_t row = begin / l.inner, col = begin % l.inner;
  const size_t rank = l.outer.size();
  int64_t index[8] = {}, oa = 0, ob = 0;
  std::vector<int64_t> deep_index;  // more than 8 outer axes after merging: rare
  int64_t* idx = index;
  if (rank > 8) {
    deep_index.assign(rank, 0);
    idx = deep_index.data();
  }
  for (size_t ax = rank; ax-- > 0;) {
    idx[ax] = row % l.outer[ax];
    row /= l.outer[ax];
    oa += idx[ax] * l.stride_a[ax];
    ob += idx[ax] * l.stride_b[ax];
  }
  for (int64_t pos = begin; pos < end;) {
    const int64_t n = std::min(l.inner - col, end - pos);
    binary_run<op, SA, SB>(a + oa + col * SA, b + ob + col * SB, out + pos, n);
    pos += n;
    col = 0;
    for (size_t ax = rank; ax-- > 0;) {  // the odometer
      oa += l.stride_a[ax];
      ob += l.stride_b[ax];
      if (++idx[ax] < l.outer[ax]) break;
      oa -= l.stride_a[ax] * l.outer[ax];
      ob -= l.stride_b[ax] * l.outer[ax];
      idx[ax] = 0;
    }
  }
}

// Blocks of this many elements are the unit of the split (chunk starts stay vector-aligned); a
// tensor of fewer than kBinaryGrain blocks runs inline, where waking the pool would cost more
// than the work (a 64K-element add takes some 20 us on one core).
constexpr int64_t kBinaryBlock = 1024;
constexpr int64_t kBinaryGrain = 64;

template <BinaryOp op>
void binary_compute(ThreadPool& pool, const BroadcastLoops& l, const float* a, const float* b, float* out) {
  auto range = [&](int64_t begin, int64_t end) {
    if (l.step_a && l.step_b) binary_range<op, 1, 1>(l, a, b, out, begin, end);
    else if (l.step_a) binary_range<op, 1, 0>(l, a, b, out, begin, end);
    else binary_range<op, 0, 1>(l, a, b, out, begin, end);
  };
  const int64_t blocks = (l.total + kBinaryBlock - 1) / kBinaryBlock;
  pool.parallel_for(blocks, [&](int64_t b0, int64_t b1) {
    range(b0 * kBinaryBlock, std::min(l.total, b1 * kBinaryBlock));
  }, kBinaryGrain);
}

// ---- a per-channel operand against an activation in NHWC or a blocked layout ----

// The activation as `segments` runs of segment_length elements (an image in NHWC, a channel block
// of an image in nChw16c / nChw8c) along which the per-channel operand's values for that segment
// repeat with period `period` (C, or the block); the segment's values start at
// (s / segments_per_image) * image_stride + (s % segments_per_image) * period.
struct PeriodicLoops {
  Shape a, b, out;
  int64_t segments = 0, segment_length = 0, period = 0, segments_per_image = 1, image_stride = 0;
  bool channels_first = false;  // the per-channel operand is a (else b)
};

constexpr int64_t kTile = 2048;  // floats of the operand's tiled values (on the stack)

// Periodic loops for these shapes in `layout`, when one operand has the output's 4-D shape and the
// other one value per channel (and maybe per image); nullopt otherwise.
std::optional<PeriodicLoops> periodic_loops(const Shape& a, const Shape& b, Layout layout) {
  if (layout == Layout::nchw || a == b || a.rank() > 4 || b.rank() > 4) return std::nullopt;
  const Shape out = broadcast_shapes(a, b);
  if (out.rank() != 4 || (a != out && b != out) || out[1] <= 1) return std::nullopt;
  const Shape& other = a == out ? b : a;
  int64_t d[4] = {1, 1, 1, 1};
  for (size_t i = 0; i < other.rank(); ++i) d[4 - other.rank() + i] = other[i];
  if (d[1] != out[1] || d[2] != 1 || d[3] != 1 || (d[0] != 1 && d[0] != out[0])) return std::nullopt;
  const int64_t c = out[1], pixels = out[2] * out[3];
  PeriodicLoops p;
  p.a = a;
  p.b = b;
  p.out = out;
  p.channels_first = a != out;
  p.image_stride = d[0] == 1 ? 0 : c;
  if (layout == Layout::nhwc) {
    p.segments = out[0];
    p.segment_length = pixels * c;
    p.period = c;
  } else {
    const int64_t block = channel_block(layout);
    VX_CHECK(block != 0 && c % block == 0, Internal, "layout ", int(layout), " with ", c, " channels");
    p.segments_per_image = c / block;
    p.segments = out[0] * p.segments_per_image;
    p.segment_length = pixels * block;
    p.period = block;
  }
  return p;
}

template <BinaryOp op>
void periodic_compute(ThreadPool& pool, const PeriodicLoops& p, const float* x, const float* y, float* out) {
  const float* act = p.channels_first ? y : x;
  const float* channel = p.channels_first ? x : y;
  const int64_t period = p.period, rows_per_segment = p.segment_length / period;
  // Whole periods per tile: at least one (then the operand's own values serve), at most a segment.
  const int64_t tile_rows = std::clamp<int64_t>(kTile / period, 1, rows_per_segment);
  pool.parallel_for(p.segments * rows_per_segment, [&](int64_t r0, int64_t r1) {
    float tile[kTile];
    for (int64_t r = r0; r < r1;) {
      const int64_t s = r / rows_per_segment, end = std::min(r1, (s + 1) * rows_per_segment);
      const float* values =
          channel + (s / p.segments_per_image) * p.image_stride + (s % p.segments_per_image) * period;
      const float* tiled = values;
      if (tile_rows > 1) {
        for (int64_t k = 0; k < tile_rows; ++k) std::copy_n(values, period, tile + k * period);
        tiled = tile;
      }
      for (; r < end; r += tile_rows) {
        const int64_t n = std::min(tile_rows, end - r) * period, at = r * period;
        if (p.channels_first) binary_run<op, 1, 1>(tiled, act + at, out + at, n);
        else binary_run<op, 1, 1>(act + at, tiled, out + at, n);
      }
      r = end;
    }
  }, std::max<int64_t>(1, kBinaryBlock * kBinaryGrain / period));
}

bool binary_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.size() != 2 || !single_f32_output(node, g)) return false;
  for (size_t i = 0; i < 2; ++i)
    if (node.inputs[i] == kNoValue || g.value(node.inputs[i]).dtype != DType::f32) return false;
  const Shape& a = g.value(node.inputs[0]).shape;
  const Shape& b = g.value(node.inputs[1]).shape;
  if (a.is_known() && b.is_known()) broadcast_loops(a, b);  // throws (declines) when they do not broadcast
  return true;
}

bool binary_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return binary_supports_unchecked(node, g); });
}

// True when `id` is a one-element f32 constant equal to `value`.
bool is_scalar_constant(const Graph& g, ValueId id, float value) {
  if (id == kNoValue || !g.value(id).is_constant()) return false;
  const Tensor& t = g.value(id).constant;
  return t.dtype() == DType::f32 && t.numel() == 1 && t.data<float>()[0] == value;
}

template <BinaryOp op>
KernelFn make_binary(const Node& node, const Graph& g);

// Pow by a constant 2 (spectrogram powers, squared distances) is x * x, the correctly rounded
// square: the loop vectorises where std::pow is a call per element. Within 2 ulps of the
// reference's std::pow (the op table's bound).
KernelFn make_pow(const Node& node, const Graph& g) {
  if (!is_scalar_constant(g, node.input(1), 2.0f) || !g.value(node.input(0)).shape.is_known())
    return make_binary<BinaryOp::pow>(node, g);
  const Shape& x = g.value(node.input(0)).shape;
  if (x.rank() < g.value(node.input(1)).shape.rank()) return make_binary<BinaryOp::pow>(node, g);  // broadcasts up
  auto loops = std::make_shared<const BroadcastLoops>(broadcast_loops(x, x));
  return [loops](KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    VX_CHECK(a.shape() == loops->a, InvalidArgument, "input ", a.shape().str(), " differs from the planned ",
             loops->a.str());
    Tensor& out = ctx.output(0, DType::f32, loops->out);
    if (loops->total > 0) binary_compute<BinaryOp::mul>(ctx.pool(), *loops, a.data<float>(), a.data<float>(), out.data<float>());
  };
}

template <BinaryOp op>
KernelFn make_binary(const Node& node, const Graph& g) {
  const Shape& a = g.value(node.inputs.at(0)).shape;
  const Shape& b = g.value(node.inputs.at(1)).shape;
  const Layout layout = follower_output_layout(node);
  std::shared_ptr<const BroadcastLoops> planned;
  std::shared_ptr<const PeriodicLoops> periodic;
  if (a.is_known() && b.is_known()) {
    if (std::optional<PeriodicLoops> p = periodic_loops(a, b, layout)) periodic = std::make_shared<PeriodicLoops>(*p);
    else planned = std::make_shared<BroadcastLoops>(layout_loops(a, b, layout));
  }
  return [planned, periodic, layout](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    VX_CHECK(x.dtype() == DType::f32 && y.dtype() == DType::f32, InvalidArgument, ctx.node().op, " '",
             ctx.node().name, "': the fast kernel takes float32 inputs, not ", dtype_name(x.dtype()), " and ",
             dtype_name(y.dtype()));
    if (periodic && periodic->a == x.shape() && periodic->b == y.shape()) {
      Tensor& out = ctx.output(0, DType::f32, periodic->out);
      if (out.numel() > 0)
        periodic_compute<op>(ctx.pool(), *periodic, x.data<float>(), y.data<float>(), out.data<float>());
      return;
    }
    BroadcastLoops fresh;
    const BroadcastLoops* l = planned.get();
    if (!l || l->a != x.shape() || l->b != y.shape()) {
      fresh = layout_loops(x.shape(), y.shape(), layout);
      l = &fresh;
    }
    Tensor& out = ctx.output(0, DType::f32, l->out);
    if (l->total == 0) return;
    binary_compute<op>(ctx.pool(), *l, x.data<float>(), y.data<float>(), out.data<float>());
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(add_fast, {"Add", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::add>});
VX_REGISTER_CPU_KERNEL(sub_fast, {"Sub", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::sub>});
VX_REGISTER_CPU_KERNEL(mul_fast, {"Mul", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::mul>});
VX_REGISTER_CPU_KERNEL(div_fast, {"Div", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::div>});
VX_REGISTER_CPU_KERNEL(pow_fast, {"Pow", "fast", 10, binary_supports, nullptr, make_pow});
// The variadic ops with two inputs: Sum is Add, Mean halves the sum as the reference does.
VX_REGISTER_CPU_KERNEL(sum_fast, {"Sum", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::add>});
VX_REGISTER_CPU_KERNEL(mean_fast, {"Mean", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::mean>});
VX_REGISTER_CPU_KERNEL(min_fast, {"Min", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::min>});
VX_REGISTER_CPU_KERNEL(max_fast, {"Max", "fast", 10, binary_supports, nullptr, make_binary<BinaryOp::max>});

}  // namespace vx::cpu::fast

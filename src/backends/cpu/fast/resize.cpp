// Resize (opsets 10-19) and Upsample (7-9), f32, nearest and linear, as planes of the last two axes:
// every output row is a gather from one source row (nearest; a row with the same source row as
// the one before is a memcpy of it) or a blend of two source rows followed by a two-tap gather
// (linear, in float; where rows are upscaled, the gather first, once per source row, then the
// blend). The leading axes only pick the source plane: any nearest mapping, and for
// linear only mappings of one tap (unscaled axes). Every coordinate_transformation_mode and
// nearest_mode of ops/resize_geometry.h: the tables are built from its resize_axes and
// resize_axis_taps, so this kernel and the reference cannot disagree on geometry. Threaded over
// (plane, output row); tables built once when the scales or sizes are constants.
//
// Declines cubic, tf_crop_and_resize, antialias, non-f32 data, and (scales or sizes constant)
// linear interpolation across a leading axis. Scales or sizes computed at run time are read per
// run; should they ask for linear interpolation across a leading axis, that run goes to the
// reference kernel.
#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/resize_geometry.h"

namespace vx::cpu::fast {
namespace {

std::string resize_label(const Node& node) { return cat(node.op, " '", node.name, "'"); }

// The resize as planes of in_h x in_w -> out_h x out_w (the last two axes; a rank-1 input is one
// plane of a single row), with per output plane its source plane, and per output row and column
// the source indices and (linear) weights.
struct ResizeTables {
  Shape in, out;
  bool linear = false;
  int64_t in_h = 1, in_w = 1, out_h = 1, out_w = 1;
  std::vector<int64_t> plane_source;  // leading axes: one tap of weight 1 each (nearest, or unscaled)
  std::vector<int32_t> row0, row1, col0, col1;
  std::vector<float> row_w0, row_w1, col_w0, col_w1;
  bool identity_cols = false;  // every output column reads its own input column
};

// The two taps of every output index of one axis (the second with weight 0 where there is one).
void fill_axis_table(const ResizeAxisTaps& axis, std::vector<int32_t>& i0, std::vector<int32_t>& i1,
                     std::vector<float>& w0, std::vector<float>& w1) {
  const size_t n = axis.taps.size();
  i0.resize(n), i1.resize(n), w0.resize(n), w1.resize(n);
  for (size_t o = 0; o < n; ++o) {
    const std::vector<ResizeTap>& taps = axis.taps[o];
    VX_CHECK(taps.size() == 1 || taps.size() == 2, Internal, "Resize: ", taps.size(), " taps per output index");
    i0[o] = int32_t(taps[0].index);
    w0[o] = float(taps[0].weight);
    i1[o] = taps.size() == 2 ? int32_t(taps[1].index) : i0[o];
    w1[o] = taps.size() == 2 ? float(taps[1].weight) : 0.0f;
  }
}

// True when the axis maps every output index onto the same input index with weight 1.
bool is_identity_axis(const ResizeAxisTaps& axis) {
  for (size_t o = 0; o < axis.taps.size(); ++o)
    if (axis.taps[o].size() != 1 || axis.taps[o][0].index != int64_t(o) || axis.taps[o][0].weight != 1.0) return false;
  return true;
}

// True when every output index reads one input index with weight 1 (always so for nearest).
bool is_single_tap_axis(const ResizeAxisTaps& axis) {
  for (const std::vector<ResizeTap>& taps : axis.taps)
    if (taps.size() != 1 || taps[0].weight != 1.0) return false;
  return true;
}

// The tables for input extents `in`, or nullopt where this kernel does not apply (linear across a
// leading axis, an empty input, extents past int32). Errors in the values throw as in the reference.
std::optional<ResizeTables> resize_tables(const Shape& in, const Attributes& attrs, const ResizeParams& p,
                                          const ResizeValues& v, const std::string& what) {
  const size_t rank = in.rank();
  if (rank == 0 || !in.is_known() || in.numel() == 0) return std::nullopt;
  const ResizeAxes axes = resize_axes(in.dims(), attrs, v.scales, v.sizes, v.roi, what);
  auto taps = [&](size_t d) {
    return resize_axis_taps(in[d], axes.out_dims[d], axes.scales[d], axes.roi_start[d], axes.roi_end[d], p, what);
  };
  constexpr int64_t kMaxIndex = std::numeric_limits<int32_t>::max();
  const size_t first_resized = rank >= 2 ? rank - 2 : 0;
  for (size_t d = first_resized; d < rank; ++d)
    if (in[d] > kMaxIndex || axes.out_dims[d] > kMaxIndex) return std::nullopt;
  ResizeTables t;
  t.in = in;
  t.out = Shape(axes.out_dims);
  t.linear = p.mode == "linear";
  // Source plane per output plane, leading axes outermost first (row-major over them).
  t.plane_source = {0};
  for (size_t d = 0; d < first_resized; ++d) {
    const ResizeAxisTaps axis = taps(d);
    if (!is_single_tap_axis(axis)) return std::nullopt;
    std::vector<int64_t> next;
    next.reserve(t.plane_source.size() * axis.taps.size());
    for (int64_t outer : t.plane_source)
      for (const std::vector<ResizeTap>& tap : axis.taps) next.push_back(outer * in[d] + tap[0].index);
    t.plane_source = std::move(next);
  }
  t.in_w = in[rank - 1];
  t.out_w = axes.out_dims[rank - 1];
  const ResizeAxisTaps cols = taps(rank - 1);
  fill_axis_table(cols, t.col0, t.col1, t.col_w0, t.col_w1);
  t.identity_cols = is_identity_axis(cols);
  if (rank >= 2) {
    t.in_h = in[rank - 2];
    t.out_h = axes.out_dims[rank - 2];
    fill_axis_table(taps(rank - 2), t.row0, t.row1, t.row_w0, t.row_w1);
  } else {
    t.row0 = t.row1 = {0};
    t.row_w0 = {1.0f};
    t.row_w1 = {0.0f};
  }
  return t;
}

void resize_nearest_rows(const ResizeTables& t, const float* in, float* out, ThreadPool& pool) {
  const int64_t rows = int64_t(t.plane_source.size()) * t.out_h, in_w = t.in_w, out_w = t.out_w;
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = t.plane_source[size_t(r / t.out_h)], oy = r % t.out_h;
      float* dst = out + r * out_w;
      // Upscaling repeats source rows: copy the row this chunk wrote just before.
      if (r > begin && oy > 0 && t.row0[size_t(oy)] == t.row0[size_t(oy - 1)]) {
        std::memcpy(dst, dst - out_w, size_t(out_w) * sizeof(float));
        continue;
      }
      const float* src = in + (plane * t.in_h + t.row0[size_t(oy)]) * in_w;
      if (t.identity_cols) {
        std::memcpy(dst, src, size_t(out_w) * sizeof(float));
        continue;
      }
      const int32_t* col = t.col0.data();
      for (int64_t ox = 0; ox < out_w; ++ox) dst[ox] = src[col[ox]];
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out_w)));
}

// One row's two-tap gather along the columns: in_w source values to out_w.
void resize_columns(const ResizeTables& t, const float* src, float* dst) {
  const int32_t *c0 = t.col0.data(), *c1 = t.col1.data();
  const float *w0 = t.col_w0.data(), *w1 = t.col_w1.data();
  for (int64_t ox = 0; ox < t.out_w; ++ox) {
    float v = w0[ox] * src[c0[ox]];
    if (w1[ox] != 0.0f) v += w1[ox] * src[c1[ox]];  // one tap: no 0 * inf
    dst[ox] = v;
  }
}

void resize_linear_rows(const ResizeTables& t, const float* in, float* out, ThreadPool& pool) {
  const int64_t rows = int64_t(t.plane_source.size()) * t.out_h, in_w = t.in_w, out_w = t.out_w;
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    std::vector<float> blended(static_cast<size_t>(in_w));  // the two source rows mixed (vertical pass first)
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = t.plane_source[size_t(r / t.out_h)], oy = r % t.out_h;
      const float* plane_in = in + plane * t.in_h * in_w;
      const float* src = plane_in + t.row0[size_t(oy)] * in_w;
      if (t.row_w1[size_t(oy)] != 0.0f) {  // else the row sits on a source row: weight 1
        const float* below = plane_in + t.row1[size_t(oy)] * in_w;
        const float w0 = t.row_w0[size_t(oy)], w1 = t.row_w1[size_t(oy)];
        float* mix = blended.data();
        for (int64_t i = 0; i < in_w; ++i) mix[i] = w0 * src[i] + w1 * below[i];
        src = mix;
      }
      resize_columns(t, src, out + r * out_w);
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out_w + in_w)));
}

// The same where rows are upscaled (out_h > in_h): each source row a chunk needs is resized
// horizontally once (the two-tap gather over out_w columns), and every output row is then a blend
// of two such rows, vectorised. DeepLabV3's 65x65 -> 520x520 gathers 8x fewer values this way.
void resize_linear_rows_upscaled(const ResizeTables& t, const float* in, float* out, ThreadPool& pool) {
  const int64_t rows = int64_t(t.plane_source.size()) * t.out_h, in_w = t.in_w, out_w = t.out_w;
  pool.parallel_for(rows, [&](int64_t begin, int64_t end) {
    // Two horizontally resized source rows, and which (plane * in_h + row) each holds.
    std::vector<float> resized(static_cast<size_t>(2 * out_w));
    int64_t held[2] = {-1, -1};
    // The slot holding source row `key`, resized into a slot other than `keep` when missing.
    auto slot_of = [&](int64_t key, int keep) -> int {
      for (int k = 0; k < 2; ++k)
        if (held[k] == key) return k;
      const int k = keep >= 0 ? 1 - keep : held[0] <= held[1] ? 0 : 1;  // rows mostly come in order
      held[k] = key;
      resize_columns(t, in + key * in_w, resized.data() + k * out_w);
      return k;
    };
    for (int64_t r = begin; r < end; ++r) {
      const int64_t plane = t.plane_source[size_t(r / t.out_h)], oy = r % t.out_h;
      const int top = slot_of(plane * t.in_h + t.row0[size_t(oy)], -1);
      float* dst = out + r * out_w;
      const float w0 = t.row_w0[size_t(oy)], w1 = t.row_w1[size_t(oy)];
      if (w1 == 0.0f) {  // on a source row: weight 1
        std::memcpy(dst, resized.data() + top * out_w, size_t(out_w) * sizeof(float));
        continue;
      }
      const int below = slot_of(plane * t.in_h + t.row1[size_t(oy)], top);
      const float* a = resized.data() + top * out_w;
      const float* b = resized.data() + below * out_w;
      for (int64_t ox = 0; ox < out_w; ++ox) dst[ox] = w0 * a[ox] + w1 * b[ox];
    }
  }, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, out_w)));
}

void run_resize_tables(const ResizeTables& t, KernelContext& ctx) {
  const float* in = ctx.input(0).data<float>();
  float* out = ctx.output(0, DType::f32, t.out).data<float>();
  if (t.out.numel() == 0) return;
  if (t.linear && t.out_h > t.in_h)
    resize_linear_rows_upscaled(t, in, out, ctx.pool());
  else if (t.linear)
    resize_linear_rows(t, in, out, ctx.pool());
  else
    resize_nearest_rows(t, in, out, ctx.pool());
}

// The constant scales / sizes / roi of the node, or nullopt when one is computed at run time.
std::optional<ResizeValues> constant_resize_values(const Node& node, const Graph& g, bool legacy) {
  for (size_t i = 1; i < node.inputs.size(); ++i)
    if (node.inputs[i] != kNoValue && !g.value(node.inputs[i]).is_constant()) return std::nullopt;
  return read_resize_values(node, legacy, [&](size_t i) -> const Tensor* {
    return node.input(i) == kNoValue ? nullptr : &g.value(node.input(i)).constant;
  });
}

// The tables when everything they depend on is known before the run.
std::optional<ResizeTables> planned_resize_tables(const Node& node, const Graph& g) {
  const bool legacy = resize_is_legacy(node, g.opset(""));
  const std::string what = resize_label(node);
  const Shape& x = g.value(node.input(0)).shape;
  std::optional<ResizeValues> values = constant_resize_values(node, g, legacy);
  if (!values || !x.is_known()) return std::nullopt;
  return resize_tables(x, node.attrs, read_resize_params(node.attrs, legacy, what), *values, what);
}

bool resize_supports_unchecked(const Node& node, const Graph& g) {
  const ValueId x = node.input(0);
  if (x == kNoValue || g.value(x).dtype != DType::f32 || g.value(x).shape.rank() == 0) return false;
  if (!single_f32_output(node, g)) return false;
  const bool legacy = resize_is_legacy(node, g.opset(""));
  const ResizeParams p = read_resize_params(node.attrs, legacy, resize_label(node));  // throws on antialias
  if (p.mode != "nearest" && p.mode != "linear") return false;
  if (p.transform == "tf_crop_and_resize") return false;
  if (g.value(x).shape.is_known() && constant_resize_values(node, g, legacy))
    return planned_resize_tables(node, g).has_value();
  return true;  // decided per run
}

bool resize_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return resize_supports_unchecked(node, g); });
}

KernelFn make_resize(const Node& node, const Graph& g) {
  std::shared_ptr<const ResizeTables> planned;
  if (std::optional<ResizeTables> t = planned_resize_tables(node, g))
    planned = std::make_shared<const ResizeTables>(std::move(*t));
  const KernelFn reference_run = reference_kernel_of(node);
  return [planned, reference_run](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (planned && planned->in == x.shape()) return run_resize_tables(*planned, ctx);
    const Node& n = ctx.node();
    const bool legacy = resize_is_legacy(n, ctx.opset());
    const std::string what = resize_label(n);
    const ResizeValues values = read_resize_values(n, legacy, [&](size_t i) -> const Tensor* {
      return ctx.has_input(i) ? &ctx.input(i) : nullptr;
    });
    std::optional<ResizeTables> t =
        resize_tables(x.shape(), n.attrs, read_resize_params(n.attrs, legacy, what), values, what);
    if (!t) return reference_run(ctx);  // runtime scales: linear across a leading axis
    run_resize_tables(*t, ctx);
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(resize_fast, {"Resize", "fast", 10, resize_supports, nullptr, make_resize});
VX_REGISTER_CPU_KERNEL(upsample_fast, {"Upsample", "fast", 10, resize_supports, nullptr, make_resize});

}  // namespace vx::cpu::fast

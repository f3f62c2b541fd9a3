// Fast CPU kernels for the ops a transformer or a CNN spends its remaining time in after the
// matrix products: MaxPool / AveragePool (oneDNN pooling), Softmax (oneDNN softmax over the last
// axis of a row-major [rows, cols] view), Gelu / vx.Gelu (oneDNN's vectorised eltwise) and
// LayerNormalization / vx.LayerNorm (one pass per row over the thread pool). Each declines what
// its reference kernel alone handles (other dtypes, unknown shapes, extra outputs, odd attributes).
#include <cmath>
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/fast/onednn_fused_conv.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/window_geometry.h"

namespace vx::cpu::fast {

namespace {

bool single_f32_output(const Node& n, const Graph& g) {
  return n.outputs.size() == 1 && n.outputs[0] != kNoValue && g.value(n.outputs[0]).dtype == DType::f32;
}

// ---- pooling ----

struct PoolSetup {
  dnnl::pooling_forward pool;
  memory::desc src, dst;
  Shape in, out;
};

PoolSetup pool_setup(const Node& node, const Graph& g) {
  const std::string what = cat(node.op, " '", node.name, "'");
  const Shape& x = g.value(node.input(0)).shape;
  VX_CHECK(x.rank() == 4 && x.is_known(), Unsupported, what, ": needs a known 4-D input");
  VX_CHECK(node.attrs.get_string("auto_pad", "NOTSET") == "NOTSET" && node.attrs.get_int("ceil_mode", 0) == 0,
           Unsupported, what, ": auto_pad / ceil_mode");
  for (int64_t d : node.attrs.get_ints("dilations", {1, 1})) VX_CHECK(d == 1, Unsupported, what, ": dilation");
  const std::vector<int64_t> kernel = node.attrs.get_ints("kernel_shape");
  VX_CHECK(kernel.size() == 2, Unsupported, what, ": needs a 2-D kernel_shape");
  WindowGeometry geo = window_geometry(node.attrs, {x[2], x[3]}, kernel, false, what);
  for (size_t i = 0; i < 2; ++i)
    VX_CHECK(geo.pads_begin[i] < kernel[i] && geo.pads_end[i] < kernel[i], Unsupported, what, ": pads as large as the window");
  PoolSetup s;
  s.in = x;
  s.out = Shape({x[0], x[1], geo.output[0], geo.output[1]});
  s.src = memory::desc(x.dims(), f32, memory::format_tag::nchw);
  s.dst = memory::desc(s.out.dims(), f32, memory::format_tag::nchw);
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  if (node.op == "AveragePool")
    alg = node.attrs.get_int("count_include_pad", 0) != 0 ? dnnl::algorithm::pooling_avg_include_padding
                                                          : dnnl::algorithm::pooling_avg_exclude_padding;
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, s.src, s.dst, geo.strides, kernel,
                                   geo.pads_begin, geo.pads_end);
  s.pool = dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(desc, onednn_engine()));
  return s;
}

bool pool_supports_unchecked(const Node& node, const Graph& g) {
  if (node.outputs.size() != 1 || !known_f32(g, node.input(0)) || !single_f32_output(node, g)) return false;
  if (node.op == "MaxPool" && node.attrs.get_int("storage_order", 0) != 0) return false;
  try {
    PoolSetup s = pool_setup(node, g);
    const Value& y = g.value(node.outputs[0]);
    return !y.shape.is_known() || y.shape == s.out;
  } catch (const std::exception&) {
    return false;
  }
}

bool pool_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return pool_supports_unchecked(node, g); });
}

KernelFn make_pool(const Node& node, const Graph& g) {
  auto s = std::make_shared<PoolSetup>(pool_setup(node, g));
  return [s](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == s->in, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", s->in.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, s->out);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(s->src, engine, const_cast<void*>(x.raw())), dst(s->dst, engine, y.raw());
    s->pool.execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

// ---- softmax over the last axis (or ONNX < 13's 2-D coercion at any axis) ----

// rows x cols of the softmax's 2-D view; false when the node is not one.
bool softmax_view(const Node& node, const Graph& g, int64_t opset, int64_t& rows, int64_t& cols) {
  const Shape& x = g.value(node.input(0)).shape;
  const int64_t rank = int64_t(x.rank());
  if (rank == 0) return false;
  int64_t axis = node.attrs.get_int("axis", opset >= 13 ? -1 : 1);
  if (axis < -rank || axis >= rank) return false;
  if (axis < 0) axis += rank;
  if (opset >= 13 && axis != rank - 1) return false;
  rows = 1;
  cols = 1;
  for (int64_t i = 0; i < rank; ++i) (i < axis ? rows : cols) *= x[size_t(i)];
  return rows > 0 && cols > 0;
}

bool softmax_supports_unchecked(const Node& node, const Graph& g) {
  int64_t rows = 0, cols = 0;
  return node.outputs.size() == 1 && known_f32(g, node.input(0)) && single_f32_output(node, g) &&
         softmax_view(node, g, g.opset(""), rows, cols);
}

bool softmax_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return softmax_supports_unchecked(node, g); });
}

KernelFn make_softmax(const Node& node, const Graph& g) {
  int64_t rows = 0, cols = 0;
  VX_CHECK(softmax_view(node, g, g.opset(""), rows, cols), Internal, "softmax view");
  const memory::desc md({rows, cols}, f32, memory::format_tag::ab);
  auto prim = std::make_shared<dnnl::softmax_forward>(dnnl::softmax_forward::primitive_desc(
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), onednn_engine()));
  const Shape shape = g.value(node.input(0)).shape;
  return [prim, md, shape](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == shape, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", shape.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, shape);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(md, engine, const_cast<void*>(x.raw())), dst(md, engine, y.raw());
    prim->execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

// ---- Gelu ----

bool gelu_supports_unchecked(const Node& node, const Graph& g) {
  const std::string approx = node.attrs.get_string("approximate", "none");
  return node.outputs.size() == 1 && known_f32(g, node.input(0)) && single_f32_output(node, g) &&
         (approx == "none" || approx == "tanh") && g.value(node.input(0)).shape.numel() > 0;
}

bool gelu_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return gelu_supports_unchecked(node, g); });
}

KernelFn make_gelu(const Node& node, const Graph& g) {
  const Shape shape = g.value(node.input(0)).shape;
  const memory::desc md({shape.numel()}, f32, memory::format_tag::a);
  const auto alg = node.attrs.get_string("approximate", "none") == "tanh" ? dnnl::algorithm::eltwise_gelu_tanh
                                                                          : dnnl::algorithm::eltwise_gelu_erf;
  auto prim = std::make_shared<dnnl::eltwise_forward>(dnnl::eltwise_forward::primitive_desc(
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, 0.0f, 0.0f), onednn_engine()));
  return [prim, md, shape](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == shape, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", shape.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, shape);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(md, engine, const_cast<void*>(x.raw())), dst(md, engine, y.raw());
    prim->execute(stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

// ---- layer normalisation over the last axis ----

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

VX_REGISTER_CPU_KERNEL(max_pool_onednn, {"MaxPool", kOneDnnVariant, 10, pool_supports, nullptr, make_pool});
VX_REGISTER_CPU_KERNEL(average_pool_onednn, {"AveragePool", kOneDnnVariant, 10, pool_supports, nullptr, make_pool});
VX_REGISTER_CPU_KERNEL(softmax_onednn, {"Softmax", kOneDnnVariant, 10, softmax_supports, nullptr, make_softmax});
VX_REGISTER_CPU_KERNEL(gelu_onednn, {"Gelu", kOneDnnVariant, 10, gelu_supports, nullptr, make_gelu});
VX_REGISTER_CPU_KERNEL(vx_gelu_onednn, {kGelu, kOneDnnVariant, 10, gelu_supports, nullptr, make_gelu});
VX_REGISTER_CPU_KERNEL(layer_norm_fast, {"LayerNormalization", "fast", 10, layer_norm_supports, layer_norm_fast});
VX_REGISTER_CPU_KERNEL(vx_layer_norm_fast, {kLayerNorm, "fast", 10, layer_norm_supports, layer_norm_fast});

}  // namespace vx::cpu::fast

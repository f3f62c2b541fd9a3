// MaxPool and AveragePool through oneDNN's pooling primitive: 2-D, f32, known shapes; declines what
// the reference kernel alone handles (auto_pad, ceil_mode, dilations, pads as large as the window,
// the Indices output). A layout follower (cpu_layout.h): it pools in its input's layout and writes
// the same one, so that ResNet's max pool does not send the first convolution's output through NCHW.
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/window_geometry.h"

namespace vx::cpu::fast {
namespace {

struct PoolSetup {
  dnnl::pooling_forward pool;
  memory::desc src, dst;
  Shape in, out;
};

PoolSetup pool_setup(const Node& node, const Graph& g, Layout layout) {
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
  s.src = memory::desc(x.dims(), f32, onednn_tag(layout));
  s.dst = memory::desc(s.out.dims(), f32, onednn_tag(layout));
  dnnl::algorithm alg = dnnl::algorithm::pooling_max;
  if (node.op == "AveragePool")
    alg = node.attrs.get_int("count_include_pad", 0) != 0 ? dnnl::algorithm::pooling_avg_include_padding
                                                          : dnnl::algorithm::pooling_avg_exclude_padding;
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_inference, alg, s.src, s.dst, geo.strides, kernel,
                                   geo.pads_begin, geo.pads_end);
  s.pool = dnnl::pooling_forward(dnnl::pooling_forward::primitive_desc(desc, onednn_attr(), onednn_engine()));
  return s;
}

bool pool_supports_unchecked(const Node& node, const Graph& g) {
  if (node.outputs.size() != 1 || !known_f32(g, node.input(0)) || !single_f32_output(node, g)) return false;
  if (node.op == "MaxPool" && node.attrs.get_int("storage_order", 0) != 0) return false;
  try {
    PoolSetup s = pool_setup(node, g, Layout::nchw);
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
  const Layout layout = follower_input_layout(node, 0);
  auto s = std::make_shared<PoolSetup>(pool_setup(node, g, layout));
  // The output is stored in the input's layout, or is 1x1 spatially: the same bytes in any.
  VX_CHECK(follower_output_layout(node) == layout || (s->out[2] == 1 && s->out[3] == 1), Internal, node.op, " '",
           node.name, "' writes another layout than it reads");
  return [s](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == s->in, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", s->in.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, s->out);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(s->src, engine, const_cast<void*>(x.raw())), dst(s->dst, engine, y.raw());
    execute_primitive(s->pool, stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(max_pool_onednn, {"MaxPool", kOneDnnVariant, 10, pool_supports, nullptr, make_pool});
VX_REGISTER_CPU_KERNEL(average_pool_onednn, {"AveragePool", kOneDnnVariant, 10, pool_supports, nullptr, make_pool});

}  // namespace vx::cpu::fast

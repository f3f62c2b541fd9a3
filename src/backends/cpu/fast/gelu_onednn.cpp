// Gelu and vx.Gelu (erf or tanh approximation) through oneDNN's vectorised eltwise primitive; f32,
// known shapes.
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/fused_ops.h"

namespace vx::cpu::fast {
namespace {

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
      dnnl::eltwise_forward::desc(dnnl::prop_kind::forward_inference, alg, md, 0.0f, 0.0f), onednn_attr(), onednn_engine()));
  return [prim, md, shape](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == shape, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", shape.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, shape);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(md, engine, const_cast<void*>(x.raw())), dst(md, engine, y.raw());
    execute_primitive(*prim, stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(gelu_onednn, {"Gelu", kOneDnnVariant, 10, gelu_supports, nullptr, make_gelu});
VX_REGISTER_CPU_KERNEL(vx_gelu_onednn, {kGelu, kOneDnnVariant, 10, gelu_supports, nullptr, make_gelu});

}  // namespace vx::cpu::fast

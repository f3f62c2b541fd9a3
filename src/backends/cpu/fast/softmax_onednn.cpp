// Softmax through oneDNN's softmax primitive over the last axis of a row-major [rows, cols] view
// (or ONNX < 13's 2-D coercion at any axis); f32, known shapes.
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

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
      dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, md, 1), onednn_attr(), onednn_engine()));
  const Shape shape = g.value(node.input(0)).shape;
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

VX_REGISTER_CPU_KERNEL(softmax_onednn, {"Softmax", kOneDnnVariant, 10, softmax_supports, nullptr, make_softmax});

}  // namespace vx::cpu::fast

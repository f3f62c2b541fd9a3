// ReduceSum, ReduceMean, ReduceMax and ReduceMin through oneDNN's reduction primitive: f32, the
// input's shape known at plan time (rank 1 or more), the axes constant (the attribute, or a
// constant input 1), not a no-op; keepdims changes only the output's shape. Taken only where
// oneDNN has a JIT kernel for the reduction (reducing every axis, or trailing ones as
// GlobalAveragePool does); others, such as every other axis, stay with the reference, whose loop
// beats oneDNN's own reference one. A run whose input differs from the planned one goes to the
// reference. Sums accumulate in float (the reference in double); how NaN passes through Max / Min
// is oneDNN's.
#include <memory>
#include <optional>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

struct ReduceSetup {
  dnnl::reduction primitive;
  memory::desc src, dst;
  Shape in, out;
};

// The reduced axes (normalised), or nothing when they are not constant or the node is a no-op.
std::optional<std::vector<bool>> constant_axes(const Node& node, const Graph& g, int64_t rank) {
  std::vector<int64_t> axes;
  if (node.input(1) != kNoValue) {
    const Value& v = g.value(node.input(1));
    if (!v.is_constant() || v.constant.dtype() != DType::i64) return std::nullopt;
    for (int64_t i = 0; i < v.constant.numel(); ++i) axes.push_back(v.constant.data<int64_t>()[i]);
  } else {
    axes = node.attrs.get_ints("axes");
  }
  if (axes.empty() && node.attrs.get_int("noop_with_empty_axes", 0) != 0) return std::nullopt;
  std::vector<bool> reduced(size_t(rank), axes.empty());
  for (int64_t a : axes) {
    if (a < -rank || a >= rank) return std::nullopt;
    reduced[size_t(a < 0 ? a + rank : a)] = true;
  }
  return reduced;
}

dnnl::algorithm reduce_algorithm(const std::string& op) {
  if (op == "ReduceSum") return dnnl::algorithm::reduction_sum;
  if (op == "ReduceMean") return dnnl::algorithm::reduction_mean;
  if (op == "ReduceMax") return dnnl::algorithm::reduction_max;
  return dnnl::algorithm::reduction_min;
}

// Throws (declines) where the node is not one this kernel takes.
ReduceSetup reduce_setup(const Node& node, const Graph& g) {
  const std::string what = cat(node.op, " '", node.name, "'");
  const Shape& x = g.value(node.input(0)).shape;
  VX_CHECK(x.rank() > 0 && x.is_known() && x.numel() > 0, Unsupported, what, ": needs a known, non-empty input");
  const std::optional<std::vector<bool>> reduced = constant_axes(node, g, int64_t(x.rank()));
  VX_CHECK(reduced.has_value(), Unsupported, what, ": axes not constant, or a no-op");
  const bool keepdims = node.attrs.get_int("keepdims", 1) != 0;
  std::vector<int64_t> kept;
  std::vector<int64_t> out;
  for (size_t a = 0; a < x.rank(); ++a) {
    kept.push_back((*reduced)[a] ? 1 : x[a]);
    if (!(*reduced)[a] || keepdims) out.push_back((*reduced)[a] ? 1 : x[a]);
  }
  ReduceSetup s;
  s.in = x;
  s.out = Shape(out);
  s.src = plain_f32_desc(x.dims());
  s.dst = plain_f32_desc(kept);
  const dnnl::reduction::desc desc(reduce_algorithm(node.op), s.src, s.dst, 0.0f, 0.0f);
  const dnnl::reduction::primitive_desc pd(desc, onednn_attr(), onednn_engine());
  VX_CHECK(std::string(pd.impl_info_str()).find("jit") == 0, Unsupported, what, ": oneDNN has no JIT kernel for it");
  s.primitive = dnnl::reduction(pd);
  return s;
}

bool reduce_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {  // reduce_setup throws for a node it does not take
    if (node.outputs.size() != 1 || !known_f32(g, node.input(0)) || !single_f32_output(node, g)) return false;
    reduce_setup(node, g);
    return true;
  });
}

KernelFn make_reduce(const Node& node, const Graph& g) {
  auto s = std::make_shared<ReduceSetup>(reduce_setup(node, g));
  return [s, reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.shape() != s->in || x.dtype() != DType::f32) return reference(ctx);  // not the planned input
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, s->out);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory src(s->src, engine, const_cast<void*>(x.raw())), dst(s->dst, engine, y.raw());
    execute_primitive(s->primitive, stream, {{DNNL_ARG_SRC, src}, {DNNL_ARG_DST, dst}});
    stream.wait();
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(reduce_sum_onednn, {"ReduceSum", kOneDnnVariant, 10, reduce_supports, nullptr, make_reduce});
VX_REGISTER_CPU_KERNEL(reduce_mean_onednn, {"ReduceMean", kOneDnnVariant, 10, reduce_supports, nullptr, make_reduce});
VX_REGISTER_CPU_KERNEL(reduce_max_onednn, {"ReduceMax", kOneDnnVariant, 10, reduce_supports, nullptr, make_reduce});
VX_REGISTER_CPU_KERNEL(reduce_min_onednn, {"ReduceMin", kOneDnnVariant, 10, reduce_supports, nullptr, make_reduce});

}  // namespace vx::cpu::fast

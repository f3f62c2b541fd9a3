// The reshapes, any dtype: Reshape, Flatten, Squeeze and Unsqueeze copy the input's bytes under the
// planned output shape, over the thread pool (copy_segments: pieces of at least 64 KiB; the
// reference copies on one thread). The planned shapes are trusted only where inference derives
// them from the input: Reshape's target and Squeeze's / Unsqueeze's axes must be constant, shapes
// must be known (known_shape), and a run whose input shape differs from the planned one (a declared
// [] in the body of an If stands for any shape) goes to the reference kernel. The dtype is taken as
// it comes. Identity copies under the input's own run-time shape: any value, of any rank.
#include <memory>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::fast {
namespace {

bool reshape_supports_unchecked(const Node& node, const Graph& g) {
  if (node.inputs.empty() || node.outputs.size() != 1 || !known_shape(g, node.inputs[0]) || !known_shape(g, node.outputs[0]))
    return false;
  // Reshape's shape, Squeeze's and Unsqueeze's axes: constant, so that inference derived the output.
  if (node.input(1) != kNoValue && !g.value(node.input(1)).is_constant()) return false;
  return g.value(node.inputs[0]).shape.numel() == g.value(node.outputs[0]).shape.numel();
}

bool reshape_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return reshape_supports_unchecked(node, g); });
}

KernelFn make_reshape(const Node& node, const Graph& g) {
  return [in = g.value(node.inputs[0]).shape, out = g.value(node.outputs[0]).shape,
          reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    if (x.shape() != in) return reference(ctx);
    Tensor& y = ctx.output(0, x.dtype(), out);
    if (x.nbytes() == 0 || y.raw() == x.raw()) return;
    copy_segments(ctx.pool(), {{static_cast<char*>(y.raw()), static_cast<const char*>(x.raw()), x.nbytes()}});
  };
}

bool identity_supports(const Node& node, const Graph&) { return node.inputs.size() == 1 && node.outputs.size() == 1; }

KernelFn make_identity(const Node&, const Graph&) {
  return [](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    if (x.nbytes() == 0 || y.raw() == x.raw()) return;
    copy_segments(ctx.pool(), {{static_cast<char*>(y.raw()), static_cast<const char*>(x.raw()), x.nbytes()}});
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(reshape_fast, {"Reshape", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(flatten_fast, {"Flatten", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(squeeze_fast, {"Squeeze", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(unsqueeze_fast, {"Unsqueeze", kFastVariant, 10, reshape_supports, nullptr, make_reshape});
VX_REGISTER_CPU_KERNEL(identity_fast, {"Identity", kFastVariant, 10, identity_supports, nullptr, make_identity});

}  // namespace vx::cpu::fast

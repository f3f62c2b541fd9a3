// If (opset 1-21): runs then_branch or else_branch on the node's captured inputs
// (ops/control_flow.h) and copies its outputs out. The branches may give outputs of different
// shapes (opset 11); the executor allocates such outputs at run time.
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/control_flow.h"
#include "session/body_runner.h"

namespace vx {
namespace {

cpu::KernelFn make_if_kernel(const Node& node, const Graph&) {
  auto then_branch = std::make_shared<BodyRunner>(node.attrs.get_graph("then_branch"), node);
  auto else_branch = std::make_shared<BodyRunner>(node.attrs.get_graph("else_branch"), node);
  const size_t formal = formal_input_count(node);
  VX_CHECK(formal == 1, InvalidFile, "node '", node.name, "' (If) has ", formal, " inputs besides the values its ",
           "branches read, not one (the condition)");
  VX_CHECK(then_branch->num_outputs() == node.outputs.size() && else_branch->num_outputs() == node.outputs.size(),
           InvalidFile, "node '", node.name, "' (If) has ", node.outputs.size(), " outputs but its branches give ",
           then_branch->num_outputs(), " and ", else_branch->num_outputs());
  return [then_branch, else_branch](cpu::KernelContext& ctx) {
    const Tensor& cond = ctx.input(0);
    VX_CHECK(cond.numel() == 1, InvalidArgument, "the condition must hold one value, not ", cond.shape().str());
    std::vector<Tensor> captured;
    for (size_t i = 1; i < ctx.num_inputs(); ++i) captured.push_back(ctx.input(i));
    const std::vector<Tensor> outputs = (cond.get(0) != 0 ? then_branch : else_branch)->run(captured);
    for (size_t i = 0; i < outputs.size(); ++i) copy_to_output(ctx, i, outputs[i]);
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(if_op, {"If", "body", 0, nullptr, nullptr, make_if_kernel});

}  // namespace vx

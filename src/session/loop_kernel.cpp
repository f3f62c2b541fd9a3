// Loop (opset 1-21, tensors only): `for (i = 0; i < M && cond; ++i)` runs the body on (i, cond,
// the loop-carried values, the captured values: ops/control_flow.h), which returns (cond, the
// carried values, one scan value per scan output); the node's outputs are the final carried values
// and the scan values stacked along a new first axis. M and cond are optional (absent: no bound,
// always true).
#include <algorithm>
#include <limits>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "core/error.h"
#include "ops/control_flow.h"
#include "session/axis_slices.h"
#include "session/body_runner.h"

namespace vx {
namespace {

// No iteration ran: [0] + the body's declared shape where known.
Tensor empty_scan(const Value& declared) {
  std::vector<int64_t> dims{0};
  for (size_t d = 0; d < declared.shape.rank(); ++d) dims.push_back(std::max<int64_t>(declared.shape[d], 0));
  return Tensor(declared.dtype, Shape(dims));
}

cpu::KernelFn make_loop_kernel(const Node& node, const Graph&) {
  const GraphAttribute graph = node.attrs.get_graph("body");
  auto body = std::make_shared<BodyRunner>(graph, node);
  const size_t formal = formal_input_count(node);
  VX_CHECK(formal >= 2, InvalidFile, "node '", node.name, "' (Loop) needs the inputs M and cond (either may be empty)");
  const size_t carried = formal - 2, captured = node.inputs.size() - formal;
  VX_CHECK(body->num_inputs() == 2 + carried + captured && body->num_outputs() >= 1 + carried &&
               node.outputs.size() == body->num_outputs() - 1,
           InvalidFile, "node '", node.name, "' (Loop): its body takes ", body->num_inputs(), " inputs and gives ",
           body->num_outputs(), " outputs, which do not fit ", carried, " loop-carried values and ", node.outputs.size(),
           " node outputs");
  const size_t scans = node.outputs.size() - carried;
  return [graph, body, carried, scans](cpu::KernelContext& ctx) {
    int64_t trips = std::numeric_limits<int64_t>::max();
    if (ctx.has_input(0)) {
      VX_CHECK(ctx.input(0).numel() == 1, InvalidArgument, "M must hold one value, not ", ctx.input(0).shape().str());
      trips = cpu::ref::read_ints(ctx.input(0))[0];  // exact: exporters pass INT64_MAX
    }
    VX_CHECK(ctx.has_input(0) || ctx.has_input(1), InvalidArgument, "a Loop without M and cond never ends");
    bool cond = true;
    if (ctx.has_input(1)) {
      VX_CHECK(ctx.input(1).numel() == 1, InvalidArgument, "cond must hold one value, not ", ctx.input(1).shape().str());
      cond = ctx.input(1).get(0) != 0;
    }
    std::vector<Tensor> inputs(2 + carried);
    for (size_t i = 0; i < carried; ++i) inputs[2 + i] = ctx.input(2 + i);
    for (size_t i = 2 + carried; i < ctx.num_inputs(); ++i) inputs.push_back(ctx.input(i));
    std::vector<std::vector<Tensor>> scanned(scans);
    for (int64_t i = 0; i < trips && cond; ++i) {
      inputs[0] = Tensor::from<int64_t>(Shape{}, {i});
      inputs[1] = Tensor::from<bool>(Shape{}, {cond});
      std::vector<Tensor> outputs = body->run(inputs);
      VX_CHECK(outputs[0].numel() == 1, InvalidArgument, "the body's cond output must hold one value, not ",
               outputs[0].shape().str());
      cond = outputs[0].get(0) != 0;
      for (size_t c = 0; c < carried; ++c) inputs[2 + c] = std::move(outputs[1 + c]);
      for (size_t s = 0; s < scans; ++s) scanned[s].push_back(std::move(outputs[1 + carried + s]));
    }
    for (size_t c = 0; c < carried; ++c) copy_to_output(ctx, c, inputs[2 + c]);
    for (size_t s = 0; s < scans; ++s)
      copy_to_output(ctx, carried + s,
                     scanned[s].empty() ? empty_scan(graph->value(graph->outputs[1 + carried + s]))
                                        : stack_along(scanned[s], 0, false, "a scan output"));
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(loop, {"Loop", "body", 0, nullptr, nullptr, make_loop_kernel});

}  // namespace vx

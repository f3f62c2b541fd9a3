// Scan (opset 8-21, tensors only). From opset 9: the inputs are N state values and M scan inputs
// (then the captured values: ops/control_flow.h); step t runs the body on the states and slice t
// of every scan input (along its scan_input_axes entry, from the end where scan_input_directions
// says 1) and gets the next states and one slice per scan output, which are stacked along
// scan_output_axes (in reverse where scan_output_directions says 1). Opset 8 has a batch axis 0
// on every input and output, scans axis 1 and reads an optional sequence_lens input first
// (`directions` for the scan inputs); each batch entry is scanned on its own.
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/control_flow.h"
#include "session/axis_slices.h"
#include "session/body_runner.h"

namespace vx {
namespace {

struct ScanAttributes {
  size_t states = 0, scan_inputs = 0, scan_outputs = 0;
  std::vector<int64_t> input_axes, input_directions, output_axes, output_directions;
};

std::vector<int64_t> per_item(const Node& node, const char* name, size_t count) {
  std::vector<int64_t> v = node.attrs.get_ints(name, std::vector<int64_t>(count, 0));
  VX_CHECK(v.size() == count, InvalidFile, "node '", node.name, "' (Scan): ", name, " has ", v.size(), " entries for ",
           count, " values");
  return v;
}

// One scan over states and scan inputs that have no batch axis; returns the final states, then the
// scan outputs.
std::vector<Tensor> scan(BodyRunner& body, const ScanAttributes& a, std::vector<Tensor> states,
                         const std::vector<Tensor>& scan_inputs, const std::vector<Tensor>& captured) {
  std::vector<size_t> axes(a.scan_inputs);
  int64_t length = -1;
  for (size_t j = 0; j < a.scan_inputs; ++j) {
    const Tensor& x = scan_inputs[j];
    const int64_t axis = a.input_axes[j] < 0 ? a.input_axes[j] + int64_t(x.rank()) : a.input_axes[j];
    VX_CHECK(axis >= 0 && axis < int64_t(x.rank()), InvalidArgument, "scan input ", j, " ", x.shape().str(),
             " has no axis ", a.input_axes[j]);
    axes[j] = size_t(axis);
    VX_CHECK(length < 0 || x.dim(axes[j]) == length, InvalidArgument, "scan input ", j, " has ", x.dim(axes[j]),
             " steps but scan input 0 has ", length);
    length = x.dim(axes[j]);
  }
  std::vector<std::vector<Tensor>> slices(a.scan_outputs);
  for (int64_t t = 0; t < length; ++t) {
    std::vector<Tensor> inputs = states;
    for (size_t j = 0; j < a.scan_inputs; ++j)
      inputs.push_back(slice_at(scan_inputs[j], axes[j], a.input_directions[j] ? length - 1 - t : t));
    inputs.insert(inputs.end(), captured.begin(), captured.end());
    std::vector<Tensor> outputs = body.run(inputs);
    for (size_t s = 0; s < a.states; ++s) states[s] = std::move(outputs[s]);
    for (size_t k = 0; k < a.scan_outputs; ++k) slices[k].push_back(std::move(outputs[a.states + k]));
  }
  VX_CHECK(length > 0 || a.scan_outputs == 0, Unsupported, "a Scan of zero steps with scan outputs (their shapes are unknown)");
  std::vector<Tensor> result = std::move(states);
  for (size_t k = 0; k < a.scan_outputs; ++k) {
    const int64_t rank = int64_t(slices[k][0].rank()) + 1;
    const int64_t axis = a.output_axes[k] < 0 ? a.output_axes[k] + rank : a.output_axes[k];
    VX_CHECK(axis >= 0 && axis < rank, InvalidArgument, "scan output ", k, " has no axis ", a.output_axes[k]);
    result.push_back(stack_along(slices[k], size_t(axis), a.output_directions[k] != 0, "a scan output"));
  }
  return result;
}

cpu::KernelFn make_scan_kernel(const Node& node, const Graph& graph) {
  auto body = std::make_shared<BodyRunner>(node.attrs.get_graph("body"), node);
  const bool batched = graph.opset("") > 0 && graph.opset("") < 9;  // opset 8's form
  const size_t formal = formal_input_count(node), captured = node.inputs.size() - formal;
  const size_t leading = batched ? 1 : 0;  // sequence_lens
  ScanAttributes a;
  const int64_t m = node.attrs.get_int("num_scan_inputs", -1);
  VX_CHECK(m >= 1 && size_t(m) + leading <= formal, InvalidFile, "node '", node.name, "' (Scan): num_scan_inputs ", m,
           " does not fit its ", formal, " inputs");
  a.scan_inputs = size_t(m);
  a.states = formal - leading - a.scan_inputs;
  VX_CHECK(node.outputs.size() >= a.states && body->num_inputs() == a.states + a.scan_inputs + captured &&
               body->num_outputs() == node.outputs.size(),
           InvalidFile, "node '", node.name, "' (Scan): its body takes ", body->num_inputs(), " inputs and gives ",
           body->num_outputs(), " outputs, which do not fit ", a.states, " states, ", a.scan_inputs, " scan inputs and ",
           node.outputs.size(), " node outputs");
  a.scan_outputs = node.outputs.size() - a.states;
  a.input_axes = per_item(node, "scan_input_axes", a.scan_inputs);
  a.input_directions = per_item(node, batched ? "directions" : "scan_input_directions", a.scan_inputs);
  a.output_axes = per_item(node, "scan_output_axes", a.scan_outputs);
  a.output_directions = per_item(node, "scan_output_directions", a.scan_outputs);
  return [body, a, batched, formal](cpu::KernelContext& ctx) {
    const size_t leading = batched ? 1 : 0;
    std::vector<Tensor> states, scan_inputs, captured;
    for (size_t i = 0; i < a.states; ++i) states.push_back(ctx.input(leading + i));
    for (size_t j = 0; j < a.scan_inputs; ++j) scan_inputs.push_back(ctx.input(leading + a.states + j));
    for (size_t i = formal; i < ctx.num_inputs(); ++i) captured.push_back(ctx.input(i));
    if (!batched) {
      const std::vector<Tensor> outputs = scan(*body, a, states, scan_inputs, captured);
      for (size_t i = 0; i < outputs.size(); ++i) copy_to_output(ctx, i, outputs[i]);
      return;
    }
    // Opset 8: every input has the batch axis first; the scan axis is then 0 of a batch entry.
    int64_t batch = -1;
    for (const std::vector<Tensor>* list : {&states, &scan_inputs})
      for (const Tensor& t : *list) {
        VX_CHECK(t.rank() >= 1 && (batch < 0 || t.dim(0) == batch), InvalidArgument,
                 "every Scan input needs the same batch axis first, not ", t.shape().str());
        batch = t.dim(0);
      }
    if (ctx.has_input(0)) {
      const Tensor& lens = ctx.input(0);
      VX_CHECK(lens.numel() == batch, InvalidArgument, "sequence_lens has ", lens.numel(), " entries for batch ", batch);
      for (int64_t b = 0; b < batch; ++b)
        VX_CHECK(int64_t(lens.get(b)) == scan_inputs[0].dim(1), Unsupported, "sequence_lens shorter than the scan axis ",
                 "(padded batches)");
    }
    std::vector<std::vector<Tensor>> per_output(a.states + a.scan_outputs);
    for (int64_t b = 0; b < batch; ++b) {
      std::vector<Tensor> entry_states, entry_inputs;
      for (const Tensor& s : states) entry_states.push_back(slice_at(s, 0, b));
      for (const Tensor& x : scan_inputs) entry_inputs.push_back(slice_at(x, 0, b));
      std::vector<Tensor> outputs = scan(*body, a, std::move(entry_states), entry_inputs, captured);
      for (size_t i = 0; i < outputs.size(); ++i) per_output[i].push_back(std::move(outputs[i]));
    }
    for (size_t i = 0; i < per_output.size(); ++i)
      copy_to_output(ctx, i, stack_along(per_output[i], 0, false, "a Scan output"));
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(scan, {"Scan", "body", 0, nullptr, nullptr, make_scan_kernel});

}  // namespace vx

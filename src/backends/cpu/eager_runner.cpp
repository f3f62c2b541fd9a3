#include "backends/cpu/eager_runner.h"

#include <map>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "backends/cpu/host_kernel_context.h"
#include "runtime/value_table.h"

namespace vx {
namespace {

void check_inputs(const Graph& graph, const std::vector<Tensor>& inputs) {
  VX_CHECK(inputs.size() == graph.inputs.size(), InvalidArgument, "the graph has ", graph.inputs.size(),
           " inputs but ", inputs.size(), " were given");
  std::map<std::string, int64_t> bound;  // symbolic dim -> extent
  for (size_t i = 0; i < inputs.size(); ++i) {
    const Value& v = graph.value(graph.inputs[i]);
    const Tensor& t = inputs[i];
    VX_CHECK(t.defined(), InvalidArgument, "input '", v.name, "' is empty");
    VX_CHECK(t.dtype() == v.dtype, InvalidArgument, "input '", v.name, "' must be ", dtype_name(v.dtype), ", not ",
             dtype_name(t.dtype()));
    if (v.shape.rank() == 0 && v.dim_params.empty() && t.rank() != 0) continue;  // shape not declared
    VX_CHECK(t.rank() == v.shape.rank(), InvalidArgument, "input '", v.name, "' must have shape ", v.shape.str(),
             ", not ", t.shape().str());
    for (size_t d = 0; d < t.rank(); ++d) {
      VX_CHECK(v.shape[d] < 0 || v.shape[d] == t.dim(d), InvalidArgument, "input '", v.name, "' must have shape ",
               v.shape.str(), ", not ", t.shape().str());
      if (d < v.dim_params.size() && !v.dim_params[d].empty()) {
        auto [it, fresh] = bound.emplace(v.dim_params[d], t.dim(d));
        VX_CHECK(fresh || it->second == t.dim(d), InvalidArgument, "input '", v.name, "' has extent ", t.dim(d),
                 " for dimension '", v.dim_params[d], "', which another input bound to ", it->second);
      }
    }
  }
}

}  // namespace

std::vector<Tensor> run_graph_eager(const Graph& graph, const std::vector<Tensor>& inputs) {
  check_inputs(graph, inputs);
  runtime::ValueTable table(graph, true);  // one-off: dropped with the run
  std::vector<Tensor>& values = table.values();
  for (size_t i = 0; i < inputs.size(); ++i) values[size_t(graph.inputs[i])] = inputs[i];

  for (const Node& node : graph.nodes) {
    const cpu::KernelEntry* kernel = cpu::find_kernel(node, graph);
    VX_CHECK(kernel != nullptr, Unsupported, "node '", node.name, "' (", node.op, ") has no CPU kernel");
    HostKernelContext ctx(graph, node, values);
    try {
      // Factory kernels (the oneDNN ones) are instantiated per node here: eager runs are one-offs.
      if (kernel->create) kernel->create(node, graph)(ctx);
      else kernel->run(ctx);
    } catch (const Error& e) {
      throw e.with_context(cat("node '", node.name, "' (", node.op, ")"));
    }
    for (ValueId id : node.outputs)
      VX_CHECK(id == kNoValue || values[size_t(id)].defined(), Internal, "node '", node.name, "' (", node.op,
               ") did not write its output '", graph.value(id).name, "'");
  }
  std::vector<Tensor> outputs;
  for (ValueId id : graph.outputs) outputs.push_back(values[size_t(id)]);
  return outputs;
}

}  // namespace vx

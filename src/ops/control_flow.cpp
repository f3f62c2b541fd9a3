#include "ops/control_flow.h"

#include "core/error.h"

namespace vx {

size_t captured_input_count(const Node& node) {
  const int64_t n = node.attrs.get_int(kCapturedInputs, 0);
  VX_CHECK(n >= 0 && size_t(n) <= node.inputs.size(), InvalidFile, "node '", node.name, "' (", node.op, ") claims ", n,
           " captured inputs but has ", node.inputs.size(), " inputs");
  return size_t(n);
}

size_t formal_input_count(const Node& node) { return node.inputs.size() - captured_input_count(node); }

std::vector<GraphAttribute> node_subgraphs(const Node& node) {
  std::vector<GraphAttribute> result;
  for (const auto& [name, value] : node.attrs.all())
    if (const GraphAttribute* g = std::get_if<GraphAttribute>(&value); g && *g) result.push_back(*g);
  return result;
}

}  // namespace vx

#include "passes/fuse_conv_relu_pool.h"

#include "ops/fused_ops.h"
#include "passes/graph_queries.h"

namespace vx {

namespace {
bool all_equal(const std::vector<int64_t>& v, size_t n, int64_t value, bool empty_ok) {
  if (v.empty()) return empty_ok;
  if (v.size() != n) return false;
  for (int64_t x : v)
    if (x != value) return false;
  return true;
}

bool is_max_pool_2x2(const Node& pool) {
  if (pool.op != "MaxPool" || !pool.domain.empty() || pool.outputs.size() != 1) return false;
  const Attributes& a = pool.attrs;
  const std::string auto_pad = a.get_string("auto_pad", "NOTSET");
  return all_equal(a.get_ints("kernel_shape"), 2, 2, false) && all_equal(a.get_ints("strides"), 2, 2, false) &&
         all_equal(a.get_ints("pads"), 4, 0, true) && all_equal(a.get_ints("dilations"), 2, 1, true) &&
         a.get_int("ceil_mode", 0) == 0 && (auto_pad == "NOTSET" || auto_pad == "VALID" || auto_pad.empty());
}
}  // namespace

Graph fuse_conv_relu_pool(Graph graph) {
  const auto consumers = graph.consumers();
  std::vector<bool> erased(graph.nodes.size(), false);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& conv = graph.nodes[i];
    if (conv.op != kFusedConv || conv.attrs.get_int("pool", 0) != 0) continue;
    const ValueId y = conv.outputs[0];
    if (!has_single_private_consumer(graph, consumers, y)) continue;
    const int reader = consumers[size_t(y)][0];
    if (erased[size_t(reader)] || !is_max_pool_2x2(graph.nodes[size_t(reader)])) continue;
    conv.attrs.set("pool", int64_t(1));
    conv.outputs[0] = graph.nodes[size_t(reader)].outputs[0];
    erased[size_t(reader)] = true;
  }
  erase_marked_nodes(graph, erased);
  return graph;
}

}  // namespace vx

// A graph under construction for pass tests: inputs with random feeds (one seed each), constants,
// and nodes writing fresh f32 values whose shapes are left to shape inference.
#pragma once
#include <string>
#include <vector>

#include "common/test_util.h"
#include "core/graph.h"

namespace vx::test {

struct GraphBuilder {
  Graph g;
  std::vector<Tensor> feeds;
  uint64_t seed = 1;
  int counter = 0;

  explicit GraphBuilder(int64_t opset = 17) { g.opsets[""] = opset; }
  ValueId input(const std::string& name, Shape shape) {
    const ValueId id = g.add_value(name, DType::f32, shape);
    g.inputs.push_back(id);
    feeds.push_back(random_tensor(shape, seed++));
    return id;
  }
  ValueId constant(Tensor t) { return g.add_constant(cat("c", counter++), std::move(t)); }
  ValueId node(const std::string& op, std::vector<ValueId> ins, Attributes attrs = {}) {
    const ValueId y = g.add_value(cat("v", counter++), DType::f32, {});
    g.add_node(op, op + std::to_string(counter++), std::move(ins), {y}, std::move(attrs));
    return y;
  }
};

// How many nodes of `op` the graph has.
inline int count_ops(const Graph& g, const std::string& op) {
  int n = 0;
  for (const Node& node : g.nodes) n += node.op == op;
  return n;
}

}  // namespace vx::test

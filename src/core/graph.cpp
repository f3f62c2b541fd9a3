#include "core/graph.h"

#include "core/error.h"

namespace vx {

ValueId Graph::add_value(Value v) {
  values.push_back(std::move(v));
  return ValueId(values.size() - 1);
}

ValueId Graph::add_value(const std::string& value_name, DType dtype, Shape shape) {
  Value v;
  v.name = value_name;
  v.dtype = dtype;
  v.shape = std::move(shape);
  return add_value(std::move(v));
}

ValueId Graph::add_constant(const std::string& value_name, Tensor t) {
  Value v;
  v.name = value_name;
  v.dtype = t.dtype();
  v.shape = t.shape();
  v.constant = std::move(t);
  return add_value(std::move(v));
}

Node& Graph::add_node(std::string op, std::string node_name, std::vector<ValueId> ins, std::vector<ValueId> outs,
                      Attributes attrs) {
  Node n;
  n.op = std::move(op);
  n.name = std::move(node_name);
  n.inputs = std::move(ins);
  n.outputs = std::move(outs);
  n.attrs = std::move(attrs);
  nodes.push_back(std::move(n));
  return nodes.back();
}

ValueId Graph::find(const std::string& value_name) const {
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].name == value_name) return ValueId(i);
  return kNoValue;
}

int64_t Graph::opset(const std::string& domain) const {
  auto it = opsets.find(domain);
  return it == opsets.end() ? 0 : it->second;
}

void Graph::validate() const {
  std::vector<char> ready(values.size(), 0);
  for (ValueId id : inputs) {
    VX_CHECK(id >= 0 && size_t(id) < values.size(), InvalidFile, "graph input id ", id, " out of range");
    ready[size_t(id)] = 1;
  }
  for (size_t i = 0; i < values.size(); ++i)
    if (values[i].is_constant()) ready[i] = 1;
  for (const Node& n : nodes) {
    for (ValueId id : n.inputs) {
      if (id == kNoValue) continue;
      VX_CHECK(id >= 0 && size_t(id) < values.size(), InvalidFile, "node '", n.name, "' reads value id ", id,
               " out of range");
      VX_CHECK(ready[size_t(id)], InvalidFile, "node '", n.name, "' (", n.op, ") reads '", values[size_t(id)].name,
               "' before it is produced (a cycle, or a missing initializer or input)");
    }
    for (ValueId id : n.outputs) {
      if (id == kNoValue) continue;
      VX_CHECK(id >= 0 && size_t(id) < values.size(), InvalidFile, "node '", n.name, "' writes value id ", id,
               " out of range");
      VX_CHECK(!ready[size_t(id)], InvalidFile, "value '", values[size_t(id)].name, "' is produced twice (by node '",
               n.name, "')");
      ready[size_t(id)] = 1;
    }
  }
  for (ValueId id : outputs) {
    VX_CHECK(id >= 0 && size_t(id) < values.size(), InvalidFile, "graph output id ", id, " out of range");
    VX_CHECK(ready[size_t(id)], InvalidFile, "graph output '", values[size_t(id)].name, "' is never produced");
  }
}

std::vector<std::vector<int>> Graph::consumers() const {
  std::vector<std::vector<int>> result(values.size());
  for (size_t i = 0; i < nodes.size(); ++i)
    for (ValueId id : nodes[i].inputs)
      if (id != kNoValue) result[size_t(id)].push_back(int(i));
  return result;
}

std::vector<int> Graph::producers() const {
  std::vector<int> result(values.size(), -1);
  for (size_t i = 0; i < nodes.size(); ++i)
    for (ValueId id : nodes[i].outputs)
      if (id != kNoValue) result[size_t(id)] = int(i);
  return result;
}

}  // namespace vx

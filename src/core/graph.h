// The graph IR: pure data shared by both products. Values are tensors (with dtype and shape, and
// data when constant); nodes are ops (an ONNX-style op type, attributes, inputs and outputs).
// The U-Net builder and the ONNX importer both produce a Graph; passes rewrite it; the planner
// binds it to shapes. It knows nothing of backends.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/attribute.h"
#include "core/dtype.h"
#include "core/shape.h"
#include "core/tensor.h"

namespace vx {

using ValueId = int32_t;
constexpr ValueId kNoValue = -1;  // an omitted optional input (ONNX's empty name)

struct Value {
  std::string name;
  DType dtype = DType::f32;
  Shape shape;                           // -1 extents where unknown
  std::vector<std::string> dim_params;   // symbolic names per extent ("" when none); may be empty
  Tensor constant;                       // defined() for initializers and folded constants
  bool is_constant() const { return constant.defined(); }
};

struct Node {
  std::string op;      // "Conv", "Relu", ... (ONNX op types) or "vx.*" for fused ops of our own
  std::string name;    // unique, for errors and profiles
  std::string domain;  // "" for the default ONNX domain
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;
  Attributes attrs;

  ValueId input(size_t i) const { return i < inputs.size() ? inputs[i] : kNoValue; }
};

class Graph {
 public:
  std::string name;
  std::map<std::string, int64_t> opsets;  // domain -> version ("" = ai.onnx)

  std::vector<Value> values;
  std::vector<Node> nodes;  // in a valid topological order after import and after every pass
  std::vector<ValueId> inputs;
  std::vector<ValueId> outputs;

  ValueId add_value(Value v);
  ValueId add_value(const std::string& name, DType dtype, Shape shape);
  ValueId add_constant(const std::string& name, Tensor t);
  Node& add_node(std::string op, std::string name, std::vector<ValueId> inputs, std::vector<ValueId> outputs,
                 Attributes attrs = {});

  Value& value(ValueId id) { return values.at(size_t(id)); }
  const Value& value(ValueId id) const { return values.at(size_t(id)); }
  // kNoValue when no value has that name.
  ValueId find(const std::string& name) const;
  int64_t opset(const std::string& domain = "") const;

  // Throws InvalidFile naming the first problem: a node reading a value that no earlier node
  // produces (a cycle or a missing initializer), a value produced twice, an output never produced.
  void validate() const;
  // For each value, the indices of the nodes that read it (graph outputs are not counted).
  std::vector<std::vector<int>> consumers() const;
  // For each value, the index of the node that produces it, or -1.
  std::vector<int> producers() const;
};

}  // namespace vx

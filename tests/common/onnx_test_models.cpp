#include "common/onnx_test_models.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <initializer_list>
#include <stdexcept>
#include <utility>

// GCC 12 flags protobuf's inlined string setters with a false -Wrestrict (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

namespace vx::test {

namespace {

// A model of ai.onnx opset 13 (IR 8) with one graph.
onnx::GraphProto* new_model(onnx::ModelProto& model, const std::string& graph_name) {
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name(graph_name);
  return graph;
}

// A float graph input or output; a dim is a fixed extent, or symbolic where `symbol` is given.
void add_float_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                     std::initializer_list<int64_t> dims, const char* symbol = nullptr) {
  auto* v = list->Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(onnx::TensorProto::FLOAT);
  if (symbol) t->mutable_shape()->add_dim()->set_dim_param(symbol);
  for (int64_t d : dims) t->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* graph, const std::string& op, const std::string& name,
                          std::initializer_list<std::string> inputs, const std::string& output) {
  auto* node = graph->add_node();
  node->set_op_type(op);
  node->set_name(name);
  for (const std::string& in : inputs) node->add_input(in);
  node->add_output(output);
  return node;
}

}  // namespace

std::string custom_op_model(const std::string& domain, const std::string& custom_op) {
  onnx::ModelProto model;
  onnx::GraphProto* graph = new_model(model, "swish");
  auto* custom = model.add_opset_import();
  custom->set_domain(domain);
  custom->set_version(1);
  add_float_value(graph->mutable_input(), "x", {2, 3, 5});
  add_float_value(graph->mutable_output(), "y", {2, 3, 5});
  auto* swish = add_node(graph, custom_op, "swish", {"x"}, "s");
  swish->set_domain(domain);
  auto* alpha = swish->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(1.5f);
  add_node(graph, "Add", "add", {"s", "x"}, "y");
  return model.SerializeAsString();
}

std::string two_output_model(const std::string& first, const std::string& second) {
  onnx::ModelProto model;
  onnx::GraphProto* graph = new_model(model, "two_outputs");
  add_float_value(graph->mutable_input(), "x", {2, 3});
  add_float_value(graph->mutable_output(), first, {2, 3});
  add_float_value(graph->mutable_output(), second, {2, 3});
  add_node(graph, "Relu", "Relu_node", {"x"}, first);
  add_node(graph, "Neg", "Neg_node", {"x"}, second);
  return model.SerializeAsString();
}

std::string sigmoid_exp_model() {
  onnx::ModelProto model;
  onnx::GraphProto* graph = new_model(model, "sigmoid_exp");
  add_float_value(graph->mutable_input(), "x", {}, "n");
  add_float_value(graph->mutable_output(), "y", {}, "n");
  add_node(graph, "Sigmoid", "a", {"x"}, "a");
  add_node(graph, "Exp", "b", {"a"}, "b");
  add_node(graph, "Add", "y", {"a", "b"}, "y");
  return model.SerializeAsString();
}

std::string declared_shapes_model() {
  onnx::ModelProto model;
  onnx::GraphProto* graph = new_model(model, "declared_shapes");
  auto declare = [](google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name,
                    onnx::TensorProto::DataType type, bool batch_shape) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(type);
    auto* shape = t->mutable_shape();
    if (!batch_shape) {
      shape->add_dim()->set_dim_value(2);
      return;
    }
    shape->add_dim()->set_dim_param("batch");
    shape->add_dim()->set_dim_value(3);
    shape->add_dim();  // neither a value nor a name
  };
  declare(graph->mutable_input(), "x", onnx::TensorProto::FLOAT, true);
  declare(graph->mutable_input(), "steps", onnx::TensorProto::INT64, false);
  declare(graph->mutable_output(), "y", onnx::TensorProto::FLOAT, true);
  declare(graph->mutable_output(), "z", onnx::TensorProto::INT64, false);
  add_node(graph, "Relu", "relu", {"x"}, "y");
  add_node(graph, "Identity", "identity", {"steps"}, "z");
  return model.SerializeAsString();
}

float scaled_swish(float x, float alpha) { return x / (1.0f + std::exp(-alpha * x)); }

volvox::CustomOp scaled_swish_op(const std::string& domain) {
  volvox::CustomOp op;
  op.domain = domain;
  op.op_type = "ScaledSwish";
  op.infer_outputs = [](const std::vector<volvox::TensorInfo>& in, const volvox::OpAttributes&) {
    if (in.size() != 1 || in[0].type != VX_TYPE_FLOAT32) throw std::invalid_argument("expects one float input");
    return std::vector<volvox::TensorInfo>{in[0]};
  };
  op.cpu = [](const std::vector<volvox::TensorRef>& in, const std::vector<volvox::TensorRef>& out,
              const volvox::OpAttributes& attrs) {
    const float alpha = attrs.get_float("alpha", 1.0f);
    for (int64_t i = 0; i < in[0].size(); ++i) out[0].as<float>()[i] = scaled_swish(in[0].as<float>()[i], alpha);
  };
  return op;
}

}  // namespace vx::test

#include "common/onnx_test_models.h"

#include <onnx/onnx_pb.h>

#include <cmath>
#include <stdexcept>
#include <utility>

// GCC 12 flags protobuf's inlined string setters with a false -Wrestrict (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

namespace vx::test {

std::string custom_op_model(const std::string& domain, const std::string& custom_op) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* custom = model.add_opset_import();
  custom->set_domain(domain);
  custom->set_version(1);
  auto* graph = model.mutable_graph();
  graph->set_name("swish");
  for (auto [list, name] : {std::pair{graph->mutable_input(), "x"}, {graph->mutable_output(), "y"}}) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {2, 3, 5}) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  auto* swish = graph->add_node();
  swish->set_op_type(custom_op);
  swish->set_domain(domain);
  swish->set_name("swish");
  swish->add_input("x");
  swish->add_output("s");
  auto* alpha = swish->add_attribute();
  alpha->set_name("alpha");
  alpha->set_type(onnx::AttributeProto::FLOAT);
  alpha->set_f(1.5f);
  auto* add = graph->add_node();
  add->set_op_type("Add");
  add->set_name("add");
  add->add_input("s");
  add->add_input("x");
  add->add_output("y");
  return model.SerializeAsString();
}

std::string two_output_model(const std::string& first, const std::string& second) {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("two_outputs");
  for (auto [list, name] : {std::pair{graph->mutable_input(), "x"}, {graph->mutable_output(), first.c_str()},
                            {graph->mutable_output(), second.c_str()}}) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    for (int64_t d : {2, 3}) t->mutable_shape()->add_dim()->set_dim_value(d);
  }
  for (auto [op, out] : {std::pair{"Relu", first}, {"Neg", second}}) {
    auto* node = graph->add_node();
    node->set_op_type(op);
    node->set_name(std::string(op) + "_node");
    node->add_input("x");
    node->add_output(out);
  }
  return model.SerializeAsString();
}

std::string sigmoid_exp_model() {
  onnx::ModelProto model;
  model.set_ir_version(8);
  auto* opset = model.add_opset_import();
  opset->set_domain("");
  opset->set_version(13);
  auto* graph = model.mutable_graph();
  graph->set_name("sigmoid_exp");
  for (auto [list, name] : {std::pair{graph->mutable_input(), "x"}, {graph->mutable_output(), "y"}}) {
    auto* v = list->Add();
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(onnx::TensorProto::FLOAT);
    t->mutable_shape()->add_dim()->set_dim_param("n");
  }
  const char* nodes[][4] = {{"Sigmoid", "x", "", "a"}, {"Exp", "a", "", "b"}, {"Add", "a", "b", "y"}};
  for (const auto& [op, in0, in1, out] : nodes) {
    auto* node = graph->add_node();
    node->set_op_type(op);
    node->set_name(out);
    node->add_input(in0);
    if (*in1) node->add_input(in1);
    node->add_output(out);
  }
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

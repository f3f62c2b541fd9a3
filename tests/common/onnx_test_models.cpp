#include "common/onnx_test_models.h"

#include <onnx/onnx_pb.h>

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

}  // namespace vx::test

// If, Loop and Scan (ops/control_flow.h): bodies that read values of enclosing graphs (two levels
// up, constants and values of unknown type included) import as self-contained graphs whose reads
// are explicit node inputs; the kernels run them through the planned runner and the eager runner
// with the results worked out by hand here; errors are one clear line.
#include <onnx/onnx_pb.h>

#include <limits>
#include <string>
#include <vector>

#include "backends/cpu/eager_runner.h"
#include "common/test_util.h"
#include "core/graph.h"
#include "formats/onnx_import.h"
#include "ops/control_flow.h"
#include "session/model_runner.h"

// GCC 12 flags protobuf's inlined string setters with a false -Wrestrict (GCC bug 105329).
#pragma GCC diagnostic ignored "-Wrestrict"

namespace vx::control_flow_test {
namespace {

template <class Fn>
void expect_error(Fn fn, ErrorCode code, const std::string& fragment) {
  try {
    fn();
    ADD_FAILURE() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), code) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << "'" << fragment << "' not in: " << e.what();
  }
}

void add_value(google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>* list, const std::string& name, int elem_type,
               std::vector<int64_t> dims) {
  auto* v = list->Add();
  v->set_name(name);
  auto* t = v->mutable_type()->mutable_tensor_type();
  t->set_elem_type(elem_type);
  auto* shape = t->mutable_shape();
  for (int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto* g, const std::string& op, std::vector<std::string> inputs,
                          std::vector<std::string> outputs) {
  auto* n = g->add_node();
  n->set_op_type(op);
  n->set_name(op + "_" + outputs[0]);
  for (const auto& i : inputs) n->add_input(i);
  for (const auto& o : outputs) n->add_output(o);
  return n;
}

onnx::GraphProto* add_graph_attribute(onnx::NodeProto* n, const std::string& name) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::GRAPH);
  a->mutable_g()->set_name(name);
  return a->mutable_g();
}

void add_ints_attribute(onnx::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (int64_t x : v) a->add_ints(x);
}

void add_int_attribute(onnx::NodeProto* n, const std::string& name, int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

void add_float_initializer(onnx::GraphProto* g, const std::string& name, std::vector<float> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::FLOAT);
  t->add_dims(int64_t(values.size()));
  for (float v : values) t->add_float_data(v);
}

onnx::GraphProto* new_model(onnx::ModelProto& m, int opset) {
  m.set_ir_version(8);
  auto* o = m.add_opset_import();
  o->set_domain("");
  o->set_version(opset);
  return m.mutable_graph();
}

Graph import(const onnx::ModelProto& m) {
  const std::string bytes = m.SerializeAsString();
  return import_onnx_buffer(bytes.data(), bytes.size());
}

// Both runners give the same outputs; returns them.
std::vector<Tensor> run_both(const Graph& g, const std::vector<Tensor>& inputs) {
  std::vector<Tensor> eager = run_graph_eager(g, inputs);
  ModelRunner runner(g);
  std::vector<Tensor> planned = runner.run(inputs);
  EXPECT_TRUE(runner.last_run_planned()) << runner.fallback_reason();
  EXPECT_EQ(eager.size(), planned.size());
  for (size_t i = 0; i < eager.size() && i < planned.size(); ++i) {
    EXPECT_EQ(eager[i].shape(), planned[i].shape());
    for (int64_t k = 0; k < eager[i].numel() && eager[i].shape() == planned[i].shape(); ++k)
      EXPECT_EQ(eager[i].get(k), planned[i].get(k)) << "output " << i << " element " << k;
  }
  return planned;
}

void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& values) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(size_t(t.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) EXPECT_NEAR(t.get(int64_t(i)), values[i], 1e-6) << "element " << i;
}

// x [2, 3], c bool: a = Relu(x); y = If(c) { a + k } else { If(Not(c)) { a * x } else { x } }: the
// inner branch reads a and x two graphs up, the outer then-branch the initializer k.
onnx::ModelProto nested_if_model() {
  onnx::ModelProto m;
  auto* g = new_model(m, 13);
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2, 3});
  add_value(g->mutable_input(), "c", onnx::TensorProto::BOOL, {});
  add_value(g->mutable_output(), "y", onnx::TensorProto::FLOAT, {2, 3});
  add_float_initializer(g, "k", {10, 20, 30});
  add_node(g, "Relu", {"x"}, {"a"});
  auto* outer = add_node(g, "If", {"c"}, {"y"});
  auto* then_branch = add_graph_attribute(outer, "then_branch");
  add_node(then_branch, "Add", {"a", "k"}, {"t"});
  add_value(then_branch->mutable_output(), "t", onnx::TensorProto::FLOAT, {2, 3});
  auto* else_branch = add_graph_attribute(outer, "else_branch");
  add_node(else_branch, "Not", {"c"}, {"not_c"});
  auto* inner = add_node(else_branch, "If", {"not_c"}, {"e"});
  add_value(else_branch->mutable_output(), "e", onnx::TensorProto::FLOAT, {2, 3});
  auto* inner_then = add_graph_attribute(inner, "then_branch");
  add_node(inner_then, "Mul", {"a", "x"}, {"ax"});
  add_value(inner_then->mutable_output(), "ax", onnx::TensorProto::FLOAT, {2, 3});
  auto* inner_else = add_graph_attribute(inner, "else_branch");
  add_node(inner_else, "Identity", {"x"}, {"xi"});
  add_value(inner_else->mutable_output(), "xi", onnx::TensorProto::FLOAT, {2, 3});
  return m;
}

TEST(ControlFlow, BodiesReadEnclosingValuesThroughExplicitInputs) {
  const Graph g = import(nested_if_model());
  const Node& outer = g.nodes.back();
  ASSERT_EQ(outer.op, "If");
  // Captured: a (then) and c, a, x (else, x for its inner If): one list, a first.
  ASSERT_EQ(captured_input_count(outer), 3u);
  std::vector<std::string> names;
  for (size_t i = 1; i < outer.inputs.size(); ++i) names.push_back(g.value(outer.inputs[i]).name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c", "x"}));
  for (const char* branch : {"then_branch", "else_branch"}) {
    const GraphAttribute body = outer.attrs.get_graph(branch);
    ASSERT_NE(body, nullptr);
    ASSERT_EQ(body->inputs.size(), 3u) << branch;
    for (size_t i = 0; i < 3; ++i) EXPECT_EQ(body->value(body->inputs[i]).name, names[i]) << branch;
  }
  // The initializer k is copied into the then-branch as a constant, not captured.
  const GraphAttribute then_branch = outer.attrs.get_graph("then_branch");
  const ValueId k = then_branch->find("k");
  ASSERT_NE(k, kNoValue);
  EXPECT_TRUE(then_branch->value(k).is_constant());
}

TEST(ControlFlow, NestedIfComputesTheChosenBranch) {
  const Graph g = import(nested_if_model());
  const Tensor x = Tensor::from<float>({2, 3}, {-1, 2, -3, 4, -5, 6});
  std::vector<Tensor> y = run_both(g, {x, Tensor::from<bool>({}, {true})});
  expect_values(y[0], Shape{2, 3}, {10, 22, 30, 14, 20, 36});  // relu(x) + k
  y = run_both(g, {x, Tensor::from<bool>({}, {false})});
  expect_values(y[0], Shape{2, 3}, {0, 4, 0, 16, 0, 36});  // relu(x) * x
}

TEST(ControlFlow, IfBranchesMayGiveDifferentShapesAndUntypedValues) {
  // y = If(c) { Shape(x) } else { Shape(Shape(x)) }: int64 values the importer has no type for.
  onnx::ModelProto m;
  auto* g = new_model(m, 13);
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2, 3, 4});
  add_value(g->mutable_input(), "c", onnx::TensorProto::BOOL, {});
  add_node(g, "Shape", {"x"}, {"s"});  // no value_info: imported as float, really int64
  auto* n = add_node(g, "If", {"c"}, {"y"});
  g->add_output()->set_name("y");
  auto* then_branch = add_graph_attribute(n, "then_branch");
  add_node(then_branch, "Identity", {"s"}, {"t"});
  then_branch->add_output()->set_name("t");
  auto* else_branch = add_graph_attribute(n, "else_branch");
  add_node(else_branch, "Shape", {"s"}, {"e"});
  else_branch->add_output()->set_name("e");
  const Graph graph = import(m);
  const Tensor x(DType::f32, Shape{2, 3, 4});
  ModelRunner runner(graph);
  std::vector<Tensor> y = runner.run({x, Tensor::from<bool>({}, {true})});
  ASSERT_EQ(y[0].dtype(), DType::i64);
  expect_values(y[0], Shape{3}, {2, 3, 4});
  y = runner.run({x, Tensor::from<bool>({}, {false})});  // the same runner: another output shape
  ASSERT_EQ(y[0].dtype(), DType::i64);
  expect_values(y[0], Shape{1}, {3});
  expect_values(run_graph_eager(graph, {x, Tensor::from<bool>({}, {false})})[0], Shape{1}, {3});
}

// Loop(M, cond, sum0) with body (i, c, sum) -> (i < 3, sum + x, sum + x): x [2] read from outside.
onnx::ModelProto loop_model() {
  onnx::ModelProto m;
  auto* g = new_model(m, 13);
  add_value(g->mutable_input(), "m", onnx::TensorProto::INT64, {});
  add_value(g->mutable_input(), "x", onnx::TensorProto::FLOAT, {2});
  add_value(g->mutable_input(), "sum0", onnx::TensorProto::FLOAT, {2});
  add_value(g->mutable_output(), "sum", onnx::TensorProto::FLOAT, {2});
  g->add_output()->set_name("sums");
  auto* cond = g->add_initializer();
  cond->set_name("cond");
  cond->set_data_type(onnx::TensorProto::BOOL);
  cond->add_int32_data(1);
  auto* n = add_node(g, "Loop", {"m", "cond", "sum0"}, {"sum", "sums"});
  auto* body = add_graph_attribute(n, "body");
  add_value(body->mutable_input(), "i", onnx::TensorProto::INT64, {});
  add_value(body->mutable_input(), "c_in", onnx::TensorProto::BOOL, {});
  add_value(body->mutable_input(), "s_in", onnx::TensorProto::FLOAT, {2});
  add_node(body, "Add", {"s_in", "x"}, {"s_out"});
  add_node(body, "Identity", {"s_out"}, {"scan"});
  auto* three = body->add_initializer();
  three->set_name("three");
  three->set_data_type(onnx::TensorProto::INT64);
  three->add_int64_data(3);
  add_node(body, "Less", {"i", "three"}, {"c_out"});
  add_value(body->mutable_output(), "c_out", onnx::TensorProto::BOOL, {});
  add_value(body->mutable_output(), "s_out", onnx::TensorProto::FLOAT, {2});
  add_value(body->mutable_output(), "scan", onnx::TensorProto::FLOAT, {2});
  return m;
}

TEST(ControlFlow, LoopStopsOnTripCountOrConditionAndStacksScanOutputs) {
  const Graph g = import(loop_model());
  const Tensor x = Tensor::from<float>({2}, {1, 10});
  const Tensor sum0 = Tensor::from<float>({2}, {100, 200});
  // M = 10: the body's condition (i < 3) ends it after i = 3, four iterations.
  std::vector<Tensor> out = run_both(g, {Tensor::from<int64_t>({}, {10}), x, sum0});
  expect_values(out[0], Shape{2}, {104, 240});
  expect_values(out[1], Shape{4, 2}, {101, 210, 102, 220, 103, 230, 104, 240});
  // M = 2 ends it first.
  out = run_both(g, {Tensor::from<int64_t>({}, {2}), x, sum0});
  expect_values(out[0], Shape{2}, {102, 220});
  expect_values(out[1], Shape{2, 2}, {101, 210, 102, 220});
  // M = 0: no iteration, the initial value and an empty scan output of the declared shape.
  out = run_graph_eager(g, {Tensor::from<int64_t>({}, {0}), x, sum0});
  expect_values(out[0], Shape{2}, {100, 200});
  EXPECT_EQ(out[1].shape(), (Shape{0, 2}));
}

TEST(ControlFlow, LoopWithoutBoundOrConditionIsRefused) {
  onnx::ModelProto m = loop_model();
  onnx::NodeProto* n = m.mutable_graph()->mutable_node(0);
  n->set_input(0, "");
  n->set_input(1, "");
  const Graph g = import(m);
  expect_error(
      [&] { run_graph_eager(g, {Tensor::from<int64_t>({}, {1}), Tensor(DType::f32, {2}), Tensor(DType::f32, {2})}); },
      ErrorCode::InvalidArgument, "never ends");
}

TEST(ControlFlow, ScanSlicesAndStacksAlongTheirAxesAndDirections) {
  // Opset 11: state s [2]; scan input X [2, 3] scanned along axis 1 from the end; body (s, x) ->
  // (s + x, s + x); the scan output stacked along axis 1 in reverse.
  onnx::ModelProto m;
  auto* g = new_model(m, 11);
  add_value(g->mutable_input(), "s0", onnx::TensorProto::FLOAT, {2});
  add_value(g->mutable_input(), "X", onnx::TensorProto::FLOAT, {2, 3});
  add_value(g->mutable_output(), "s", onnx::TensorProto::FLOAT, {2});
  add_value(g->mutable_output(), "Y", onnx::TensorProto::FLOAT, {2, 3});
  auto* n = add_node(g, "Scan", {"s0", "X"}, {"s", "Y"});
  add_int_attribute(n, "num_scan_inputs", 1);
  add_ints_attribute(n, "scan_input_axes", {1});
  add_ints_attribute(n, "scan_input_directions", {1});
  add_ints_attribute(n, "scan_output_axes", {-1});
  add_ints_attribute(n, "scan_output_directions", {1});
  auto* body = add_graph_attribute(n, "body");
  add_value(body->mutable_input(), "s_in", onnx::TensorProto::FLOAT, {2});
  add_value(body->mutable_input(), "x_in", onnx::TensorProto::FLOAT, {2});
  add_node(body, "Add", {"s_in", "x_in"}, {"s_out"});
  add_node(body, "Identity", {"s_out"}, {"y_out"});
  add_value(body->mutable_output(), "s_out", onnx::TensorProto::FLOAT, {2});
  add_value(body->mutable_output(), "y_out", onnx::TensorProto::FLOAT, {2});
  const Graph graph = import(m);
  // Steps take columns 2, 1, 0: running sums (3, 30), (5, 50), (6, 60); stacked in reverse along
  // the last axis, step 0 lands in column 2.
  std::vector<Tensor> out = run_both(graph, {Tensor::from<float>({2}, {0, 0}), Tensor::from<float>({2, 3}, {1, 2, 3, 10, 20, 30})});
  expect_values(out[0], Shape{2}, {6, 60});
  expect_values(out[1], Shape{2, 3}, {6, 5, 3, 60, 50, 30});
}

void add_int64_initializer(onnx::GraphProto* g, const std::string& name, std::vector<int64_t> dims,
                           std::vector<int64_t> values) {
  auto* t = g->add_initializer();
  t->set_name(name);
  t->set_data_type(onnx::TensorProto::INT64);
  for (int64_t d : dims) t->add_dims(d);
  for (int64_t v : values) t->add_int64_data(v);
}

TEST(ControlFlow, IfAroundNonMaxSuppressionAsTorchvisionExportsIt) {
  // torchvision's batched_nms: keep = If(boxes.numel() == 0) { [] } else { NMS(boxes[None],
  // scores[None, None], INT64_MAX, 0.5)[:, 2] }. INT64_MAX means "no limit" (a double cannot hold it).
  onnx::ModelProto m;
  auto* g = new_model(m, 13);
  add_value(g->mutable_input(), "boxes", onnx::TensorProto::FLOAT, {-1, 4});  // -1: unknown
  add_value(g->mutable_input(), "scores", onnx::TensorProto::FLOAT, {-1});
  add_value(g->mutable_output(), "keep", onnx::TensorProto::INT64, {-1});
  add_node(g, "Size", {"boxes"}, {"numel"});
  add_int64_initializer(g, "zero", {}, {0});
  add_node(g, "Equal", {"numel", "zero"}, {"empty"});
  auto* n = add_node(g, "If", {"empty"}, {"keep"});
  auto* then_branch = add_graph_attribute(n, "then_branch");
  add_int64_initializer(then_branch, "none", {0}, {});
  then_branch->add_output()->set_name("none");
  auto* else_branch = add_graph_attribute(n, "else_branch");
  add_int64_initializer(else_branch, "axis0", {1}, {0});
  add_int64_initializer(else_branch, "axes01", {2}, {0, 1});
  add_int64_initializer(else_branch, "max_out", {1}, {std::numeric_limits<int64_t>::max()});
  add_float_initializer(else_branch, "iou", {0.5f});
  add_int64_initializer(else_branch, "column", {1}, {2});
  add_int64_initializer(else_branch, "axis1", {1}, {1});
  add_node(else_branch, "Unsqueeze", {"boxes", "axis0"}, {"b3"});
  add_node(else_branch, "Unsqueeze", {"scores", "axes01"}, {"s3"});
  add_node(else_branch, "NonMaxSuppression", {"b3", "s3", "max_out", "iou"}, {"selected"});
  auto* gather = add_node(else_branch, "Gather", {"selected", "column"}, {"picked"});
  add_int_attribute(gather, "axis", 1);
  add_node(else_branch, "Squeeze", {"picked", "axis1"}, {"kept"});
  else_branch->add_output()->set_name("kept");
  const Graph graph = import(m);
  // Box 1 overlaps box 0 (IoU 0.81) and scores lower: suppressed. Kept by descending score: 2, 0.
  const Tensor boxes = Tensor::from<float>({3, 4}, {0, 0, 10, 10, 0, 1, 10, 10, 20, 20, 30, 30});
  const Tensor scores = Tensor::from<float>({3}, {0.8f, 0.7f, 0.9f});
  const std::vector<Tensor> keep = run_both(graph, {boxes, scores});
  ASSERT_EQ(keep[0].dtype(), DType::i64);
  expect_values(keep[0], Shape{2}, {2, 0});
  const Tensor none(DType::f32, Shape{0, 4});
  expect_values(run_graph_eager(graph, {none, Tensor(DType::f32, Shape{0})})[0], Shape{0}, {});
}

TEST(ControlFlow, UnsupportedOpsInsideABodyAreReportedAtImport) {
  onnx::ModelProto m = nested_if_model();
  m.mutable_graph()->mutable_node(1)->mutable_attribute(1)->mutable_g()->mutable_node(0)->set_op_type("NoSuchOp");
  const std::string bytes = m.SerializeAsString();
  expect_error([&] { import_onnx_buffer(bytes.data(), bytes.size()); }, ErrorCode::Unsupported, "NoSuchOp");
}

}  // namespace
}  // namespace vx::control_flow_test

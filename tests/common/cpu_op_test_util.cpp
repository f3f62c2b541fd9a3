#include "common/cpu_op_test_util.h"

#include <gtest/gtest.h>

#include <map>

#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "core/graph.h"
#include "core/thread_pool.h"

namespace vx::test {
namespace {

// Runs one node on given inputs (an undefined Tensor = an omitted optional input).
class TestContext : public cpu::KernelContext {
 public:
  TestContext(Node node, std::vector<Tensor> inputs, size_t outputs, int64_t opset)
      : node_(std::move(node)), inputs_(std::move(inputs)), outputs_(outputs), opset_(opset) {}
  const Node& node() const override { return node_; }
  int64_t opset() const override { return opset_; }
  size_t num_inputs() const override { return inputs_.size(); }
  bool has_input(size_t i) const override { return i < inputs_.size() && inputs_[i].defined(); }
  const Tensor& input(size_t i) const override { return inputs_.at(i); }
  size_t num_outputs() const override { return outputs_.size(); }
  Tensor& output(size_t i, DType dtype, const Shape& shape) override {
    outputs_.at(i) = Tensor(dtype, shape);
    return outputs_[i];
  }
  ThreadPool& pool() override { return ThreadPool::global(); }
  std::vector<Tensor>& outputs() { return outputs_; }

 private:
  Node node_;
  std::vector<Tensor> inputs_;
  std::vector<Tensor> outputs_;
  int64_t opset_;
};

}  // namespace

std::vector<Tensor> run_op(const std::string& op, std::vector<Tensor> inputs, Attributes attrs, size_t outputs,
                           int64_t opset) {
  Node node;
  node.op = op;
  node.name = "test_" + op;
  node.attrs = std::move(attrs);
  for (size_t i = 0; i < inputs.size(); ++i) node.inputs.push_back(inputs[i].defined() ? ValueId(i) : kNoValue);
  for (size_t i = 0; i < outputs; ++i) node.outputs.push_back(ValueId(inputs.size() + i));
  Graph graph;
  graph.opsets[""] = opset;
  const cpu::KernelEntry* kernel = cpu::find_kernel(node, graph);
  if (!kernel) throw Error(ErrorCode::Unsupported, "no kernel for " + op);
  TestContext ctx(node, std::move(inputs), outputs, opset);
  kernel->run(ctx);
  return ctx.outputs();
}

Tensor f32(Shape shape, std::vector<float> v) {
  Tensor t(DType::f32, std::move(shape));
  EXPECT_EQ(size_t(t.numel()), v.size());
  for (size_t i = 0; i < v.size(); ++i) t.set(int64_t(i), v[i]);
  return t;
}
Tensor i64(std::vector<int64_t> v) {
  Tensor t(DType::i64, Shape{int64_t(v.size())});
  for (size_t i = 0; i < v.size(); ++i) t.data<int64_t>()[i] = v[i];
  return t;
}

void expect_tensor(const Tensor& got, const Shape& shape, const std::vector<double>& want, double tol) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(size_t(got.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.get(int64_t(i)), want[i], tol) << "element " << i;
}

Attributes attrs_of(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [name, value] : list) a.set(name, value);
  return a;
}

ReferenceNode& ReferenceNode::input(const Tensor& t) {
  ValueId id = g.add_value(cat("in", ins.size()), t.dtype(), t.shape());
  g.inputs.push_back(id);
  feeds.push_back(t);
  ins.push_back(id);
  return *this;
}

ReferenceNode& ReferenceNode::constant(const Tensor& t) {
  ins.push_back(g.add_constant(cat("c", ins.size()), t));
  return *this;
}

ReferenceNode& ReferenceNode::omitted() {
  ins.push_back(kNoValue);
  return *this;
}

std::vector<Tensor> ReferenceNode::run(const std::string& op, Attributes attrs, int outputs) {
  std::vector<ValueId> outs;
  for (int i = 0; i < outputs; ++i) outs.push_back(g.add_value(cat("out", i), DType::f32, {}));
  g.add_node(op, "node_under_test", ins, outs, std::move(attrs));
  g.outputs = outs;
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < g.inputs.size(); ++i) shapes[g.value(g.inputs[i]).name] = feeds[i].shape();
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, shapes, true), options);
  return exe.run(feeds);
}

void expect_values(const Tensor& t, const Shape& shape, const std::vector<double>& expected) {
  ASSERT_EQ(t.shape(), shape);
  ASSERT_EQ(size_t(t.numel()), expected.size());
  for (size_t i = 0; i < expected.size(); ++i) EXPECT_NEAR(t.get(int64_t(i)), expected[i], 1e-6) << "element " << i;
}

Tensor filled(Shape shape, float v) {
  Tensor t(DType::f32, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.set(i, v);
  return t;
}

Attributes ints(std::initializer_list<std::pair<const char*, std::vector<int64_t>>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

}  // namespace vx::test

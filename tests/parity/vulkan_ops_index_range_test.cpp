// Gather and Scatter index rules, the same on every device: run-time indices in [-extent, extent)
// wrap as ONNX says and give the CPU's results; one outside fails the run with the CPU kernels'
// error (same code, same message naming the node) instead of being clamped silently. Odd sizes,
// under the validation layer (VulkanOpTest fails a test that produced validation messages).
#include <gtest/gtest.h>

#include <map>

#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx {
namespace {

using test::constant;
using test::input;

Tensor i64(Shape shape, std::vector<int64_t> values) {
  Tensor t(DType::i64, std::move(shape));
  EXPECT_EQ(size_t(t.numel()), values.size());
  for (size_t i = 0; i < values.size(); ++i) t.data<int64_t>()[i] = values[i];
  return t;
}

// A case with good indices (negative ones included) and the same case with one index out of range.
struct IndexCase {
  std::string what;
  test::SingleNodeCase good, bad;
};

std::vector<IndexCase> cases() {
  const Tensor data = test::random_tensor({5, 7}, 11);
  const Tensor data3 = test::random_tensor({3, 5, 7}, 12);
  std::vector<IndexCase> c;
  auto add = [&](std::string what, const std::string& op, Tensor x, Tensor good, Tensor bad,
                 std::vector<test::NodeInput> more, Attributes attrs, int64_t opset = 18) {
    std::vector<test::NodeInput> g{input(x), input(good)}, b{input(x), input(bad)};
    g.insert(g.end(), more.begin(), more.end());
    b.insert(b.end(), more.begin(), more.end());
    c.push_back({std::move(what), test::single_node(op, g, 1, attrs, opset), test::single_node(op, b, 1, attrs, opset)});
  };
  Attributes axis1;
  axis1.set("axis", int64_t(1));
  add("Gather axis 1", "Gather", data, i64({3}, {-7, 6, -1}), i64({3}, {1, 7, -2}), {}, axis1);
  add("Gather axis 0, 2-d indices", "Gather", data3, i64({2, 3}, {-3, 2, 0, 1, -1, -2}),
      i64({2, 3}, {0, 1, 2, -4, 0, 1}), {}, {});
  add("GatherElements", "GatherElements", data, i64({5, 3}, {0, -1, 6, -7, 3, 2, 1, 0, -2, 5, 4, -3, 6, 0, 1}),
      i64({5, 3}, {0, -1, 6, -7, 3, 2, 1, 0, -8, 5, 4, -3, 6, 0, 1}), {}, axis1);
  add("GatherND", "GatherND", data3, i64({3, 2}, {-1, -5, 2, 4, 0, -2}), i64({3, 2}, {-1, -5, 2, 5, 0, -2}), {}, {});
  Attributes batch1;
  batch1.set("batch_dims", int64_t(1));
  add("GatherND batch_dims 1", "GatherND", data3, i64({3, 1}, {-1, 4, 0}), i64({3, 1}, {-1, -6, 0}), {}, batch1);
  const Tensor updates = test::random_tensor({5, 3}, 13);
  // No two updates of a row meet (reduction none leaves their order to the device).
  const std::vector<int64_t> rows = {0, -1, 5, -7, 3, 2, 1, 0, -2, 5, 4, -4, 6, 0, 1};
  auto with = [&](size_t at, int64_t v) {
    std::vector<int64_t> r = rows;
    r[at] = v;
    return i64({5, 3}, r);
  };
  add("ScatterElements", "ScatterElements", data, i64({5, 3}, rows), with(14, 7), {input(updates)}, axis1);
  Attributes add_axis1 = axis1;
  add_axis1.set("reduction", std::string("add"));  // the ordered kernels (sg_scatter_*)
  add("ScatterElements add", "ScatterElements", data, i64({5, 3}, rows), with(11, -9), {input(updates)}, add_axis1);
  add("Scatter (opset 10)", "Scatter", data, i64({5, 3}, rows), with(14, -8), {input(updates)}, axis1, 10);
  const Tensor nd_updates = test::random_tensor({2, 7}, 14);
  add("ScatterND", "ScatterND", data3, i64({2, 2}, {-1, -5, 2, 4}), i64({2, 2}, {-1, -5, 3, 4}),
      {input(nd_updates)}, {});
  Attributes nd_add;
  nd_add.set("reduction", std::string("add"));
  add("ScatterND add", "ScatterND", data3, i64({2, 2}, {-1, -5, 2, 4}), i64({2, 2}, {-1, -5, 2, -6}),
      {input(nd_updates)}, nd_add);
  return c;
}

std::map<std::string, Shape> shapes_of(const test::SingleNodeCase& c) {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < c.inputs.size(); ++i) shapes[c.graph.value(c.graph.inputs[i]).name] = c.inputs[i].shape();
  return shapes;
}

class VulkanIndexRange : public test::VulkanOpTest {};

TEST_F(VulkanIndexRange, NegativeIndicesWrapAsOnTheCpu) {
  for (const IndexCase& c : cases()) {
    SCOPED_TRACE(c.what);
    expect_matches_cpu(c.good, Precision::fp32);
  }
}

TEST_F(VulkanIndexRange, OutOfRangeIndexFailsWithTheCpuError) {
  for (const IndexCase& c : cases()) {
    SCOPED_TRACE(c.what);
    std::string cpu_message;
    try {
      test::run_cpu_reference(c.bad.graph, c.bad.inputs);
      ADD_FAILURE() << "the CPU accepted an out-of-range index";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      cpu_message = e.what();
    }
    // One executable for both: the bad run must not leave its status behind for the good one.
    auto exe = make_executable(vk::compute_device(ctx()), c.bad.graph, shapes_of(c.bad), {}, &c.good.inputs);
    ASSERT_FALSE(exe->placements().at(0).on_host) << exe->placement_report();
    try {
      exe->run(c.bad.inputs);
      ADD_FAILURE() << "Vulkan accepted an out-of-range index";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
      EXPECT_EQ(std::string(e.what()), cpu_message);
    }
    EXPECT_TRUE(test::outputs_match(test::run_cpu_reference(c.good.graph, c.good.inputs), exe->run(c.good.inputs),
                                    test::default_tolerance(Precision::fp32)));
  }
}

}  // namespace
}  // namespace vx

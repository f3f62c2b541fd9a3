// Helpers for testing Vulkan ONNX ops against the CPU reference kernels: one validated Vulkan
// context per test binary (lavapipe in CI), one-node graphs, runs on both sides and comparisons
// with stated tolerances. Typical use in tests/parity/vulkan_ops_*_test.cpp:
//
//   class VulkanAddTest : public vx::test::VulkanOpTest {};
//   TEST_F(VulkanAddTest, Broadcast) {
//     auto c = vx::test::single_node("Add", {vx::test::input(a), vx::test::input(b)});
//     expect_matches_cpu(c, vx::Precision::fp32);   // every node on the GPU, fp32 tolerance
//     expect_matches_cpu(c, vx::Precision::fp16);
//   }
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "runtime/scheduler.h"
#include "core/graph.h"
#include "core/tensor.h"

namespace vx::test {

// One input of the node: a runtime tensor (a graph input), a constant (an initializer), or omitted.
struct NodeInput {
  Tensor value;  // undefined: an omitted optional input
  bool constant = false;
};
inline NodeInput input(Tensor t) { return {std::move(t), false}; }
inline NodeInput constant(Tensor t) { return {std::move(t), true}; }
inline NodeInput omitted() { return {}; }

// A graph of one node and the runtime inputs to feed it (in graph input order).
struct SingleNodeCase {
  Graph graph;
  std::vector<Tensor> inputs;
};

// Graph inputs get the tensors' dtypes and shapes; outputs are named y0, y1, ... of unknown shape
// (shape inference or the executor's observing run finds them). `domain` "" = ai.onnx.
SingleNodeCase single_node(const std::string& op, const std::vector<NodeInput>& inputs, size_t num_outputs = 1,
                           Attributes attrs = {}, int64_t opset = 18, const std::string& domain = "");

// The CPU answer: the eager runner over the CPU kernel registry.
std::vector<Tensor> run_cpu_reference(const Graph& graph, const std::vector<Tensor>& inputs);

struct VulkanRun {
  std::vector<Tensor> outputs;
  std::vector<runtime::NodePlacement> placements;
  bool all_on_gpu = false;  // every node ran on the GPU
};
// With `first_inputs`, the executable runs on them first and then on `inputs` (state a run leaves
// behind, such as counters, must not change the next run's outputs).
VulkanRun run_on_vulkan(const vk::VulkanContext& ctx, const Graph& graph, const std::vector<Tensor>& inputs,
                        Precision precision, const std::vector<Tensor>* first_inputs = nullptr);

// |got - expected| <= atol + rtol * |expected| per element (NaNs must match, infinities must be
// equal); integers and bools exact.
struct Tolerance {
  double rtol = 1e-5, atol = 1e-6;
};
// fp32: rtol 1e-5, atol 1e-6. fp16 storage (fp32 math): rtol 1e-2, atol 1e-3 (the CPU reference
// then runs on the inputs rounded to fp16, so only the storage of the results and intermediate
// values differs).
Tolerance default_tolerance(Precision precision);
::testing::AssertionResult outputs_match(const std::vector<Tensor>& expected, const std::vector<Tensor>& got,
                                         Tolerance tolerance);
// Float inputs rounded through fp16 (what the device sees at Precision::fp16).
std::vector<Tensor> round_to_fp16(const std::vector<Tensor>& inputs);

// The shared context (validation on when the layer is installed); null, with the reason, when no
// Vulkan device exists.
const vk::VulkanContext* vulkan_test_context(std::string* skip_reason = nullptr);

// Fixture: skips without a device; fails a test that produced validation messages.
class VulkanOpTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  const vk::VulkanContext& ctx() const { return *ctx_; }
  // Runs `c` on the CPU and on Vulkan at `precision`, requires every node on the GPU (unless
  // allow_cpu) and compares with `tolerance` (default_tolerance when rtol < 0).
  void expect_matches_cpu(const SingleNodeCase& c, Precision precision, Tolerance tolerance = {-1, -1},
                          bool allow_cpu = false, const std::string& what = "");

 private:
  const vk::VulkanContext* ctx_ = nullptr;
  size_t seen_messages_ = 0;
};

}  // namespace vx::test

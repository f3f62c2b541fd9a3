// A fixture parameterized by storage precision (fp32, fp16) for one-node cases on the Vulkan
// executor against the CPU reference kernels, with a tolerance relative to the largest reference
// value: fp32 storage 1e-4 * max(1, max |ref|), fp16 storage (fp32 accumulation, one rounding of the
// output and of repacked weights) 1e-2 * max(1, max |ref|); integer outputs (indices) exact.
//   class VulkanConv : public vx::test::VulkanPrecisionTest {};
//   TEST_P(VulkanConv, Conv) { check(OneNode{"Conv", attrs, {{x}, {w, true}}}, "Conv 3x3"); }
//   INSTANTIATE_TEST_SUITE_P(All, VulkanConv, ::testing::Values(Precision::fp32, Precision::fp16), ...);
#pragma once
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backends/vulkan/kernels/conv3x3.h"
#include "common/vulkan_op_test_util.h"
#include "core/attribute.h"
#include "core/tensor.h"

namespace vx::test {

// One node with its inputs: runtime tensors, or constants (initializers) with `constant` set.
struct OneNode {
  struct Input {
    Tensor value;  // undefined: an omitted optional input
    bool constant = false;
  };
  std::string op;
  Attributes attrs;
  std::vector<Input> inputs;
  size_t outputs = 1;
  int64_t opset = 17;
  std::vector<Shape> declared;  // output shapes declared in the graph (else left to shape inference)
};

class VulkanPrecisionTest : public VulkanOpTest, public ::testing::WithParamInterface<Precision> {
 protected:
  using OneNode = test::OneNode;
  using Input = OneNode::Input;

  // Skips fp16 where the device has no fp16 storage.
  void SetUp() override;
  // Runs `c` through the executor (every node must be planned on the GPU, with a variant starting
  // with `variant` when given) and compares every output with the CPU reference.
  void check(const OneNode& c, const std::string& what, const std::string& variant = "");
};

}  // namespace vx::test

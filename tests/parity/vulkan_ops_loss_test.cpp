// The Vulkan loss family (NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss) against the CPU
// reference kernels on lavapipe with validation on: ranks 2, 3 and 5, odd extents, weights,
// ignore_index (negative too), reductions none / sum / mean, SCE's log_prob output.
//
// Tolerances: fp32 |d| <= 1e-6 + 1e-5 |ref| (sum and mean: 1e-5 + 1e-4 |ref|, the GPU sums in f32
// in another order than the CPU's double); fp16 storage (fp32 math) |d| <= 1e-3 + 1e-2 |ref|
// against the CPU on fp16-rounded inputs.
#include <gtest/gtest.h>

#include <cmath>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanLoss : public VulkanOpTest {};

// Targets in [0, classes) with every fifth one set to `ignore` (when given).
Tensor targets(const Shape& shape, int64_t classes, uint64_t seed, const int64_t* ignore = nullptr) {
  Tensor r = random_tensor(shape, seed, 0.0f, float(classes) - 0.001f);
  Tensor t(DType::i64, shape);
  for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = (ignore && i % 5 == 2) ? *ignore : int64_t(std::floor(r.get(i)));
  return t;
}

TEST_F(VulkanLoss, NllAllReductionsWeightsAndIgnoreIndex) {
  const std::vector<Shape> shapes = {Shape{5, 3}, Shape{3, 7, 5}, Shape{2, 3, 2, 1, 3, 2}};
  uint64_t seed = 1;
  for (const Shape& s : shapes) {
    std::vector<int64_t> tdims = s.dims();
    tdims.erase(tdims.begin() + 1);
    const int64_t classes = s[1];
    for (const char* reduction : {"none", "sum", "mean"})
      for (bool weighted : {false, true})
        for (int64_t ignore : {int64_t(-100), int64_t(1), int64_t(0)}) {
          const bool use_ignore = ignore != 0;
          Attributes a;
          a.set("reduction", std::string(reduction));
          if (use_ignore) a.set("ignore_index", ignore);
          Tensor x = random_tensor(s, seed++, -4, 0);
          Tensor t = targets(Shape(tdims), classes, seed++, use_ignore ? &ignore : nullptr);
          std::vector<NodeInput> in = {input(x), input(t)};
          if (weighted) in.push_back(input(random_tensor(Shape{classes}, seed++, 0.2f, 2)));
          auto c = single_node("NegativeLogLikelihoodLoss", in, 1, a, 13);
          const bool reduced = std::string(reduction) != "none";
          const std::string what = cat("NLL ", s.str(), " ", reduction, weighted ? " weighted" : "",
                                       use_ignore ? cat(" ignore ", ignore) : "");
          expect_matches_cpu(c, Precision::fp32, reduced ? Tolerance{1e-4, 1e-5} : Tolerance{-1, -1}, false, what);
          expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, what);
        }
  }
}

TEST_F(VulkanLoss, SoftmaxCrossEntropyWithLogProb) {
  const std::vector<Shape> shapes = {Shape{3, 5}, Shape{2, 7, 3}, Shape{3, 4, 2, 1, 3}};
  uint64_t seed = 100;
  for (const Shape& s : shapes) {
    std::vector<int64_t> tdims = s.dims();
    tdims.erase(tdims.begin() + 1);
    for (const char* reduction : {"none", "sum", "mean"})
      for (size_t outputs : {size_t(1), size_t(2)})
        for (bool weighted : {false, true}) {
          Attributes a;
          a.set("reduction", std::string(reduction));
          const int64_t ignore = -3;
          if (weighted) a.set("ignore_index", ignore);
          std::vector<NodeInput> in = {input(random_tensor(s, seed++, -6, 6)),
                                       input(targets(Shape(tdims), s[1], seed++, weighted ? &ignore : nullptr))};
          if (weighted) in.push_back(input(random_tensor(Shape{s[1]}, seed++, 0.2f, 2)));
          auto c = single_node("SoftmaxCrossEntropyLoss", in, outputs, a, 13);
          const bool reduced = std::string(reduction) != "none";
          const std::string what = cat("SCE ", s.str(), " ", reduction, " outputs ", outputs, weighted ? " weighted" : "");
          expect_matches_cpu(c, Precision::fp32, reduced ? Tolerance{1e-4, 1e-5} : Tolerance{1e-5, 1e-5}, false, what);
          expect_matches_cpu(c, Precision::fp16, {-1, -1}, false, what);
        }
  }
}

// Many targets: the reduction's workgroup loops over more pairs than it has invocations.
TEST_F(VulkanLoss, MeanOverManyTargets) {
  Tensor x = random_tensor(Shape{7, 4, 301}, 7, -3, 0);
  auto c = single_node("NegativeLogLikelihoodLoss", {input(x), input(targets(Shape{7, 301}, 4, 8))}, 1, {}, 13);
  expect_matches_cpu(c, Precision::fp32, {1e-4, 1e-5});
}

}  // namespace
}  // namespace vx::test

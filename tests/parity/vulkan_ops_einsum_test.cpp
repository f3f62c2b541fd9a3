// The Vulkan Einsum against the CPU reference kernel on lavapipe with validation on: matmul,
// batch matmul, transpose, sums, inner and outer products, diagonals, ellipses with broadcasting,
// the implicit output form, three operands. Tolerances: fp32 |d| <= 1e-5 + 1e-5 |ref| (f32 sums
// against the CPU's double); fp16 storage |d| <= 1e-3 + 1e-2 |ref|.
#include <gtest/gtest.h>

#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"

namespace vx::test {
namespace {

using vk::Precision;

class VulkanEinsum : public VulkanOpTest {};

TEST_F(VulkanEinsum, Equations) {
  struct Case {
    const char* equation;
    std::vector<Shape> shapes;
  };
  const std::vector<Case> cases = {
      {"ij,jk->ik", {Shape{3, 5}, Shape{5, 4}}},
      {"bij,bjk->bik", {Shape{2, 3, 5}, Shape{2, 5, 7}}},
      {"ij->ji", {Shape{3, 7}}},
      {"ij->i", {Shape{4, 9}}},
      {"ij", {Shape{4, 3}}},
      {"i,i", {Shape{11}, Shape{11}}},
      {"i,j->ij", {Shape{3}, Shape{5}}},
      {"ii->i", {Shape{5, 5}}},
      {"ii", {Shape{4, 4}}},
      {"...ii->...i", {Shape{3, 2, 4, 4}}},
      {"...ij,...jk->...ik", {Shape{2, 1, 3, 4}, Shape{3, 4, 2}}},
      {"bn,anm,bm->ba", {Shape{2, 3}, Shape{4, 3, 5}, Shape{2, 5}}},
      {"ij,ij->", {Shape{3, 4}, Shape{3, 4}}},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    std::vector<NodeInput> in;
    for (const Shape& s : c.shapes) in.push_back(input(random_tensor(s, seed++)));
    Attributes a;
    a.set("equation", std::string(c.equation));
    auto sc = single_node("Einsum", in, 1, a, 12);
    expect_matches_cpu(sc, Precision::fp32, {1e-5, 1e-5}, false, cat("Einsum ", c.equation));
    expect_matches_cpu(sc, Precision::fp16, {-1, -1}, false, cat("Einsum ", c.equation));
  }
}

}  // namespace
}  // namespace vx::test

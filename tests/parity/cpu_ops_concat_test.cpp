// The Concat reference kernel (cpu/reference/concat.cpp) against values computed by hand: any axis,
// any dtype.
// Cases run through the executor with the reference kernels only (ReferenceNode,
// tests/common/cpu_op_test_util.h), so attribute parsing and output shapes are covered too.
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuConcat, ConcatAnyAxisAndDtype) {
  Attributes axis1;
  axis1.set("axis", int64_t(1));
  auto y = ReferenceNode()
               .input(Tensor::from<float>({2, 1}, {1, 2}))
               .input(Tensor::from<float>({2, 2}, {3, 4, 5, 6}))
               .run("Concat", axis1);
  expect_values(y[0], {2, 3}, {1, 3, 4, 2, 5, 6});
  Attributes axis0;
  axis0.set("axis", int64_t(-2));
  auto z = ReferenceNode()
               .input(Tensor::from<int64_t>({1, 2}, {7, 8}))
               .input(Tensor::from<int64_t>({2, 2}, {9, 10, 11, 12}))
               .run("Concat", axis0);
  ASSERT_EQ(z[0].dtype(), DType::i64);
  expect_values(z[0], {3, 2}, {7, 8, 9, 10, 11, 12});
}

}  // namespace
}  // namespace vx::test

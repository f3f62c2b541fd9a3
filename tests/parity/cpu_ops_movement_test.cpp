// Hand-computed cases for the trickiest ONNX semantics of the data-movement reference kernels
// (cpu/reference/movement.cpp; Tile and Gather from pad_tile.cpp and gather.cpp in one case).
// Each kernel runs through a minimal KernelContext (tests/common/cpu_op_test_util.h); expected values
// were worked out by hand from the ONNX spec (and agree with onnx's reference implementation).
#include <limits>

#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

TEST(CpuMovement, SliceNegativeStepsClampAndReverse) {
  // x = [[0..4],[5..9]]; rows reversed from the (clamped) last one, columns 3,1 (step -2).
  auto out = run_op("Slice", {test::iota({2, 5}, 0), i64({100, 3}), i64({-100, 0}), i64({0, 1}), i64({-1, -2})});
  expect_tensor(out[0], Shape{2, 2}, {8, 6, 3, 1});
  // Opset 1 form (attributes), negative axis and start beyond the end.
  out = run_op("Slice", {test::iota({2, 5}, 0)},
               attrs_of({{"starts", std::vector<int64_t>{1}}, {"ends", std::vector<int64_t>{1000}},
                         {"axes", std::vector<int64_t>{-1}}}),
               1, 1);
  expect_tensor(out[0], Shape{2, 4}, {1, 2, 3, 4, 6, 7, 8, 9});
  // An empty result when start passes end.
  out = run_op("Slice", {test::iota({4}, 0), i64({3}), i64({1})});
  expect_tensor(out[0], Shape{0}, {});
}

TEST(CpuMovement, SliceStepsAtTheInt64Limits) {
  const int64_t lo = std::numeric_limits<int64_t>::min(), hi = std::numeric_limits<int64_t>::max();
  // One element each: from the start with the largest step, from the end with the smallest.
  auto out = run_op("Slice", {test::iota({5}, 0), i64({0}), i64({hi}), i64({0}), i64({hi})});
  expect_tensor(out[0], Shape{1}, {0});
  out = run_op("Slice", {test::iota({5}, 0), i64({hi}), i64({lo}), i64({0}), i64({lo})});
  expect_tensor(out[0], Shape{1}, {4});
  // The whole axis reversed with starts/ends at the limits.
  out = run_op("Slice", {test::iota({5}, 0), i64({hi}), i64({lo}), i64({0}), i64({-1})});
  expect_tensor(out[0], Shape{5}, {4, 3, 2, 1, 0});
}

TEST(CpuMovement, DepthToSpaceCrdAndDcr) {
  // 1x8x1x1 channels 0..7, blocksize 2 -> 1x2x2x2.
  Tensor x = test::iota({1, 8, 1, 1}, 0);
  auto crd = run_op("DepthToSpace", {x}, attrs_of({{"blocksize", int64_t(2)}, {"mode", std::string("CRD")}}));
  expect_tensor(crd[0], Shape{1, 2, 2, 2}, {0, 1, 2, 3, 4, 5, 6, 7});
  auto dcr = run_op("DepthToSpace", {x}, attrs_of({{"blocksize", int64_t(2)}}));
  expect_tensor(dcr[0], Shape{1, 2, 2, 2}, {0, 2, 4, 6, 1, 3, 5, 7});
  // SpaceToDepth inverts DCR.
  auto back = run_op("SpaceToDepth", {dcr[0]}, attrs_of({{"blocksize", int64_t(2)}}));
  expect_tensor(back[0], Shape{1, 8, 1, 1}, {0, 1, 2, 3, 4, 5, 6, 7});
}

TEST(CpuMovement, ReshapeZeroAndMinusOne) {
  auto out = run_op("Reshape", {test::iota({2, 3, 4}, 0), i64({0, -1})});
  EXPECT_EQ(out[0].shape(), Shape({2, 12}));
  out = run_op("Reshape", {test::iota({0, 3}, 0), i64({3, 0})}, attrs_of({{"allowzero", int64_t(1)}}));
  EXPECT_EQ(out[0].shape(), Shape({3, 0}));
  EXPECT_THROW(run_op("Reshape", {test::iota({2, 3}, 0), i64({4, -1})}), Error);
}

TEST(CpuMovement, TransposeTileExpandGather) {
  auto t = run_op("Transpose", {test::iota({2, 3}, 0)});
  expect_tensor(t[0], Shape{3, 2}, {0, 3, 1, 4, 2, 5});
  auto tile = run_op("Tile", {test::iota({2}, 0), i64({2})});
  expect_tensor(tile[0], Shape{4}, {0, 1, 0, 1});
  auto e = run_op("Expand", {test::iota({3, 1}, 0), i64({2, 1, 2})});
  expect_tensor(e[0], Shape{2, 3, 2}, {0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2});
  auto g = run_op("Gather", {test::iota({3, 2}, 0), i64({-1, 0})}, attrs_of({{"axis", int64_t(0)}}));
  expect_tensor(g[0], Shape{2, 2}, {4, 5, 0, 1});
  EXPECT_THROW(run_op("Gather", {test::iota({3, 2}, 0), i64({3})}), Error);
}

TEST(CpuMovement, SplitUnevenWithNumOutputs) {
  auto parts = run_op("Split", {test::iota({5}, 0)}, attrs_of({{"num_outputs", int64_t(3)}}), 3, 18);
  expect_tensor(parts[0], Shape{2}, {0, 1});
  expect_tensor(parts[1], Shape{2}, {2, 3});
  expect_tensor(parts[2], Shape{1}, {4});
}

}  // namespace
}  // namespace vx::test

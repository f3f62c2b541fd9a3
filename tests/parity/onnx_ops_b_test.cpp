// Hand-computed cases for the trickiest ONNX semantics of the reference kernels in
// onnx_shape_ops.cpp, onnx_nn_ops.cpp, onnx_pool_ops.cpp, onnx_resize.cpp and onnx_topk.cpp.
// Each kernel runs through a minimal KernelContext; expected values were worked out by hand from
// the ONNX spec (and agree with onnx's reference implementation).
#include <cmath>
#include <limits>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "common/test_util.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "core/thread_pool.h"

namespace vx {
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

// Runs the highest-priority kernel registered for `op`; returns its outputs.
std::vector<Tensor> run_op(const std::string& op, std::vector<Tensor> inputs, Attributes attrs = {},
                           size_t outputs = 1, int64_t opset = 17) {
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

void expect_tensor(const Tensor& got, const Shape& shape, const std::vector<double>& want, double tol = 1e-5) {
  ASSERT_EQ(got.shape(), shape);
  ASSERT_EQ(size_t(got.numel()), want.size());
  for (size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got.get(int64_t(i)), want[i], tol) << "element " << i;
}

Attributes attrs_of(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [name, value] : list) a.set(name, value);
  return a;
}

// ---- shape ops ----

TEST(OnnxOpsB, SliceNegativeStepsClampAndReverse) {
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

TEST(OnnxOpsB, SliceStepsAtTheInt64Limits) {
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

TEST(OnnxOpsB, PadReflectEdgeConstant) {
  Tensor x = f32({2, 3}, {1, 2, 3, 4, 5, 6});
  // reflect: 2 columns on the left, 1 on the right, no rows.
  auto out = run_op("Pad", {x, i64({0, 2, 0, 1})}, attrs_of({{"mode", std::string("reflect")}}));
  expect_tensor(out[0], Shape{2, 6}, {3, 2, 1, 2, 3, 2, 6, 5, 4, 5, 6, 5});
  out = run_op("Pad", {x, i64({1, 0, 0, 2})}, attrs_of({{"mode", std::string("edge")}}));
  expect_tensor(out[0], Shape{3, 5}, {1, 2, 3, 3, 3, 1, 2, 3, 3, 3, 4, 5, 6, 6, 6});
  out = run_op("Pad", {x, i64({0, 1, 0, -1}), f32({}, {9})});  // negative pad crops
  expect_tensor(out[0], Shape{2, 3}, {9, 1, 2, 9, 4, 5});
  // Opset 2: attributes.
  out = run_op("Pad", {x}, attrs_of({{"pads", std::vector<int64_t>{1, 0, 0, 0}}, {"value", 7.0f}}), 1, 2);
  expect_tensor(out[0], Shape{3, 3}, {7, 7, 7, 1, 2, 3, 4, 5, 6});
}

TEST(OnnxOpsB, DepthToSpaceCrdAndDcr) {
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

TEST(OnnxOpsB, ReshapeZeroAndMinusOne) {
  auto out = run_op("Reshape", {test::iota({2, 3, 4}, 0), i64({0, -1})});
  EXPECT_EQ(out[0].shape(), Shape({2, 12}));
  out = run_op("Reshape", {test::iota({0, 3}, 0), i64({3, 0})}, attrs_of({{"allowzero", int64_t(1)}}));
  EXPECT_EQ(out[0].shape(), Shape({3, 0}));
  EXPECT_THROW(run_op("Reshape", {test::iota({2, 3}, 0), i64({4, -1})}), Error);
}

TEST(OnnxOpsB, TransposeTileExpandGather) {
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

TEST(OnnxOpsB, SplitUnevenWithNumOutputs) {
  auto parts = run_op("Split", {test::iota({5}, 0)}, attrs_of({{"num_outputs", int64_t(3)}}), 3, 18);
  expect_tensor(parts[0], Shape{2}, {0, 1});
  expect_tensor(parts[1], Shape{2}, {2, 3});
  expect_tensor(parts[2], Shape{1}, {4});
}

// ---- NN ops ----

TEST(OnnxOpsB, ConvTransposeOutputPaddingBiasAndGroups) {
  // 1-D: x = [1, 2], w = [1, 1], stride 2, output_padding 1: extent 2*(2-1) + 1 + 2 = 5; the
  // padded position receives only the bias.
  Attributes a = attrs_of({{"strides", std::vector<int64_t>{2}}, {"output_padding", std::vector<int64_t>{1}}});
  auto out = run_op("ConvTranspose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1}), f32({1}, {0.5f})}, a);
  expect_tensor(out[0], Shape{1, 1, 5}, {1.5, 1.5, 2.5, 2.5, 0.5});
  // Same with pads [1, 0]: the first output position is cropped.
  a.set("pads", std::vector<int64_t>{1, 0});
  out = run_op("ConvTranspose", {f32({1, 1, 2}, {1, 2}), f32({1, 1, 2}, {1, 1})}, a);
  expect_tensor(out[0], Shape{1, 1, 4}, {1, 2, 2, 0});
  // Two groups of one channel each: each output channel sees only its own input channel.
  out = run_op("ConvTranspose", {f32({1, 2, 1, 1}, {1, 2}), f32({2, 1, 1, 1}, {3, 5})},
               attrs_of({{"group", int64_t(2)}}));
  expect_tensor(out[0], Shape{1, 2, 1, 1}, {3, 10});
}

TEST(OnnxOpsB, MatMulBroadcastsBatchesAndVectors) {
  // [2, 1, 2] x [2, 1] -> [2, 1, 1]; a 1-D left operand drops its row axis.
  auto out = run_op("MatMul", {f32({2, 1, 2}, {1, 2, 3, 4}), f32({2, 1}, {10, 1})});
  expect_tensor(out[0], Shape{2, 1, 1}, {12, 34});
  out = run_op("MatMul", {f32({2}, {1, 2}), f32({2, 2}, {1, 2, 3, 4})});
  expect_tensor(out[0], Shape{2}, {7, 10});
  auto g = run_op("Gemm", {f32({2, 1}, {1, 2}), f32({2, 1}, {3, 4}), f32({1}, {1})},
                  attrs_of({{"transA", int64_t(1)}, {"alpha", 2.0f}, {"beta", 0.5f}}));
  expect_tensor(g[0], Shape{1, 1}, {2 * (3 + 8) + 0.5});
}

TEST(OnnxOpsB, DequantizePerAxisAndQuantizeRoundsHalfToEven) {
  Tensor q(DType::u8, Shape{2, 2});
  for (int i = 0; i < 4; ++i) q.set(i, 10 + i);
  Tensor zero(DType::u8, Shape{2});
  zero.set(0, 10);
  zero.set(1, 12);
  auto out = run_op("DequantizeLinear", {q, f32({2}, {0.5f, 2.0f}), zero}, attrs_of({{"axis", int64_t(0)}}));
  expect_tensor(out[0], Shape{2, 2}, {0, 0.5, 0, 2});
  Tensor z8(DType::u8, Shape{});
  out = run_op("QuantizeLinear", {f32({4}, {0.5f, 1.5f, 2.5f, 1000}), f32({}, {1}), z8});
  EXPECT_EQ(out[0].dtype(), DType::u8);
  expect_tensor(out[0], Shape{4}, {0, 2, 2, 255});
}

// ---- pooling ----

TEST(OnnxOpsB, MaxPoolCeilModeWithIndices) {
  Tensor x = f32({1, 1, 3, 3}, {1, 5, 3, 4, 2, 6, 7, 9, 8});
  Attributes a = attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"strides", std::vector<int64_t>{2, 2}},
                           {"ceil_mode", int64_t(1)}});
  auto out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[0], Shape{1, 1, 2, 2}, {5, 6, 9, 8});
  expect_tensor(out[1], Shape{1, 1, 2, 2}, {1, 5, 7, 8});
  a.set("storage_order", int64_t(1));  // indices counted column-major: h + w * H
  out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[1], Shape{1, 1, 2, 2}, {3, 7, 5, 8});
  a.set("ceil_mode", int64_t(0));
  out = run_op("MaxPool", {x}, a, 2);
  expect_tensor(out[0], Shape{1, 1, 1, 1}, {5});
  // Ties keep the first maximum in the window.
  out = run_op("MaxPool", {f32({1, 1, 1, 3}, {4, 4, 4})}, attrs_of({{"kernel_shape", std::vector<int64_t>{1, 3}}}), 2);
  expect_tensor(out[1], Shape{1, 1, 1, 1}, {0});
}

TEST(OnnxOpsB, AveragePoolCountIncludePad) {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes a = attrs_of({{"kernel_shape", std::vector<int64_t>{2, 2}}, {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
  auto out = run_op("AveragePool", {x}, a);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  a.set("count_include_pad", int64_t(1));
  out = run_op("AveragePool", {x}, a);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {0.25, 0.75, 0.5, 1, 2.5, 1.5, 0.75, 1.75, 1});
}

// ---- Resize ----

TEST(OnnxOpsB, ResizeLinearAlignCorners) {
  Tensor x = f32({1, 1, 2, 2}, {1, 2, 3, 4});
  Attributes a = attrs_of({{"mode", std::string("linear")},
                           {"coordinate_transformation_mode", std::string("align_corners")}});
  auto out = run_op("Resize", {x, Tensor(), Tensor(), i64({1, 1, 3, 3})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  out = run_op("Resize", {x, Tensor(), f32({4}, {1, 1, 1.5f, 1.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 1, 3, 3}, {1, 1.5, 2, 2, 2.5, 3, 3, 3.5, 4});
  // half_pixel (the default) at 2x: coordinates -0.25, 0.25, 0.75, 1.25 clamp at the edges.
  a.set("coordinate_transformation_mode", std::string("half_pixel"));
  out = run_op("Resize", {f32({1, 2}, {0, 4}), Tensor(), f32({2}, {1, 2})}, a, 1, 13);
  expect_tensor(out[0], Shape{1, 4}, {0, 1, 3, 4});
}

TEST(OnnxOpsB, ResizeNearestModes) {
  Tensor x = f32({4}, {10, 20, 30, 40});
  // Downsample 4 -> 2 with asymmetric: coordinates 0 and 2.
  Attributes a = attrs_of({{"coordinate_transformation_mode", std::string("asymmetric")}});
  auto out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {10, 30});
  // half_pixel 4 -> 2 lands exactly between pixels (0.5 and 2.5), where the nearest modes differ.
  a.set("coordinate_transformation_mode", std::string("half_pixel"));
  out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {10, 30});  // round_prefer_floor
  a.set("nearest_mode", std::string("round_prefer_ceil"));
  out = run_op("Resize", {x, Tensor(), f32({1}, {0.5f})}, a, 1, 13);
  expect_tensor(out[0], Shape{2}, {20, 40});
}

// ---- TopK ----

TEST(OnnxOpsB, TopKTiesKeepLowerIndex) {
  Tensor x = f32({5}, {3, 1, 3, 2, 3});
  auto out = run_op("TopK", {x, i64({2})}, {}, 2);
  expect_tensor(out[0], Shape{2}, {3, 3});
  expect_tensor(out[1], Shape{2}, {0, 2});
  out = run_op("TopK", {x, i64({3})}, attrs_of({{"largest", int64_t(0)}}), 2);
  expect_tensor(out[0], Shape{3}, {1, 2, 3});
  expect_tensor(out[1], Shape{3}, {1, 3, 0});
  // Along axis 0 of a matrix.
  out = run_op("TopK", {f32({2, 2}, {1, 5, 2, 5}), i64({1})}, attrs_of({{"axis", int64_t(0)}}), 2);
  expect_tensor(out[0], Shape{1, 2}, {2, 5});
  expect_tensor(out[1], Shape{1, 2}, {1, 0});
}

}  // namespace
}  // namespace vx

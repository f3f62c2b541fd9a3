// Shape inference and the fusion passes: shapes against hand-computed ones, fused graphs against
// the unfused graph's output (reference kernels) and the expected node counts.
#include <algorithm>
#include <limits>

#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/eager_runner.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "core/graph.h"
#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_relu_pool.h"
#include "passes/fuse_upsample_concat_conv.h"
#include "passes/optimize.h"
#include "passes/remove_dead_nodes.h"
#include "passes/shape_inference.h"

namespace vx {
namespace {

Attributes conv3x3() {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("strides", std::vector<int64_t>{1, 1});
  return a;
}
Attributes pool2x2() {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{2, 2});
  a.set("strides", std::vector<int64_t>{2, 2});
  return a;
}
Attributes nearest2x() {
  Attributes a;
  a.set("mode", std::string("nearest"));
  a.set("coordinate_transformation_mode", std::string("asymmetric"));
  a.set("nearest_mode", std::string("floor"));
  return a;
}

// A small U-Net as the denoiser's builder emits it (fused_ops.h): 3 levels, 17 plain ONNX nodes.
struct UNetBuilder {
  Graph g;
  uint64_t seed = 1;
  ValueId scales;

  ValueId conv(const std::string& name, ValueId x, int64_t cin, int64_t cout, bool relu) {
    ValueId w = g.add_constant(name + ".w", test::random_tensor({cout, cin, 3, 3}, seed++, -0.3f, 0.3f));
    ValueId b = g.add_constant(name + ".b", test::random_tensor({cout}, seed++, -0.1f, 0.1f));
    ValueId y = g.add_value(name + ".y", DType::f32, {});
    g.add_node("Conv", name, {x, w, b}, {y}, conv3x3());
    if (!relu) return y;
    ValueId r = g.add_value(name + ".relu", DType::f32, {});
    g.add_node("Relu", name + "_relu", {y}, {r});
    return r;
  }
  ValueId pool(const std::string& name, ValueId x) {
    ValueId y = g.add_value(name + ".y", DType::f32, {});
    g.add_node("MaxPool", name, {x}, {y}, pool2x2());
    return y;
  }
  ValueId upsample_concat(const std::string& name, ValueId low, ValueId skip) {
    ValueId up = g.add_value(name + ".up", DType::f32, {});
    g.add_node("Resize", name + "_up", {low, kNoValue, scales}, {up}, nearest2x());
    ValueId cat = g.add_value(name + ".cat", DType::f32, {});
    Attributes axis;
    axis.set("axis", int64_t(1));
    g.add_node("Concat", name + "_concat", {up, skip}, {cat}, axis);
    return cat;
  }
};

Graph unet_like_graph(int64_t channels = 3) {
  UNetBuilder b;
  b.g.name = "unet_like";
  b.scales = b.g.add_constant("scales", Tensor::from<float>({4}, {1, 1, 2, 2}));
  ValueId x = b.g.add_value("input", DType::f32, {1, channels, -1, -1});
  b.g.inputs = {x};
  ValueId e0 = b.conv("enc_conv0", x, channels, 8, true);
  ValueId p1 = b.pool("pool1", b.conv("enc_conv1", e0, 8, 12, true));
  ValueId p2 = b.pool("pool2", b.conv("enc_conv2", p1, 12, 16, true));
  ValueId d1 = b.conv("dec_conv1", b.upsample_concat("dec1", p2, p1), 28, 12, true);
  ValueId d0 = b.conv("dec_conv0", b.upsample_concat("dec0", d1, e0), 20, 8, true);
  ValueId out = b.conv("output_conv", d0, 8, 3, false);
  b.g.outputs = {out};
  b.g.validate();
  return b.g;
}

Tensor run_reference(const Graph& g, const Tensor& x) {
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"input", x.shape()}}, true), options);
  return exe.run({x})[0];
}

TEST(ShapeInference, ConvPadsStridesDilationsGroups) {
  Graph g;
  ValueId x = g.add_value("x", DType::f32, {2, 6, 17, 5});
  ValueId w = g.add_constant("w", Tensor(DType::f32, {4, 3, 3, 2}));
  ValueId y = g.add_value("y", DType::f32, {});
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 0, 2, 1});
  a.set("strides", std::vector<int64_t>{2, 1});
  a.set("dilations", std::vector<int64_t>{2, 3});
  a.set("group", int64_t(2));
  g.add_node("Conv", "c", {x, w}, {y}, a);
  g.inputs = {x};
  g.outputs = {y};
  infer_shapes(g);
  // H: (17 + 1 + 2 - ((3-1)*2+1)) / 2 + 1 = 8; W: (5 + 0 + 1 - ((2-1)*3+1)) / 1 + 1 = 3
  EXPECT_EQ(g.value(y).shape, Shape({2, 4, 8, 3}));
}

TEST(ShapeInference, ConvAutoPadAndOneDimensional) {
  Graph g;
  ValueId x = g.add_value("x", DType::f32, {1, 2, 10});
  ValueId w = g.add_constant("w", Tensor(DType::f32, {5, 2, 4}));
  ValueId y1 = g.add_value("same", DType::f32, {});
  ValueId y2 = g.add_value("valid", DType::f32, {});
  Attributes same;
  same.set("auto_pad", std::string("SAME_UPPER"));
  same.set("strides", std::vector<int64_t>{3});
  Attributes valid;
  valid.set("auto_pad", std::string("VALID"));
  g.add_node("Conv", "c1", {x, w}, {y1}, same);
  g.add_node("Conv", "c2", {x, w}, {y2}, valid);
  infer_shapes(g);
  EXPECT_EQ(g.value(y1).shape, Shape({1, 5, 4}));  // ceil(10 / 3)
  EXPECT_EQ(g.value(y2).shape, Shape({1, 5, 7}));  // 10 - 4 + 1
}

// Slice (attributes and inputs, negative steps, INT64 limits), Pad, Expand, Tile and Resize (sizes
// for some axes) with constant operands: inferred as the reference kernels compute them, so exported graphs that slice and pad
// stay planned (and on the fast kernels) after them.
TEST(ShapeInference, SlicePadExpandTileResizeAgreeWithTheKernels) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  auto ints = [](const std::vector<int64_t>& v) {
    Tensor t(DType::i64, Shape({int64_t(v.size())}));
    std::copy(v.begin(), v.end(), t.data<int64_t>());
    return t;
  };
  Graph g;
  g.opsets[""] = 9;
  const ValueId x = g.add_value("x", DType::f32, {2, 7, 9});
  g.inputs = {x};
  auto node = [&](const std::string& op, std::vector<ValueId> ins, Attributes a = {}) {
    const ValueId y = g.add_value(op + std::to_string(g.nodes.size()), DType::f32, {});
    g.add_node(op, op + std::to_string(g.nodes.size()), std::move(ins), {y}, std::move(a));
    g.outputs.push_back(y);
    return y;
  };
  Attributes slice1;
  slice1.set("starts", std::vector<int64_t>{1, -3});
  slice1.set("ends", std::vector<int64_t>{kMax, -1});
  slice1.set("axes", std::vector<int64_t>{1, 2});
  const ValueId a = node("Slice", {x}, slice1);
  const ValueId b = node("Slice", {x, g.add_constant("s", ints({-1})), g.add_constant("e", ints({kMin})),
                                   g.add_constant("a", ints({2})), g.add_constant("st", ints({-2}))});
  const ValueId c = node("Pad", {x, g.add_constant("p", ints({0, 1, 0, 0, 2, 1}))});
  const ValueId d = node("Expand", {x, g.add_constant("shape", ints({3, 1, 7, 1}))});
  const ValueId e = node("Tile", {x, g.add_constant("r", ints({1, 2, 3}))});
  Attributes resize_axes;  // opset 18: sizes for the given axes only
  resize_axes.set("axes", std::vector<int64_t>{2});
  resize_axes.set("keep_aspect_ratio_policy", std::string("not_larger"));
  const ValueId f = node("Resize", {x, kNoValue, kNoValue, g.add_constant("sizes", ints({4}))}, resize_axes);
  g.opsets[""] = 18;  // Slice keeps its attributes form: the kernels read attributes when inputs are absent
  infer_shapes(g);
  EXPECT_EQ(g.value(a).shape, Shape({2, 6, 2}));
  EXPECT_EQ(g.value(b).shape, Shape({2, 7, 5}));
  EXPECT_EQ(g.value(c).shape, Shape({2, 10, 10}));
  EXPECT_EQ(g.value(d).shape, Shape({3, 2, 7, 9}));
  EXPECT_EQ(g.value(e).shape, Shape({2, 14, 27}));
  EXPECT_EQ(g.value(f).shape, Shape({2, 7, 4}));
  const std::vector<Tensor> ran = run_graph_eager(g, {test::random_tensor({2, 7, 9}, 3)});
  for (size_t i = 0; i < g.outputs.size(); ++i)
    EXPECT_EQ(ran[i].shape(), g.value(g.outputs[i]).shape) << g.nodes[i].op << " " << i;
}

TEST(ShapeInference, PoolResizeConcatFusedConvAndUnknowns) {
  Graph g = unet_like_graph(5);
  g.value(g.inputs[0]).shape = Shape({1, 5, 12, 20});
  std::vector<bool> known;
  infer_shapes(g, &known);
  EXPECT_EQ(g.value(g.find("pool1.y")).shape, Shape({1, 12, 6, 10}));
  EXPECT_EQ(g.value(g.find("pool2.y")).shape, Shape({1, 16, 3, 5}));
  EXPECT_EQ(g.value(g.find("dec1.up")).shape, Shape({1, 16, 6, 10}));
  EXPECT_EQ(g.value(g.find("dec1.cat")).shape, Shape({1, 28, 6, 10}));
  EXPECT_EQ(g.value(g.outputs[0]).shape, Shape({1, 3, 12, 20}));
  EXPECT_TRUE(known[size_t(g.outputs[0])]);

  Graph fused = g;
  optimize_for_inference(fused);
  for (Value& v : fused.values)
    if (!v.is_constant() && v.name != "input") v.shape = Shape({-1, -1, -1, -1});
  infer_shapes(fused);
  EXPECT_EQ(fused.value(fused.find("pool1.y")).shape, Shape({1, 12, 6, 10}));
  EXPECT_EQ(fused.value(fused.outputs[0]).shape, Shape({1, 3, 12, 20}));

  // An unknown op leaves its output (and everything after it) unknown, without failing.
  Graph h;
  ValueId x = h.add_value("x", DType::f32, {1, 2, 3, 3});
  ValueId u = h.add_value("u", DType::f32, {-1, -1});
  ValueId r = h.add_value("r", DType::f32, {-1, -1});
  h.add_node("MysteryOp", "m", {x}, {u});
  h.add_node("Relu", "r", {u}, {r});
  h.inputs = {x};
  h.outputs = {r};
  infer_shapes(h, &known);
  EXPECT_FALSE(known[size_t(u)]);
  EXPECT_FALSE(known[size_t(r)]);
  EXPECT_EQ(h.value(r).shape, Shape({-1, -1}));
}

TEST(ShapeInference, ErrorsNameTheNode) {
  Graph g;
  ValueId x = g.add_value("x", DType::f32, {1, 3, 8, 8});
  ValueId w = g.add_constant("w", Tensor(DType::f32, {4, 5, 3, 3}));
  ValueId y = g.add_value("y", DType::f32, {});
  g.add_node("Conv", "bad_conv", {x, w}, {y});
  try {
    infer_shapes(g);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_NE(std::string(e.what()).find("bad_conv"), std::string::npos) << e.what();
  }
}

TEST(ShapeInference, RegistryAcceptsNewOps) {
  register_shape_fn("test.Double", [](const Node& n, Graph& g) {
    Shape s = g.value(n.inputs[0]).shape;
    s[0] *= 2;
    g.value(n.outputs[0]).shape = s;
    return true;
  });
  Graph g;
  ValueId x = g.add_value("x", DType::f32, {3, 4});
  ValueId y = g.add_value("y", DType::f32, {});
  g.add_node("test.Double", "d", {x}, {y});
  infer_shapes(g);
  EXPECT_EQ(g.value(y).shape, Shape({6, 4}));
}

TEST(Fusion, ConvBiasReluEachStepKeepsTheOutput) {
  const Graph g = unet_like_graph();
  const Tensor x = test::random_tensor({1, 3, 16, 12}, 7);
  const Tensor expected = run_reference(g, x);
  ASSERT_EQ(g.nodes.size(), 17u);

  Graph a = fuse_conv_bias_relu(g);
  EXPECT_EQ(a.nodes.size(), 12u);  // 5 Relus folded
  EXPECT_EQ(test::count_ops(a, "Conv"), 0);
  EXPECT_EQ(test::count_ops(a, kFusedConv), 6);
  EXPECT_EQ(test::max_abs_diff(run_reference(a, x), expected), 0.0);

  Graph b = fuse_upsample_concat_conv(a);
  EXPECT_EQ(b.nodes.size(), 8u);  // 2 Resizes and 2 Concats folded
  EXPECT_EQ(test::count_ops(b, "Resize") + test::count_ops(b, "Concat"), 0);
  EXPECT_EQ(test::max_abs_diff(run_reference(b, x), expected), 0.0);

  Graph c = fuse_conv_relu_pool(b);
  EXPECT_EQ(c.nodes.size(), 6u);  // 2 MaxPools folded
  EXPECT_EQ(test::count_ops(c, "MaxPool"), 0);
  EXPECT_EQ(test::max_abs_diff(run_reference(c, x), expected), 0.0);

  Graph d = g;
  optimize_for_inference(d);
  EXPECT_EQ(d.nodes.size(), 6u);
  int relu = 0, pool = 0, upcat = 0;
  for (const Node& n : d.nodes) {
    relu += int(n.attrs.get_int("relu", 0));
    pool += int(n.attrs.get_int("pool", 0));
    upcat += int(n.attrs.get_int("upsample_concat", 0));
  }
  EXPECT_EQ(relu, 5);
  EXPECT_EQ(pool, 2);
  EXPECT_EQ(upcat, 2);
  EXPECT_EQ(test::max_abs_diff(run_reference(d, x), expected), 0.0);
}

TEST(Fusion, IntermediatesSeenElsewhereAreNotFused) {
  Graph g = unet_like_graph();
  // Expose the first conv's pre-ReLU value and the first upsampled value as graph outputs.
  ValueId pre_relu = g.find("enc_conv0.y");
  ValueId up = g.find("dec1.up");
  ValueId pool_in = g.find("enc_conv1.relu");
  // A second reader of the ReLU output that feeds pool1 blocks the pool fusion.
  ValueId extra = g.add_value("extra", DType::f32, {});
  g.add_node("Relu", "extra_reader", {pool_in}, {extra});
  g.outputs = {g.outputs[0], pre_relu, up, extra};
  const Tensor x = test::random_tensor({1, 3, 8, 8}, 3);
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable unfused(cpu::make_cpu_plan(g, {{"input", x.shape()}}, true), options);
  auto expected = unfused.run({x});

  Graph f = g;
  optimize_for_inference(f);
  EXPECT_EQ(test::count_ops(f, "Relu"), 2);     // enc_conv0's (its input is an output) and extra_reader
  EXPECT_EQ(test::count_ops(f, "Resize"), 1);   // dec1's upsample is an output
  EXPECT_EQ(test::count_ops(f, "Concat"), 1);
  EXPECT_EQ(test::count_ops(f, "MaxPool"), 1);  // pool1's input has two readers
  cpu::CpuExecutable fused(cpu::make_cpu_plan(f, {{"input", x.shape()}}, true), options);
  auto got = fused.run({x});
  ASSERT_EQ(got.size(), expected.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(test::max_abs_diff(got[i], expected[i]), 0.0) << "output " << i;
}

TEST(Fusion, DeadNodesAreRemoved) {
  Graph g = unet_like_graph();
  ValueId dead1 = g.add_value("dead1", DType::f32, {});
  ValueId dead2 = g.add_value("dead2", DType::f32, {});
  g.add_node("Relu", "dead_a", {g.find("pool1.y")}, {dead1});
  g.add_node("Relu", "dead_b", {dead1}, {dead2});
  Graph h = remove_dead_nodes(g);
  EXPECT_EQ(h.nodes.size(), 17u);
  for (const Node& n : h.nodes) EXPECT_NE(n.name.rfind("dead", 0), 0u) << n.name;
}

}  // namespace
}  // namespace vx

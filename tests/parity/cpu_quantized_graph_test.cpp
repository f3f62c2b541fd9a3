// A quantised (QDQ) graph on the CPU: activations and weights pass through QuantizeLinear ->
// DequantizeLinear as exporters and ONNX Runtime's quantiser write them. Shape inference must see
// through the pairs, or every convolution after them loses its planned shapes and falls back to the
// reference kernel (a QDQ ResNet-50 took 9 s a run instead of 64 ms). The activations' pairs become
// vx.FakeQuantize (passes/fuse_fake_quantize.h), and one after a convolution joins its post-ops
// (passes/post_op_steps.h). The fast kernels and the oneDNN convolution against
// the reference kernels: the float results may differ in the last bits, so a value may land on the
// other side of a rounding boundary when it is quantised again: at most one quantisation step (the
// scale) apart.
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "session/model_runner.h"

namespace vx::test {
namespace {

// Q -> DQ of `x` with one scale and uint8 zero point (an activation's fake quantisation).
ValueId fake_quantize(GraphBuilder& b, ValueId x, float scale, uint8_t zero) {
  const ValueId s = b.constant(Tensor::from<float>({}, {scale}));
  const ValueId z = b.constant(Tensor::from<uint8_t>({}, {zero}));
  return b.node("DequantizeLinear", {b.node("QuantizeLinear", {x, s, z}), s, z});
}

TEST(CpuQuantizedGraph, ConvolutionsBetweenQdqPairsRunOnOneDnnWithTheirOutputPairFused) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 8, 13, 11});
  // Weights quantised per output channel (axis 0), int8 with zero points of 0.
  const Tensor w = random_tensor({6, 8, 3, 3}, 7, -0.3f, 0.3f);
  std::vector<float> scales(6);
  for (size_t c = 0; c < scales.size(); ++c) scales[c] = 0.3f / 127.0f * float(c + 1) / 6.0f + 1e-3f;
  Tensor scale_t(DType::f32, Shape({6}));
  std::copy(scales.begin(), scales.end(), scale_t.data<float>());
  Attributes axis0;
  axis0.set("axis", int64_t(0));
  const ValueId ws = b.constant(scale_t), wz = b.constant(Tensor(DType::i8, Shape({6})));
  const ValueId wq = b.node("QuantizeLinear", {b.constant(w), ws, wz}, axis0);
  const ValueId wdq = b.node("DequantizeLinear", {wq, ws, wz}, axis0);
  Attributes conv;
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId y = b.node("Conv", {fake_quantize(b, x, 0.01f, 128), wdq, b.constant(random_tensor({6}, 8))}, conv);
  b.g.outputs = {fake_quantize(b, b.node("Relu", {y}), 0.02f, 0)};

  ModelRunnerOptions fast_options, reference_options;
  reference_options.reference_only = true;
  ModelRunner fast(b.g, fast_options), reference(b.g, reference_options);
  Profile profile;
  const std::vector<Tensor> got = fast.run(b.feeds, &profile);
  const std::vector<Tensor> want = reference.run(b.feeds);
  int onednn = 0, fast_fake_quantize = 0;
  for (const ProfileEntry& e : profile.entries) {
    onednn += e.variant == "cpu:onednn";
    fast_fake_quantize += e.op == kFakeQuantize && e.variant == "cpu:fast";
  }
  EXPECT_EQ(onednn, 1) << profile.str();
  // The input's pair on its own; the weights' pair folded into a constant; the output's pair (after
  // the Relu) in the convolution's post-ops.
  EXPECT_EQ(fast_fake_quantize, 1) << profile.str();
  EXPECT_EQ(profile.entries.size(), 2u) << profile.str();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].shape(), Shape({1, 6, 13, 11}));
  EXPECT_LE(max_abs_diff(got[0], want[0]), 0.02 + 1e-6);
}

// A HardSigmoid between the convolution and its output's pair: the pair's steps would repeat the
// chain's scale-and-shift and clip with other parameters, which oneDNN 2.6 cannot run
// (ops/eltwise_post_op_algorithms.h), so the chain stops before the pair and both stay fast.
TEST(CpuQuantizedGraph, APairThatOneDnnCannotTakeAfterAChainStaysANode) {
  GraphBuilder b(13);
  const ValueId x = b.input("x", {1, 4, 9, 8});
  Attributes conv;
  conv.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  const ValueId y = b.node("Conv", {x, b.constant(random_tensor({5, 4, 3, 3}, 3, -0.3f, 0.3f))}, conv);
  b.g.outputs = {fake_quantize(b, b.node("HardSigmoid", {y}), 0.01f, 3)};

  ModelRunnerOptions reference_options;
  reference_options.reference_only = true;
  ModelRunner fast(b.g, {}), reference(b.g, reference_options);
  Profile profile;
  const std::vector<Tensor> got = fast.run(b.feeds, &profile);
  const std::vector<Tensor> want = reference.run(b.feeds);
  ASSERT_EQ(profile.entries.size(), 2u) << profile.str();
  EXPECT_EQ(profile.entries[0].variant, "cpu:onednn") << profile.str();
  EXPECT_EQ(profile.entries[1].op, kFakeQuantize) << profile.str();
  EXPECT_EQ(profile.entries[1].variant, "cpu:fast") << profile.str();
  EXPECT_LE(max_abs_diff(got[0], want[0]), 0.01 + 1e-6);
}

}  // namespace
}  // namespace vx::test

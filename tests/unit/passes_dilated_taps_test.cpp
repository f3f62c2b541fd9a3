// crop_dilated_conv_taps: a dilated Conv whose outer taps read only padding becomes the smaller
// convolution of the taps that reach the input (weights, pads, dilations and kernel_shape
// rewritten), and computes what the uncropped one does (reference kernels: 1e-5 of the output's
// peak; the fast kernels on the cropped graph: 1e-4). Convolutions whose every tap reaches the
// input, and undilated ones, are left alone.
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "passes/crop_dilated_conv_taps.h"
#include "session/model_runner.h"

namespace vx {
namespace {

using Builder = test::GraphBuilder;
using Ints = std::vector<int64_t>;

struct ConvSpec {
  Ints input;   // N, C, spatial...
  int64_t outputs = 4, group = 1;
  Ints kernel, dilations, strides, pads;  // pads empty with auto_pad
  std::string auto_pad;
};

Builder conv_graph(const ConvSpec& s) {
  Builder b;
  const ValueId x = b.input("x", Shape(s.input));
  Ints w_dims = {s.outputs, s.input[1] / s.group};
  w_dims.insert(w_dims.end(), s.kernel.begin(), s.kernel.end());
  Attributes a;
  a.set("dilations", s.dilations);
  a.set("group", s.group);
  if (!s.strides.empty()) a.set("strides", s.strides);
  if (!s.pads.empty()) a.set("pads", s.pads);
  if (!s.auto_pad.empty()) a.set("auto_pad", s.auto_pad);
  b.g.outputs = {b.node("Conv", {x, b.constant(test::random_tensor(Shape(w_dims), 5)),
                                 b.constant(test::random_tensor({s.outputs}, 6))},
                        std::move(a))};
  return b;
}

std::vector<Tensor> run(const Graph& g, const std::vector<Tensor>& feeds, bool reference_only) {
  ModelRunnerOptions o;
  o.optimize = false;
  o.reference_only = reference_only;
  return ModelRunner(g, o).run(feeds);
}

// Crops b's Conv; expects the weights' spatial extents `kernel` (and these pads and dilations),
// and the outputs of the uncropped graph.
void check_crop(const ConvSpec& s, const Ints& kernel, const Ints& pads, const Ints& dilations) {
  const Builder b = conv_graph(s);
  const Graph cropped = crop_dilated_conv_taps(b.g);
  ASSERT_EQ(cropped.nodes.size(), 1u);
  const Node& conv = cropped.nodes[0];
  const Shape& w = cropped.value(conv.input(1)).constant.shape();
  EXPECT_EQ(Ints(w.begin() + 2, w.end()), kernel);
  EXPECT_EQ(conv.attrs.get_ints("pads"), pads);
  EXPECT_EQ(conv.attrs.get_ints("dilations"), dilations);
  const std::vector<Tensor> want = run(b.g, b.feeds, true);
  const std::vector<Tensor> ref = run(cropped, b.feeds, true), fast = run(cropped, b.feeds, false);
  EXPECT_EQ(ref[0].shape(), want[0].shape());
  EXPECT_LE(test::max_diff_over_peak(ref[0], want[0]), 1e-5) << "reference kernels";
  EXPECT_LE(test::max_diff_over_peak(fast[0], want[0]), 1e-4) << "fast kernels";
}

TEST(CropDilatedConvTaps, AsppRateLargerThanTheMapIsAPointwiseConv) {
  // DeepLabV3's rate-36 branch in small: every outer tap lands in the padding.
  check_crop({{1, 6, 5, 6}, 4, 1, {3, 3}, {6, 6}, {}, {6, 6, 6, 6}, ""}, {1, 1}, {0, 0, 0, 0}, {1, 1});
}

TEST(CropDilatedConvTaps, OneAxisCroppedTheOtherKept) {
  check_crop({{1, 3, 3, 9}, 5, 1, {3, 3}, {3, 2}, {}, {3, 2, 3, 2}, ""}, {1, 3}, {0, 2, 0, 2}, {1, 2});
}

TEST(CropDilatedConvTaps, StridedAndAsymmetricPads) {
  // Rows at stride 2: tap 0's positions -5, -3, -1 miss the input although they span past 0.
  // Columns: only the last tap misses, so the first two stay, dilated.
  check_crop({{2, 2, 5, 7}, 3, 1, {3, 3}, {5, 5}, {2, 1}, {5, 3, 5, 5}, ""}, {1, 2}, {0, 3, 0, 0}, {1, 5});
}

TEST(CropDilatedConvTaps, AutoPadSameUpperAndGroups) {
  check_crop({{1, 4, 4, 4}, 4, 2, {3, 3}, {4, 4}, {}, {}, "SAME_UPPER"}, {1, 1}, {0, 0, 0, 0}, {1, 1});
}

TEST(CropDilatedConvTaps, OneDimensionalDepthwise) {
  check_crop({{1, 3, 5}, 3, 3, {5}, {4}, {}, {8, 8}, ""}, {3}, {4, 4}, {4});
}

TEST(CropDilatedConvTaps, ConvolutionsWhoseTapsAllReachAreLeftAlone) {
  for (const ConvSpec& s : {ConvSpec{{1, 3, 9, 9}, 4, 1, {3, 3}, {2, 2}, {}, {2, 2, 2, 2}, ""},
                            ConvSpec{{1, 3, 1, 1}, 4, 1, {3, 3}, {1, 1}, {}, {1, 1, 1, 1}, ""}}) {  // undilated
    const Builder b = conv_graph(s);
    const Graph out = crop_dilated_conv_taps(b.g);
    EXPECT_EQ(out.nodes[0].input(1), b.g.nodes[0].input(1));
    EXPECT_EQ(out.nodes[0].attrs.get_ints("pads"), s.pads);
  }
}

}  // namespace
}  // namespace vx

// DilatedConvTaps (cpu/fast/dilated_conv_taps.cpp: a dilated convolution as one 1x1 oneDNN
// convolution per live tap) against the reference Conv kernel, at odd sizes: strides, asymmetric
// pads, a batch of two (every tap on all rows), a dilation larger than the image (one live tap),
// a 1 x k kernel, bias and activations. Machine-independent: the fused conv kernel uses it only
// where oneDNN has no JIT kernel for the dilated convolution (AVX2), but this test always runs it.
#include <dnnl.hpp>

#include "backends/cpu/fast/dilated_conv_taps.h"
#include "common/cpu_op_test_util.h"
#include "common/test_util.h"
#include "core/thread_pool.h"

namespace vx::test {
namespace {

struct TapCase {
  int64_t n, c, h, w, m, kh, kw, stride, dilation_y, dilation_x;
  std::vector<int64_t> pads;  // ONNX order: top, left, bottom, right
  bool bias, relu;
  size_t live_taps;
};

// NCHW <-> NHWC of a 4-D tensor.
Tensor to_nhwc(const Tensor& t) {
  const int64_t n = t.dim(0), c = t.dim(1), hw = t.dim(2) * t.dim(3);
  Tensor out(DType::f32, Shape({n, t.dim(2), t.dim(3), c}));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < hw; ++p) out.data<float>()[(b * hw + p) * c + ch] = t.data<float>()[(b * c + ch) * hw + p];
  return out;
}
Tensor from_nhwc(const Tensor& t) {
  const int64_t n = t.dim(0), h = t.dim(1), w = t.dim(2), c = t.dim(3);
  Tensor out(DType::f32, Shape({n, c, h, w}));
  for (int64_t b = 0; b < n; ++b)
    for (int64_t ch = 0; ch < c; ++ch)
      for (int64_t p = 0; p < h * w; ++p) out.data<float>()[(b * c + ch) * h * w + p] = t.data<float>()[(b * h * w + p) * c + ch];
  return out;
}

TEST(CpuDilatedConvTaps, MatchesTheReferenceConv) {
  const TapCase cases[] = {
      {1, 7, 13, 11, 5, 3, 3, 1, 2, 2, {2, 2, 2, 2}, true, false, 9},
      {1, 9, 17, 15, 6, 3, 3, 2, 3, 3, {1, 3, 2, 0}, true, true, 9},
      {2, 5, 20, 19, 7, 3, 3, 1, 12, 12, {12, 12, 12, 12}, false, true, 9},
      {1, 24, 33, 33, 16, 3, 3, 1, 36, 36, {36, 36, 36, 36}, true, true, 1},  // DeepLabV3's widest ASPP branch
      {1, 24, 33, 33, 16, 3, 3, 1, 24, 24, {24, 24, 24, 24}, true, false, 9},
      {1, 6, 1, 40, 3, 1, 5, 1, 1, 4, {0, 8, 0, 8}, true, false, 5},
  };
  uint64_t seed = 1;
  ThreadPool pool(3);
  for (const TapCase& tc : cases) {
    SCOPED_TRACE(testing::Message() << "case with dilation " << tc.dilation_y << "x" << tc.dilation_x << ", " << tc.h
                                    << "x" << tc.w);
    const Tensor x = random_tensor({tc.n, tc.c, tc.h, tc.w}, seed++);
    const Tensor weights = random_tensor({tc.m, tc.c, tc.kh, tc.kw}, seed++);
    const Tensor bias = random_tensor({tc.m}, seed++);
    std::vector<Tensor> inputs = {x, weights};
    if (tc.bias) inputs.push_back(bias);
    Tensor want = run_op("Conv", inputs,
                         attrs_of({{"kernel_shape", std::vector<int64_t>{tc.kh, tc.kw}},
                                   {"strides", std::vector<int64_t>{tc.stride, tc.stride}},
                                   {"dilations", std::vector<int64_t>{tc.dilation_y, tc.dilation_x}},
                                   {"pads", tc.pads}}))[0];
    if (tc.relu)
      for (int64_t i = 0; i < want.numel(); ++i) want.data<float>()[i] = std::max(0.0f, want.data<float>()[i]);

    cpu::fast::TapConvGeometry g;
    g.n = tc.n, g.c = tc.c, g.h = tc.h, g.w = tc.w, g.m = tc.m, g.oh = want.dim(2), g.ow = want.dim(3);
    g.kh = tc.kh, g.kw = tc.kw, g.stride_y = tc.stride, g.stride_x = tc.stride;
    g.dilation_y = tc.dilation_y, g.dilation_x = tc.dilation_x, g.pad_top = tc.pads[0], g.pad_left = tc.pads[1];
    dnnl::post_ops eltwise;
    if (tc.relu) eltwise.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
    const cpu::fast::DilatedConvTaps taps(g, weights, tc.bias ? bias : Tensor(), eltwise);
    EXPECT_EQ(taps.live_taps(), tc.live_taps);

    const Tensor src = to_nhwc(x);
    Tensor dst(DType::f32, Shape({tc.n, g.oh, g.ow, tc.m}));
    std::vector<float> gathered(taps.gather_bytes() / sizeof(float));
    for (int repeat = 0; repeat < 2; ++repeat) {  // a second run over the same buffers sums afresh
      taps.run(src.data<float>(), dst.data<float>(), gathered.data(), pool);
      EXPECT_LE(max_diff_over_peak(from_nhwc(dst), want), 1e-5) << "run " << repeat;
    }
  }
}

}  // namespace
}  // namespace vx::test

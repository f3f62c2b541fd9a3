// MelWeightMatrix (cpu/reference/generate.cpp): the values are checked by ONNX's conformance case;
// here the shape, the triangles' peaks and the refusals of inputs a model could use to make us
// allocate without bound or write outside the matrix.
#include <algorithm>

#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

std::vector<Tensor> mel(int64_t bands, int64_t dft_length, int64_t sample_rate, float low, float high) {
  return run_op("MelWeightMatrix", {i64({bands}).reshaped(Shape{}), i64({dft_length}).reshaped(Shape{}),
                                    i64({sample_rate}).reshaped(Shape{}), f32({}, {low}), f32({}, {high})});
}

// fn throws an InvalidArgument Error (a test failure otherwise).
template <class Fn>
void expect_invalid_argument(Fn fn) {
  try {
    fn();
    ADD_FAILURE() << "no error thrown";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument) << e.what();
  }
}

TEST(CpuMelWeightMatrix, ShapeAndPeaks) {
  const Tensor m = mel(8, 64, 8000, 0.0f, 4000.0f)[0];
  ASSERT_EQ(m.shape(), (Shape{33, 8}));
  for (int64_t band = 0; band < 8; ++band) {
    float peak = 0;
    for (int64_t bin = 0; bin < 33; ++bin) peak = std::max(peak, m.data<float>()[bin * 8 + band]);
    EXPECT_FLOAT_EQ(peak, 1.0f) << "band " << band;
  }
}

TEST(CpuMelWeightMatrix, RefusesHugeOrOutOfRangeMatrices) {
  expect_invalid_argument([] { mel(65536, 1 << 24, 16000, 0.0f, 8000.0f); });  // 2^39 weights
  expect_invalid_argument([] { mel(8, 64, 8000, 0.0f, 40000.0f); });  // above sample_rate / 2
  expect_invalid_argument([] { mel(0, 64, 8000, 0.0f, 4000.0f); });
}

}  // namespace
}  // namespace vx::test

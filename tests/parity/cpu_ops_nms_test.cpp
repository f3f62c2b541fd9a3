// NonMaxSuppression (cpu/reference/nms.cpp, whose kept boxes are tested in vectorised blocks)
// against the textbook loop written out here: the same indices on many random boxes, ties and
// degenerate boxes included; and "no limit" given as INT64_MAX, as torchvision exports it.
#include <algorithm>
#include <limits>
#include <random>

#include "common/cpu_op_test_util.h"
#include "common/test_util.h"

namespace vx::test {
namespace {

// The textbook NMS of one batch and class: boxes [y1, x1, y2, x2] in either corner order.
std::vector<int64_t> textbook_nms(const std::vector<float>& boxes, const std::vector<float>& scores, int64_t max_out,
                                  float iou_threshold, float score_threshold) {
  auto box = [&](int64_t i, int c) {
    const float a = boxes[size_t(i * 4 + c)], b = boxes[size_t(i * 4 + c + 2)];
    return std::pair<double, double>(std::min(a, b), std::max(a, b));
  };
  auto iou = [&](int64_t i, int64_t k) {
    const auto [iy1, iy2] = box(i, 0);
    const auto [ix1, ix2] = box(i, 1);
    const auto [ky1, ky2] = box(k, 0);
    const auto [kx1, kx2] = box(k, 1);
    const double ih = std::min(iy2, ky2) - std::max(iy1, ky1), iw = std::min(ix2, kx2) - std::max(ix1, kx1);
    if (ih <= 0 || iw <= 0) return 0.0;
    const double inter = ih * iw, uni = (iy2 - iy1) * (ix2 - ix1) + (ky2 - ky1) * (kx2 - kx1) - inter;
    return uni > 0 ? inter / uni : 0.0;
  };
  std::vector<int64_t> order;
  for (int64_t i = 0; i < int64_t(scores.size()); ++i)
    if (scores[size_t(i)] > score_threshold) order.push_back(i);
  std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return scores[size_t(a)] > scores[size_t(b)]; });
  std::vector<int64_t> kept;
  for (int64_t i : order) {
    if (int64_t(kept.size()) >= max_out) break;
    if (std::none_of(kept.begin(), kept.end(), [&](int64_t k) { return iou(i, k) > iou_threshold; })) kept.push_back(i);
  }
  return kept;
}

TEST(CpuNonMaxSuppression, MatchesTheTextbookLoopOnManyRandomBoxes) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> coord(0.0f, 50.0f), size(-2.0f, 12.0f);
  std::uniform_int_distribution<int> score_level(0, 40);  // coarse scores: many ties
  const int64_t n = 700;
  std::vector<float> boxes, scores;
  for (int64_t i = 0; i < n; ++i) {
    // Every third box shifted far away as torchvision's batched NMS shifts each class, one huge box.
    const float shift = i % 3 == 0 ? 1000.0f : 0.0f;
    const float y = coord(rng) + shift, x = coord(rng) + shift;
    if (i == 11) {
      boxes.insert(boxes.end(), {-5000, -5000, 5000, 5000});
      scores.push_back(0.5f);
      continue;
    }
    boxes.insert(boxes.end(), {y, x, y + size(rng), x + size(rng)});  // some corners swapped, some empty
    scores.push_back(float(score_level(rng)) / 40.0f);
  }
  for (const int64_t max_out : {int64_t(5), int64_t(200), std::numeric_limits<int64_t>::max()}) {
    for (const float iou_threshold : {-0.1f, 0.0f, 0.3f, 0.7f}) {
      auto out = run_op("NonMaxSuppression",
                        {f32({1, n, 4}, boxes), f32({1, 1, n}, scores), i64({max_out}), f32({1}, {iou_threshold}),
                         f32({1}, {0.1f})});
      const std::vector<int64_t> want = textbook_nms(boxes, scores, max_out, iou_threshold, 0.1f);
      ASSERT_EQ(out[0].dim(0), int64_t(want.size())) << "max_out " << max_out << " iou " << iou_threshold;
      for (size_t k = 0; k < want.size(); ++k) EXPECT_EQ(out[0].data<int64_t>()[k * 3 + 2], want[k]) << "row " << k;
      EXPECT_GT(want.size(), iou_threshold < 0 ? 0u : 1u);
    }
  }
}

}  // namespace
}  // namespace vx::test

// Reference NonMaxSuppression (opsets 10, 11): per batch and class, boxes above score_threshold
// are taken in descending score order (ties: lower box index first) and each one suppresses the
// later boxes whose IoU with it exceeds iou_threshold, up to max_output_boxes_per_class.
// Output: selected_indices, K x 3 of (batch, class, box).
#include <algorithm>
#include <numeric>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"

namespace vx::cpu::ref {
namespace {

struct Box {
  double y1, x1, y2, x2;  // y1 <= y2, x1 <= x2
};

Box read_box(const std::vector<double>& v, size_t at, bool center_format) {
  if (center_format) {  // [x_center, y_center, width, height]
    double xc = v[at], yc = v[at + 1], w = v[at + 2], h = v[at + 3];
    return {yc - h / 2, xc - w / 2, yc + h / 2, xc + w / 2};
  }
  // [y1, x1, y2, x2] with either corner first.
  return {std::min(v[at], v[at + 2]), std::min(v[at + 1], v[at + 3]), std::max(v[at], v[at + 2]),
          std::max(v[at + 1], v[at + 3])};
}

double iou(const Box& a, const Box& b) {
  double ih = std::min(a.y2, b.y2) - std::max(a.y1, b.y1), iw = std::min(a.x2, b.x2) - std::max(a.x1, b.x1);
  if (ih <= 0 || iw <= 0) return 0;
  double inter = ih * iw;
  double uni = (a.y2 - a.y1) * (a.x2 - a.x1) + (b.y2 - b.y1) * (b.x2 - b.x1) - inter;
  return uni > 0 ? inter / uni : 0;
}

void nms_kernel(KernelContext& ctx) {
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  VX_CHECK(boxes.rank() == 3 && boxes.dim(2) == 4 && scores.rank() == 3 && scores.dim(0) == boxes.dim(0) &&
               scores.dim(2) == boxes.dim(1),
           InvalidArgument, node_label(ctx), ": boxes ", boxes.shape().str(), " and scores ", scores.shape().str(),
           " must be B x N x 4 and B x C x N");
  // read_ints: exporters pass INT64_MAX for "no limit", which a double cannot hold.
  int64_t max_out = ctx.has_input(2) && ctx.input(2).numel() > 0 ? read_ints(ctx.input(2))[0] : 0;
  double iou_threshold = ctx.has_input(3) && ctx.input(3).numel() > 0 ? ctx.input(3).get(0) : 0.0;
  bool has_score_threshold = ctx.has_input(4) && ctx.input(4).numel() > 0;
  // Compare in float, as the thresholds and scores are float data.
  float score_threshold = has_score_threshold ? float(ctx.input(4).get(0)) : 0.0f;
  bool center = ctx.node().attrs.get_int("center_point_box", 0) != 0;
  int64_t batches = scores.dim(0), classes = scores.dim(1), count = scores.dim(2);
  std::vector<double> bv = read_doubles(boxes);
  std::vector<float> sv = read_floats(scores);
  std::vector<int64_t> selected;  // triples
  for (int64_t b = 0; b < batches; ++b) {
    std::vector<Box> all(static_cast<size_t>(count));
    for (int64_t i = 0; i < count; ++i) all[size_t(i)] = read_box(bv, size_t((b * count + i) * 4), center);
    for (int64_t c = 0; c < classes; ++c) {
      const float* s = sv.data() + (b * classes + c) * count;
      std::vector<int64_t> order;
      for (int64_t i = 0; i < count; ++i)
        if (!has_score_threshold || s[i] > score_threshold) order.push_back(i);
      std::stable_sort(order.begin(), order.end(), [&](int64_t x, int64_t y) { return s[x] > s[y]; });
      std::vector<int64_t> kept;
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= max_out) break;
        bool suppressed = false;
        for (int64_t k : kept)
          if (iou(all[size_t(i)], all[size_t(k)]) > iou_threshold) {
            suppressed = true;
            break;
          }
        if (!suppressed) kept.push_back(i);
      }
      for (int64_t k : kept) selected.insert(selected.end(), {b, c, k});
    }
  }
  Tensor& y = ctx.output(0, DType::i64, Shape{int64_t(selected.size() / 3), 3});
  std::copy(selected.begin(), selected.end(), y.data<int64_t>());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(non_max_suppression, {"NonMaxSuppression", "reference", 0, nullptr, nms_kernel});

}  // namespace vx::cpu::ref

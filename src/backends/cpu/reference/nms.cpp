// Reference NonMaxSuppression (opsets 10, 11): per batch and class, boxes above score_threshold
// are taken in descending score order (ties: lower box index first) and each one suppresses the
// later boxes whose IoU with it exceeds iou_threshold, up to max_output_boxes_per_class.
// Output: selected_indices, K x 3 of (batch, class, box).
#include <algorithm>
#include <cmath>
#include <limits>
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

// The boxes kept so far for one class, a structure of arrays with their areas, indexed by a grid of
// rows along y: a box can suppress another only if their y ranges overlap (for a threshold >= 0),
// so a candidate is tested only against the kept boxes of the rows it spans. torchvision's
// detectors run one NMS over ~27,000 boxes of 90 classes (shifted apart so that classes never
// overlap): testing all kept boxes would cost O(candidates x kept). Boxes spanning many rows (or
// with coordinates that are not finite) are tested always, in vectorised blocks. Which kept box
// suppresses does not matter, and the arithmetic is the textbook IoU's in the same order, so the
// results are bit for bit the textbook loop's.
class KeptBoxes {
 public:
  // `candidates`: the boxes that may be added, to size the grid (about one typical box height a row).
  KeptBoxes(const std::vector<Box>& all, const std::vector<int64_t>& candidates, double threshold)
      : threshold_(threshold) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo, heights = 0;
    int64_t finite = 0;
    for (int64_t i : candidates) {
      const Box& b = all[size_t(i)];
      if (!std::isfinite(b.y1) || !std::isfinite(b.y2)) continue;
      lo = std::min(lo, b.y1), hi = std::max(hi, b.y2), heights += b.y2 - b.y1, ++finite;
    }
    if (finite == 0 || !(threshold >= 0) || !(hi > lo)) return;  // no grid: every kept box is tested
    const double typical = std::max(heights / double(finite), (hi - lo) / kMaxRows);
    y0_ = lo;
    row_height_ = typical;
    rows_.resize(size_t(std::min<double>(kMaxRows, std::floor((hi - lo) / typical) + 1)));
  }

  size_t size() const { return index.size(); }

  void add(const Box& b, int64_t i) {
    const size_t k = index.size();
    y1_.push_back(b.y1), x1_.push_back(b.x1), y2_.push_back(b.y2), x2_.push_back(b.x2);
    area_.push_back((b.y2 - b.y1) * (b.x2 - b.x1));
    index.push_back(i);
    all_.push_back(uint32_t(k));
    size_t first, last;
    if (rows_of(b, first, last) && last - first < kMaxRowsPerBox) {
      for (size_t r = first; r <= last; ++r) rows_[r].push_back(uint32_t(k));
    } else {
      wide_.push_back(uint32_t(k));
    }
  }

  // Whether a kept box overlaps `b` by an IoU above the threshold (ties: not suppressed).
  bool suppress(const Box& b) const {
    size_t first, last;
    if (!rows_of(b, first, last)) return suppress_any(b, all_);
    for (size_t r = first; r <= last; ++r)
      if (suppress_any(b, rows_[r])) return true;
    return suppress_any(b, wide_);
  }

  std::vector<int64_t> index;  // the kept boxes, in the order kept

 private:
  static constexpr double kMaxRows = 4096;
  static constexpr size_t kMaxRowsPerBox = 64;

  // The grid rows that b's y range [y1, y2] touches; false without a grid or a finite range.
  bool rows_of(const Box& b, size_t& first, size_t& last) const {
    if (rows_.empty() || !std::isfinite(b.y1) || !std::isfinite(b.y2)) return false;
    const double top = double(rows_.size() - 1);
    first = size_t(std::clamp(std::floor((b.y1 - y0_) / row_height_), 0.0, top));
    last = size_t(std::clamp(std::floor((b.y2 - y0_) / row_height_), 0.0, top));
    return true;
  }

  bool suppress_any(const Box& b, const std::vector<uint32_t>& kept) const {
    const double b_area = (b.y2 - b.y1) * (b.x2 - b.x1);
    constexpr size_t kBlock = 64;  // a vectorised block, then an early exit
    for (size_t j0 = 0; j0 < kept.size(); j0 += kBlock) {
      const size_t j1 = std::min(kept.size(), j0 + kBlock);
      bool any = false;
      for (size_t j = j0; j < j1; ++j) {
        const uint32_t k = kept[j];
        const double ih = std::min(b.y2, y2_[k]) - std::max(b.y1, y1_[k]);
        const double iw = std::min(b.x2, x2_[k]) - std::max(b.x1, x1_[k]);
        const double inter = ih * iw;
        const double uni = b_area + area_[k] - inter;
        // IoU 0 without an overlap or a positive union, as the textbook's early returns give.
        const double iou = ih <= 0 || iw <= 0 || !(uni > 0) ? 0.0 : inter / uni;
        any |= iou > threshold_;
      }
      if (any) return true;
    }
    return false;
  }

  double threshold_;
  double y0_ = 0, row_height_ = 1;
  std::vector<std::vector<uint32_t>> rows_;  // per row: the kept boxes touching it
  std::vector<uint32_t> wide_;                // kept boxes tested by every candidate
  std::vector<uint32_t> all_;                 // every kept box: 0, 1, ... (candidates off the grid)
  std::vector<double> y1_, x1_, y2_, x2_, area_;
};

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
      KeptBoxes kept(all, order, iou_threshold);
      for (int64_t i : order) {
        if (int64_t(kept.size()) >= max_out) break;
        if (!kept.suppress(all[size_t(i)])) kept.add(all[size_t(i)], i);
      }
      for (int64_t k : kept.index) selected.insert(selected.end(), {b, c, k});
    }
  }
  Tensor& y = ctx.output(0, DType::i64, Shape{int64_t(selected.size() / 3), 3});
  std::copy(selected.begin(), selected.end(), y.data<int64_t>());
}

}  // namespace

VX_REGISTER_CPU_KERNEL(non_max_suppression, {"NonMaxSuppression", "reference", 0, nullptr, nms_kernel});

}  // namespace vx::cpu::ref

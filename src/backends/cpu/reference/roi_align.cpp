// RoiAlign (opset 10 / 16): for each region of interest (x1, y1, x2, y2 in input coordinates times
// spatial_scale) an output_height x output_width grid of bins, each the average (or max) of
// bilinear samples on a sampling_ratio grid (adaptive: ceil(roi extent / bins) when 0).
// coordinate_transformation_mode half_pixel (opset 16 default) shifts by -0.5; output_half_pixel
// (opset 10 behaviour) does not and keeps regions at least 1 pixel wide. Sampling rules follow
// ONNX Runtime (the reference implementation's source): samples beyond one pixel outside the image
// are 0; max mode takes the largest weighted corner, as ONNX Runtime does.
#include <algorithm>
#include <cmath>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

void roi_align_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "RoiAlign '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1) && ctx.has_input(2), InvalidArgument, what,
           ": needs X, rois and batch_indices");
  const Tensor &x = ctx.input(0), &rois = ctx.input(1), &batch_index = ctx.input(2);
  VX_CHECK(x.rank() == 4 && rois.rank() == 2 && rois.dim(1) == 4 && batch_index.numel() == rois.dim(0),
           InvalidArgument, what, ": X ", x.shape().str(), ", rois ", rois.shape().str(), " and batch_indices ",
           batch_index.shape().str(), " do not fit");
  const int64_t oh = node.attrs.get_int("output_height", 1), ow = node.attrs.get_int("output_width", 1);
  const int64_t ratio = node.attrs.get_int("sampling_ratio", 0);
  const double scale = node.attrs.get_float("spatial_scale", 1.0f);
  const std::string mode = node.attrs.get_string("mode", "avg");
  const bool half_pixel =
      node.attrs.get_string("coordinate_transformation_mode", ctx.opset() >= 16 ? "half_pixel" : "output_half_pixel") ==
      "half_pixel";
  VX_CHECK(oh > 0 && ow > 0 && ratio >= 0, InvalidArgument, what, ": bad output size or sampling_ratio");
  VX_CHECK(mode == "avg" || mode == "max", InvalidArgument, what, ": mode '", mode, "'");
  const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3), R = rois.dim(0);
  Tensor& y = ctx.output(0, x.dtype(), Shape({R, C, oh, ow}));
  const double offset = half_pixel ? 0.5 : 0.0;
  for (int64_t r = 0; r < R; ++r) {
    const int64_t n = int64_t(batch_index.get(r));
    VX_CHECK(n >= 0 && n < N, InvalidArgument, what, ": batch index ", n, " of roi ", r, " is out of range");
    const double x1 = rois.get(r * 4) * scale - offset, y1 = rois.get(r * 4 + 1) * scale - offset;
    double rw = rois.get(r * 4 + 2) * scale - offset - x1, rh = rois.get(r * 4 + 3) * scale - offset - y1;
    if (!half_pixel) {
      rw = std::max(rw, 1.0);
      rh = std::max(rh, 1.0);
    }
    const double bin_h = rh / double(oh), bin_w = rw / double(ow);
    const int64_t grid_h = ratio > 0 ? ratio : int64_t(std::ceil(rh / double(oh)));
    const int64_t grid_w = ratio > 0 ? ratio : int64_t(std::ceil(rw / double(ow)));
    const double count = double(std::max<int64_t>(grid_h * grid_w, 1));
    for (int64_t c = 0; c < C; ++c) {
      const int64_t base = (n * C + c) * H * W;
      for (int64_t ph = 0; ph < oh; ++ph)
        for (int64_t pw = 0; pw < ow; ++pw) {
          double acc = 0;
          bool first = true;
          for (int64_t iy = 0; iy < grid_h; ++iy)
            for (int64_t ix = 0; ix < grid_w; ++ix) {
              double yy = y1 + double(ph) * bin_h + (double(iy) + 0.5) * bin_h / double(grid_h);
              double xx = x1 + double(pw) * bin_w + (double(ix) + 0.5) * bin_w / double(grid_w);
              double corners[4] = {0, 0, 0, 0};
              if (!(yy < -1.0 || yy > double(H) || xx < -1.0 || xx > double(W))) {
                yy = std::max(yy, 0.0);
                xx = std::max(xx, 0.0);
                int64_t y_low = int64_t(yy), x_low = int64_t(xx), y_high, x_high;
                if (y_low >= H - 1) y_high = y_low = H - 1, yy = double(y_low);
                else y_high = y_low + 1;
                if (x_low >= W - 1) x_high = x_low = W - 1, xx = double(x_low);
                else x_high = x_low + 1;
                const double ly = yy - double(y_low), lx = xx - double(x_low), hy = 1 - ly, hx = 1 - lx;
                corners[0] = hy * hx * x.get(base + y_low * W + x_low);
                corners[1] = hy * lx * x.get(base + y_low * W + x_high);
                corners[2] = ly * hx * x.get(base + y_high * W + x_low);
                corners[3] = ly * lx * x.get(base + y_high * W + x_high);
              }
              if (mode == "avg") {
                acc += corners[0] + corners[1] + corners[2] + corners[3];
              } else {
                const double m = *std::max_element(corners, corners + 4);
                acc = first ? m : std::max(acc, m);
                first = false;
              }
            }
          y.set(((r * C + c) * oh + ph) * ow + pw, mode == "avg" ? acc / count : acc);
        }
    }
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(roi_align_reference, {"RoiAlign", "reference", 0, nullptr, roi_align_kernel});

}  // namespace vx::cpu::ref

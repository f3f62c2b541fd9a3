#version 450
// NO_DEFAULT_VARIANT
// VARIANT f32 -DTX=0
// VARIANT f16 -DTX=1
// RoiAlign: one invocation per output bin (roi, channel, ph, pw) averages (or takes the max of)
// bilinear samples on a grid_h x grid_w grid, following ONNX Runtime like the CPU reference:
// samples beyond one pixel outside the image are 0, max mode takes the largest weighted corner.
// Batch indices are clamped into range (never read out of bounds). fp32 math.
#include "element_types.glsl"
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { elem_t x[]; };
layout(std430, binding = 1) readonly buffer Rois { elem_t rois[]; };
layout(std430, binding = 2) readonly buffer Batch { int batch_index[]; };
layout(std430, binding = 3) writeonly buffer Y { elem_t y[]; };

// Matches RoiAlignPush in roi_align.cpp.
layout(push_constant) uniform Push {
  uint count;
  int batches;
  int channels;
  int height;
  int width;
  int out_height;
  int out_width;
  int sampling_ratio;
  float spatial_scale;
  int half_pixel;
  int max_mode;
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int pw = int(e % uint(p.out_width));
  int ph = int((e / uint(p.out_width)) % uint(p.out_height));
  int c = int((e / uint(p.out_width * p.out_height)) % uint(p.channels));
  int r = int(e / uint(p.out_width * p.out_height * p.channels));
  int n = clamp(batch_index[r], 0, p.batches - 1);
  float offset = p.half_pixel != 0 ? 0.5 : 0.0;
  float x1 = float(rois[r * 4]) * p.spatial_scale - offset, y1 = float(rois[r * 4 + 1]) * p.spatial_scale - offset;
  float rw = float(rois[r * 4 + 2]) * p.spatial_scale - offset - x1;
  float rh = float(rois[r * 4 + 3]) * p.spatial_scale - offset - y1;
  if (p.half_pixel == 0) {
    rw = max(rw, 1.0);
    rh = max(rh, 1.0);
  }
  float bin_h = rh / float(p.out_height), bin_w = rw / float(p.out_width);
  int grid_h = p.sampling_ratio > 0 ? p.sampling_ratio : int(ceil(rh / float(p.out_height)));
  int grid_w = p.sampling_ratio > 0 ? p.sampling_ratio : int(ceil(rw / float(p.out_width)));
  float count = float(max(grid_h * grid_w, 1));
  int base = (n * p.channels + c) * p.height * p.width;
  float acc = 0.0;
  bool first = true;
  for (int iy = 0; iy < grid_h; ++iy)
    for (int ix = 0; ix < grid_w; ++ix) {
      float yy = y1 + float(ph) * bin_h + (float(iy) + 0.5) * bin_h / float(grid_h);
      float xx = x1 + float(pw) * bin_w + (float(ix) + 0.5) * bin_w / float(grid_w);
      vec4 corners = vec4(0.0);
      if (!(yy < -1.0 || yy > float(p.height) || xx < -1.0 || xx > float(p.width))) {
        yy = max(yy, 0.0);
        xx = max(xx, 0.0);
        int y_low = int(yy), x_low = int(xx), y_high, x_high;
        if (y_low >= p.height - 1) {
          y_high = y_low = p.height - 1;
          yy = float(y_low);
        } else {
          y_high = y_low + 1;
        }
        if (x_low >= p.width - 1) {
          x_high = x_low = p.width - 1;
          xx = float(x_low);
        } else {
          x_high = x_low + 1;
        }
        float ly = yy - float(y_low), lx = xx - float(x_low), hy = 1.0 - ly, hx = 1.0 - lx;
        corners = vec4(hy * hx * float(x[base + y_low * p.width + x_low]), hy * lx * float(x[base + y_low * p.width + x_high]),
                       ly * hx * float(x[base + y_high * p.width + x_low]), ly * lx * float(x[base + y_high * p.width + x_high]));
      }
      if (p.max_mode == 0) {
        acc += corners.x + corners.y + corners.z + corners.w;
      } else {
        float m = max(max(corners.x, corners.y), max(corners.z, corners.w));
        acc = first ? m : max(acc, m);
        first = false;
      }
    }
  y[e] = elem_t(p.max_mode == 0 ? acc / count : acc);
}

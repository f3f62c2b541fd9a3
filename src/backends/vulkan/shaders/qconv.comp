#version 450
// Integer convolution (ConvInteger, QLinearConv's accumulator), values int32 on the device:
// acc[n, m, o] = sum over the group's channels and the kernel window of (X - zx) * (W[m] - zw[m]),
// padding contributing nothing (zero after the shift, as ONNX says). 1 to 3 spatial axes, padded
// to 3 (depth, height, width) with extent 1; groups, strides, dilations, begin pads.
layout(local_size_x = 256, local_size_y = 1, local_size_z = 1) in;
#include "linear_index.glsl"

layout(std430, binding = 0) readonly buffer X { int x[]; };
layout(std430, binding = 1) readonly buffer W { int w[]; };
layout(std430, binding = 2) readonly buffer ZX { int zx[]; };
layout(std430, binding = 3) readonly buffer ZW { int zw[]; };
layout(std430, binding = 4) writeonly buffer Acc { int acc[]; };

// Matches QConvPush in qconv.cpp.
layout(push_constant) uniform Push {
  uint count;
  int channels;  // C
  int outputs;   // M
  int group;
  int flags;     // 1 zx, 2 zw, 4 zw per output channel
  int in_dims[3];
  int out_dims[3];
  int kernel[3];
  int strides[3];
  int dilations[3];
  int pads[3];
} p;

void main() {
  uint e = linear_index();
  if (e >= p.count) return;
  int out_spatial = p.out_dims[0] * p.out_dims[1] * p.out_dims[2];
  int o = int(e % uint(out_spatial));
  int m = int((e / uint(out_spatial)) % uint(p.outputs));
  int n = int(e / uint(out_spatial * p.outputs));
  int od = o / (p.out_dims[1] * p.out_dims[2]), oh = (o / p.out_dims[2]) % p.out_dims[1], ow = o % p.out_dims[2];
  int cpg = p.channels / p.group, g = m / (p.outputs / p.group);
  int zero_x = (p.flags & 1) != 0 ? zx[0] : 0;
  int zero_w = (p.flags & 2) != 0 ? zw[(p.flags & 4) != 0 ? m : 0] : 0;
  int in_spatial = p.in_dims[0] * p.in_dims[1] * p.in_dims[2];
  int k_spatial = p.kernel[0] * p.kernel[1] * p.kernel[2];
  int sum = 0;
  for (int c = 0; c < cpg; ++c) {
    int x_base = (n * p.channels + g * cpg + c) * in_spatial;
    int w_base = (m * cpg + c) * k_spatial;
    for (int kd = 0; kd < p.kernel[0]; ++kd) {
      int id = od * p.strides[0] + kd * p.dilations[0] - p.pads[0];
      if (id < 0 || id >= p.in_dims[0]) continue;
      for (int kh = 0; kh < p.kernel[1]; ++kh) {
        int ih = oh * p.strides[1] + kh * p.dilations[1] - p.pads[1];
        if (ih < 0 || ih >= p.in_dims[1]) continue;
        for (int kw = 0; kw < p.kernel[2]; ++kw) {
          int iw = ow * p.strides[2] + kw * p.dilations[2] - p.pads[2];
          if (iw < 0 || iw >= p.in_dims[2]) continue;
          int xv = x[x_base + (id * p.in_dims[1] + ih) * p.in_dims[2] + iw] - zero_x;
          int wv = w[w_base + (kd * p.kernel[1] + kh) * p.kernel[2] + kw] - zero_w;
          sum += xv * wv;
        }
      }
    }
  }
  acc[e] = sum;
}

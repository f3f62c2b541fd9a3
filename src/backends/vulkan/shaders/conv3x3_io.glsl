// Shared by the fused 3x3 conv shaders (conv_direct, conv_tiled, conv_coopmat, conv_coopmat_up):
// activations are NHWC with channels in blocks of 4 (elem4_t); the storage type is f32 or f16
// (TX = 0 / 1), arithmetic is always fp32 (ncnn's sfp/afp split).
//   binding 0: source A: the conv input, or the low-resolution input when upsample_concat
//   binding 1: source B: the skip input when upsample_concat (unused otherwise)
//   binding 2: weights (declared by each shader, its own layout)
//   binding 3: bias, fp32 vec4 per output block
//   binding 4: output (H/2 x W/2 when pool)

layout(push_constant) uniform Params {
  int H, W;           // conv resolution (that of source B when upsample_concat)
  int cin4_a, cin4_b; // vec4 blocks per pixel of each source (cin4_b = 0 without upsample_concat)
  int cout4;          // vec4 blocks per output pixel
  int out_h, out_w;   // output resolution (halved when pool)
  int relu, pool, upcat;
  int k_chunks;       // cooperative-matrix kernel: 16-channel chunks per tap
  int n_pad;          // cooperative-matrix kernel: output channels padded to 16
} p;

layout(std430, binding = 0) readonly buffer SrcA { elem4_t src_a[]; };
layout(std430, binding = 1) readonly buffer SrcB { elem4_t src_b[]; };
layout(std430, binding = 3) readonly buffer Bias { vec4 bias[]; };
layout(std430, binding = 4) writeonly buffer Dst { elem4_t dst[]; };

// Input block c4 of the (virtual) conv input at (y, x); zero outside the image (padding 1).
// With upsample_concat the input is concat(upsample2x_nearest(A), B): blocks [0, cin4_a) come from
// A at (y/2, x/2), the rest from B.
vec4 load_src(int y, int x, int c4) {
  if (y < 0 || x < 0 || y >= p.H || x >= p.W) return vec4(0.0);
  if (p.upcat != 0) {
    if (c4 < p.cin4_a) return vec4(src_a[((y >> 1) * (p.W >> 1) + (x >> 1)) * p.cin4_a + c4]);
    return vec4(src_b[(y * p.W + x) * p.cin4_b + (c4 - p.cin4_a)]);
  }
  return vec4(src_a[(y * p.W + x) * p.cin4_a + c4]);
}

vec4 activate(vec4 v) { return p.relu != 0 ? max(v, vec4(0.0)) : v; }

// Shared by the denoiser's image shaders (input/output processing, autoexposure). User images are
// read and written as raw 32-bit words so that one shader handles f32 and f16 pixels with any byte
// strides (no 16-bit storage needed): an image is a byte offset, a pixel stride, a row stride, a
// channel count and an element type.
//   binding 3: the job parameters below (the input scale is written by the autoexposure pass)
struct ImageDesc {
  uint offset;        // bytes from the start of the bound range to pixel (0, 0)
  uint pixel_stride;  // bytes
  uint row_stride;    // bytes
  int channels;       // 1, 2 or 3
  int half_type;      // 1: f16 elements, 0: f32
  int pad0, pad1, pad2;
};

layout(std430, binding = 3) buffer JobParams {
  float input_scale;   // resolved scale (autoexposure writes it on the device)
  int transfer;        // 0 linear, 1 sRGB, 2 PU (normalised), 3 log (normalised)
  int hdr;
  int input_channels;  // 3, 6 or 9
  int width, height;   // image size
  int bins_h, bins_w;  // autoexposure bins
  float pu_norm;       // 1 / pu_forward(65504), computed on the host as the CPU does
  int snorm;           // the main input is signed, [-1, 1] (normal alone, directional lightmap)
  float log_norm;      // 1 / log(65504 + 1), computed on the host as the CPU does
  int pad0;
  ImageDesc images[4]; // color, albedo, normal, output
} job;

// Element c of pixel (x, y) of image `d` stored in `words`.
#define LOAD_ELEM(words, d, x, y, c, result)                                                    \
  {                                                                                             \
    uint byte_ = d.offset + uint(y) * d.row_stride + uint(x) * d.pixel_stride;                  \
    if (d.half_type != 0) {                                                                     \
      byte_ += uint(c) * 2u;                                                                    \
      result = unpackHalf2x16(words[byte_ >> 2] >> ((byte_ & 2u) * 8u)).x;                      \
    } else {                                                                                    \
      byte_ += uint(c) * 4u;                                                                    \
      result = uintBitsToFloat(words[byte_ >> 2]);                                              \
    }                                                                                           \
  }

// Three channels as OIDN broadcasts them: 1 channel -> (v, v, v), 2 -> (v0, v1, v1).
#define LOAD_RGB(words, d, x, y, rgb)                 \
  {                                                   \
    float a_, b_ = 0.0, c_ = 0.0;                     \
    LOAD_ELEM(words, d, x, y, 0, a_);                 \
    if (d.channels == 1) {                            \
      rgb = vec3(a_);                                 \
    } else {                                          \
      LOAD_ELEM(words, d, x, y, 1, b_);               \
      c_ = b_;                                        \
      if (d.channels >= 3) LOAD_ELEM(words, d, x, y, 2, c_); \
      rgb = vec3(a_, b_, c_);                         \
    }                                                 \
  }

float nan_to_zero(float v) { return isnan(v) ? 0.0 : v; }
// By the exponent bits, so that no driver's fast math can drop the test: Inf and NaN -> 0.
float finite_or_zero(float v) { return (floatBitsToUint(v) & 0x7f800000u) == 0x7f800000u ? 0.0 : v; }

// OIDN's curves (docs/OIDN-FACTS.md), the same constants as src/denoise/transfer.cpp.
const float PU_A = 1.41283765e+03, PU_B = 1.64593172e+00, PU_C = 4.31384981e-01, PU_D = -2.94139609e-03;
const float PU_E = 1.92653254e-01, PU_F = 6.26026094e-03, PU_G = 9.98620152e-01;
const float PU_Y0 = 1.57945760e-06, PU_Y1 = 3.22087631e-02, PU_X0 = 2.23151711e-03, PU_X1 = 3.70974749e-01;

float srgb_forward(float y) { return y <= 0.0031308 ? 12.92 * y : 1.055 * pow(y, 1.0 / 2.4) - 0.055; }
float srgb_inverse(float x) { return x <= 0.04045 ? x / 12.92 : pow((x + 0.055) / 1.055, 2.4); }
float pu_forward(float y) {
  if (y <= PU_Y0) return PU_A * y;
  if (y <= PU_Y1) return PU_B * pow(y, PU_C) + PU_D;
  return PU_E * log(y + PU_F) + PU_G;
}
float pu_inverse(float x) {
  if (x <= PU_X0) return x / PU_A;
  if (x <= PU_X1) return pow((x - PU_D) / PU_B, 1.0 / PU_C);
  return exp((x - PU_G) / PU_E) - PU_F;
}
float transfer_forward(float y) {
  if (job.transfer == 1) return srgb_forward(y);
  if (job.transfer == 2) return pu_forward(y) * job.pu_norm;
  if (job.transfer == 3) return log(y + 1.0) * job.log_norm;
  return y;
}
float transfer_inverse(float x) {
  if (job.transfer == 1) return srgb_inverse(x);
  if (job.transfer == 2) return pu_inverse(x / job.pu_norm);
  if (job.transfer == 3) return exp(x / job.log_norm) - 1.0;
  return x;
}

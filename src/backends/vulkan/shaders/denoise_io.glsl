// Shared by the denoiser's image shaders (input/output processing, autoexposure): the job's
// parameters and OIDN's transfer curves. User images are addressed as user_image.glsl says.
//   binding 3: the job parameters below (the input scale is written by the autoexposure pass)
#include "user_image.glsl"

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

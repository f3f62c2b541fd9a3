// OIDN's transfer functions: the curve that maps linear colour to what the network was trained on.
// HDR uses the normalised PU curve, LDR the sRGB curve (or none when the input is sRGB already or
// is a normal map), HDR lightmaps the normalised log curve. Constants from OIDN 2.4.1
// (docs/OIDN-FACTS.md).
#pragma once

namespace vx::denoise {

float srgb_forward(float linear);   // linear -> sRGB-encoded
float srgb_inverse(float encoded);  // sRGB-encoded -> linear
float pu_forward(float luminance);  // PU2 fit, not normalised
float pu_inverse(float encoded);

enum class TransferKind { linear, srgb, pu, log };

// log(65504 + 1): the log curve's value at the top of the HDR range (OIDN's xMax for Log).
float log_curve_max();

// The curve the filter applies: forward before the network, inverse after it. For PU and log it
// includes the normalisation so that forward(65504) == 1 (log: forward log(y + 1) * normScale,
// inverse exp(x / normScale) - 1).
class TransferFunction {
 public:
  explicit TransferFunction(TransferKind kind);
  TransferKind kind() const { return kind_; }
  float forward(float y) const;
  float inverse(float x) const;

 private:
  TransferKind kind_;
  float pu_norm_scale_;   // 1 / pu_forward(65504)
  float log_norm_scale_;  // 1 / log_curve_max()
};

// The curve for a filter configuration: hdr -> pu; ldr with srgb=false -> srgb; ldr srgb=true -> linear.
TransferKind transfer_for(bool hdr, bool srgb);

}  // namespace vx::denoise

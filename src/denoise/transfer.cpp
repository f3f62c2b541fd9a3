#include "denoise/transfer.h"

#include <cmath>

namespace vx::denoise {

namespace {
// PU2 fit normalised at 100 cd/m^2 (OIDN core/color.h).
constexpr float kA = 1.41283765e+03f;
constexpr float kB = 1.64593172e+00f;
constexpr float kC = 4.31384981e-01f;
constexpr float kD = -2.94139609e-03f;
constexpr float kE = 1.92653254e-01f;
constexpr float kF = 6.26026094e-03f;
constexpr float kG = 9.98620152e-01f;
constexpr float kY0 = 1.57945760e-06f;
constexpr float kY1 = 3.22087631e-02f;
constexpr float kX0 = 2.23151711e-03f;
constexpr float kX1 = 3.70974749e-01f;
constexpr float kHalfMax = 65504.0f;  // largest fp16: the top of the normalised range
}  // namespace

float srgb_forward(float y) { return y <= 0.0031308f ? 12.92f * y : 1.055f * std::pow(y, 1.0f / 2.4f) - 0.055f; }

float srgb_inverse(float x) { return x <= 0.04045f ? x / 12.92f : std::pow((x + 0.055f) / 1.055f, 2.4f); }

float pu_forward(float y) {
  if (y <= kY0) return kA * y;
  if (y <= kY1) return kB * std::pow(y, kC) + kD;
  return kE * std::log(y + kF) + kG;
}

float pu_inverse(float x) {
  if (x <= kX0) return x / kA;
  if (x <= kX1) return std::pow((x - kD) / kB, 1.0f / kC);
  return std::exp((x - kG) / kE) - kF;
}

float log_curve_max() { return std::log(kHalfMax + 1.0f); }

TransferFunction::TransferFunction(TransferKind kind)
    : kind_(kind), pu_norm_scale_(1.0f / pu_forward(kHalfMax)), log_norm_scale_(1.0f / log_curve_max()) {}

float TransferFunction::forward(float y) const {
  switch (kind_) {
    case TransferKind::linear: return y;
    case TransferKind::srgb: return srgb_forward(y);
    case TransferKind::pu: return pu_forward(y) * pu_norm_scale_;
    case TransferKind::log: return std::log(y + 1.0f) * log_norm_scale_;
  }
  return y;
}

float TransferFunction::inverse(float x) const {
  switch (kind_) {
    case TransferKind::linear: return x;
    case TransferKind::srgb: return srgb_inverse(x);
    case TransferKind::pu: return pu_inverse(x / pu_norm_scale_);
    case TransferKind::log: return std::exp(x / log_norm_scale_) - 1.0f;
  }
  return x;
}

TransferKind transfer_for(bool hdr, bool srgb) {
  if (hdr) return TransferKind::pu;
  return srgb ? TransferKind::linear : TransferKind::srgb;
}

}  // namespace vx::denoise

// DFT and STFT (opset 17), by the definition (O(n^2) per transform, double precision).
// DFT: input [..., n, 1 (real) or 2 (complex)], transform along `axis` (default 1) of length
// dft_length (zero-padded or truncated), optionally inverse (1/n scaled) or onesided
// (n/2 + 1 bins). STFT: signal [batch, length, 1 or 2], frame_step, optional window and
// frame_length; output [batch, frames, bins, 2] with frames = (length - frame_length) / step + 1.
#include <algorithm>
#include <cmath>
#include <complex>
#include <numbers>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx::cpu::ref {
namespace {

using Complex = std::complex<double>;

std::vector<Complex> transform(const std::vector<Complex>& in, int64_t bins, bool inverse) {
  const int64_t n = int64_t(in.size());
  std::vector<Complex> out(static_cast<size_t>(bins));
  const double sign = inverse ? 1.0 : -1.0;
  for (int64_t k = 0; k < bins; ++k) {
    Complex sum = 0;
    for (int64_t t = 0; t < n; ++t) {
      const double angle = sign * 2 * std::numbers::pi * double((k * t) % n) / double(n);
      sum += in[size_t(t)] * Complex(std::cos(angle), std::sin(angle));
    }
    out[size_t(k)] = inverse ? sum / double(n) : sum;
  }
  return out;
}

void dft_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "DFT '" + node.name + "'";
  const Tensor& x = ctx.input(0);
  const int64_t rank = int64_t(x.rank());
  VX_CHECK(rank >= 2 && (x.dim(size_t(rank - 1)) == 1 || x.dim(size_t(rank - 1)) == 2), InvalidArgument, what,
           ": input ", x.shape().str(), " must end in 1 (real) or 2 (complex)");
  int64_t axis = node.attrs.get_int("axis", 1);
  if (axis < 0) axis += rank;
  VX_CHECK(axis >= 0 && axis < rank - 1, InvalidArgument, what, ": axis ", node.attrs.get_int("axis", 1),
           " is out of range");
  const bool inverse = node.attrs.get_int("inverse", 0) != 0, onesided = node.attrs.get_int("onesided", 0) != 0;
  const int64_t signal = x.dim(size_t(axis));
  const int64_t n = ctx.has_input(1) && ctx.input(1).numel() > 0 ? int64_t(ctx.input(1).get(0)) : signal;
  VX_CHECK(n > 0, InvalidArgument, what, ": dft_length ", n, " must be positive");
  const int64_t bins = onesided ? n / 2 + 1 : n;
  const bool complex_in = x.dim(size_t(rank - 1)) == 2;
  int64_t outer = 1, inner = 1;
  for (int64_t d = 0; d < axis; ++d) outer *= x.dim(size_t(d));
  for (int64_t d = axis + 1; d < rank - 1; ++d) inner *= x.dim(size_t(d));
  std::vector<int64_t> dims = x.shape().dims();
  dims[size_t(axis)] = bins;
  dims.back() = 2;
  Tensor& y = ctx.output(0, DType::f32, Shape(dims));
  const int64_t comps = complex_in ? 2 : 1;
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      std::vector<Complex> in(static_cast<size_t>(n));
      for (int64_t t = 0; t < std::min(n, signal); ++t) {
        const int64_t at = ((o * signal + t) * inner + i) * comps;
        in[size_t(t)] = Complex(x.get(at), complex_in ? x.get(at + 1) : 0.0);
      }
      const std::vector<Complex> out = transform(in, bins, inverse);
      for (int64_t k = 0; k < bins; ++k) {
        const int64_t at = ((o * bins + k) * inner + i) * 2;
        y.set(at, out[size_t(k)].real());
        y.set(at + 1, out[size_t(k)].imag());
      }
    }
}

void stft_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = "STFT '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1), InvalidArgument, what, ": needs signal and frame_step");
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() == 3 && (x.dim(2) == 1 || x.dim(2) == 2), InvalidArgument, what, ": signal ", x.shape().str(),
           " must be [batch, length, 1 or 2]");
  const int64_t step = int64_t(ctx.input(1).get(0));
  const Tensor* window = ctx.has_input(2) ? &ctx.input(2) : nullptr;
  int64_t frame = ctx.has_input(3) ? int64_t(ctx.input(3).get(0)) : (window ? window->numel() : 0);
  VX_CHECK(frame > 0 && step > 0 && frame <= x.dim(1), InvalidArgument, what, ": frame_length ", frame,
           " / frame_step ", step, " do not fit a signal of ", x.dim(1));
  VX_CHECK(!window || window->numel() == frame, InvalidArgument, what, ": the window has ", window->numel(),
           " values for frames of ", frame);
  const bool onesided = node.attrs.get_int("onesided", 1) != 0;
  const int64_t batch = x.dim(0), length = x.dim(1), comps = x.dim(2);
  const int64_t frames = (length - frame) / step + 1, bins = onesided ? frame / 2 + 1 : frame;
  Tensor& y = ctx.output(0, DType::f32, Shape({batch, frames, bins, 2}));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t f = 0; f < frames; ++f) {
      std::vector<Complex> in(static_cast<size_t>(frame));
      for (int64_t t = 0; t < frame; ++t) {
        const int64_t at = (b * length + f * step + t) * comps;
        const double w = window ? window->get(t) : 1.0;
        in[size_t(t)] = w * Complex(x.get(at), comps == 2 ? x.get(at + 1) : 0.0);
      }
      const std::vector<Complex> out = transform(in, bins, false);
      for (int64_t k = 0; k < bins; ++k) {
        y.set(((b * frames + f) * bins + k) * 2, out[size_t(k)].real());
        y.set(((b * frames + f) * bins + k) * 2 + 1, out[size_t(k)].imag());
      }
    }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(dft_reference, {"DFT", "reference", 0, nullptr, dft_kernel});
VX_REGISTER_CPU_KERNEL(stft_reference, {"STFT", "reference", 0, nullptr, stft_kernel});

}  // namespace vx::cpu::ref

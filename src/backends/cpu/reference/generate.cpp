// Reference kernels for ONNX ops that describe or generate tensors: Shape (with start / end,
// opset 15), Size, ConstantOfShape, Range, NonZero, MelWeightMatrix and the window functions (Hann, Hamming,
// Blackman; opset 17).
#include <algorithm>
#include <cmath>
#include <cstring>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

void shape_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = int64_t(x.rank());
  // start / end are clamped into [0, rank] after adding rank to negative values.
  auto clamp_index = [rank](int64_t v) { return std::clamp(v < 0 ? v + rank : v, int64_t(0), rank); };
  int64_t start = clamp_index(ctx.node().attrs.get_int("start", 0));
  int64_t end = clamp_index(ctx.node().attrs.get_int("end", rank));
  int64_t n = std::max<int64_t>(end - start, 0);
  Tensor& y = ctx.output(0, DType::i64, Shape{n});
  for (int64_t i = 0; i < n; ++i) y.data<int64_t>()[i] = x.dim(size_t(start + i));
}

void size_kernel(KernelContext& ctx) {
  Tensor& y = ctx.output(0, DType::i64, Shape{});
  y.data<int64_t>()[0] = ctx.input(0).numel();
}

void constant_of_shape_kernel(KernelContext& ctx) {
  std::vector<int64_t> dims = int_values(ctx.input(0), ctx, "shape");
  for (int64_t d : dims)
    VX_CHECK(d >= 0, InvalidArgument, node_label(ctx), ": negative extent ", d, " in the requested shape");
  Tensor value = ctx.node().attrs.has("value") ? ctx.node().attrs.get_tensor("value") : Tensor::from<float>({1}, {0.0f});
  VX_CHECK(value.numel() == 1, InvalidArgument, node_label(ctx), ": value must hold one element, not ", value.numel());
  Tensor& y = ctx.output(0, value.dtype(), Shape(dims));
  const size_t elem = dtype_size(value.dtype());
  char* out = static_cast<char*>(y.raw());
  for (int64_t i = 0; i < y.numel(); ++i) std::memcpy(out + size_t(i) * elem, value.raw(), elem);
}

void range_kernel(KernelContext& ctx) {
  const Tensor& start_t = ctx.input(0);
  for (size_t i = 0; i < 3; ++i) {
    VX_CHECK(ctx.input(i).numel() == 1, InvalidArgument, node_label(ctx), ": input ", i, " must be a scalar");
    VX_CHECK(ctx.input(i).dtype() == start_t.dtype(), InvalidArgument, node_label(ctx), ": inputs differ in type");
  }
  dispatch<kFloat | kSigned>(start_t.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    T start = ctx.input(0).data<T>()[0], limit = ctx.input(1).data<T>()[0], delta = ctx.input(2).data<T>()[0];
    VX_CHECK(delta != 0, InvalidArgument, node_label(ctx), ": delta must not be 0");
    double count = std::ceil((double(limit) - double(start)) / double(delta));
    VX_CHECK(!std::isnan(count) && count < double(int64_t(1) << 40), InvalidArgument, node_label(ctx),
             ": the range holds too many elements");
    int64_t n = std::max<int64_t>(int64_t(count), 0);
    Tensor& y = ctx.output(0, start_t.dtype(), Shape{n});
    T* out = y.data<T>();
    for (int64_t i = 0; i < n; ++i) out[i] = T(start + T(i) * delta);
  });
}

void nonzero_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const size_t rank = x.rank();
  std::vector<int64_t> hits;
  dispatch<kAll>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const T* in = x.data<T>();
    for (int64_t i = 0; i < x.numel(); ++i)
      if (in[i] != T(0)) hits.push_back(i);
  });
  const int64_t n = int64_t(hits.size());
  Tensor& y = ctx.output(0, DType::i64, Shape{int64_t(rank), n});
  int64_t* out = y.data<int64_t>();
  std::vector<int64_t> strides = strides_of(x.shape());
  for (int64_t k = 0; k < n; ++k) {
    int64_t rest = hits[size_t(k)];
    for (size_t d = 0; d < rank; ++d) {
      out[int64_t(d) * n + k] = rest / strides[d];
      rest %= strides[d];
    }
  }
}

enum class Window { hann, hamming, blackman };

// Windows are float32 (output_datatype FLOAT or DOUBLE, which we store as float32) or integers.
template <Window kind>
void window_kernel(KernelContext& ctx) {
  std::vector<int64_t> size_v = int_values(ctx.input(0), ctx, "size");
  VX_CHECK(size_v.size() == 1 && size_v[0] >= 0 && size_v[0] < (int64_t(1) << 31), InvalidArgument, node_label(ctx),
           ": size must be a non-negative scalar");
  const int64_t n = size_v[0];
  const bool periodic = ctx.node().attrs.get_int("periodic", 1) != 0;
  const int64_t out_type = ctx.node().attrs.get_int("output_datatype", 1);
  DType dtype = out_type == 1 || out_type == 11 ? DType::f32 : out_type == 7 ? DType::i64 : out_type == 6 ? DType::i32
                                                                                              : DType::f16;
  VX_CHECK(out_type == 1 || out_type == 11 || out_type == 7 || out_type == 6 || out_type == 10, Unsupported,
           node_label(ctx), ": output_datatype ", out_type, " is not supported");
  Tensor& y = ctx.output(0, dtype, Shape{n});
  const double denom = double(periodic ? n : n - 1);
  const double two_pi = 2.0 * 3.14159265358979323846;
  for (int64_t i = 0; i < n; ++i) {
    double x = denom > 0 ? two_pi * double(i) / denom : 0.0;
    double w;
    if constexpr (kind == Window::hann) w = 0.5 - 0.5 * std::cos(x);
    else if constexpr (kind == Window::hamming) w = 25.0 / 46.0 - (1.0 - 25.0 / 46.0) * std::cos(x);
    else w = 0.42 - 0.5 * std::cos(x) + 0.08 * std::cos(2.0 * x);
    y.set(i, w);
  }
}

// MelWeightMatrix (opset 17): [floor(dft_length / 2) + 1, num_mel_bins] triangles of peak 1 on the mel
// scale mel(f) = 2595 log10(1 + f / 700), with ONNX's reference construction: num_mel_bins + 2 edges
// spaced (high - low) / (num_mel_bins + 2) apart in mels from the lower edge, each mapped to the
// spectrogram bin floor((dft_length + 1) f / sample_rate); band i rises from edge i to edge i + 1
// (a single 1 when they coincide) and falls to edge i + 2.
void mel_weight_matrix_kernel(KernelContext& ctx) {
  auto scalar_int = [&](size_t i, const char* what) {
    const std::vector<int64_t> v = int_values(ctx.input(i), ctx, what);
    VX_CHECK(v.size() == 1, InvalidArgument, node_label(ctx), ": ", what, " must be a scalar");
    return v[0];
  };
  const int64_t bands = scalar_int(0, "num_mel_bins"), dft_length = scalar_int(1, "dft_length"),
                sample_rate = scalar_int(2, "sample_rate");
  VX_CHECK(bands > 0 && bands <= (1 << 16) && dft_length > 0 && dft_length <= (int64_t(1) << 24) && sample_rate > 0,
           InvalidArgument, node_label(ctx), ": num_mel_bins ", bands, ", dft_length ", dft_length, " and sample_rate ",
           sample_rate, " must be positive (and at most 65536 bands, 2^24 DFT points)");
  VX_CHECK(ctx.input(3).numel() == 1 && ctx.input(4).numel() == 1, InvalidArgument, node_label(ctx),
           ": the edges must be scalars");
  const double low = ctx.input(3).get(0), high = ctx.input(4).get(0);
  VX_CHECK(low >= 0 && high >= low && std::isfinite(high), InvalidArgument, node_label(ctx), ": edges ", low, " and ",
           high, " Hz must satisfy 0 <= lower <= upper");
  const int64_t out_type = ctx.node().attrs.get_int("output_datatype", 1);
  VX_CHECK(out_type == 1 || out_type == 11, Unsupported, node_label(ctx), ": output_datatype ", out_type,
           " is not supported (float)");
  const int64_t bins = dft_length / 2 + 1;
  // A bound on what a model's inputs make us allocate: 2^28 weights (1 GiB), far above any real
  // filterbank (Whisper's: 201 x 80).
  VX_CHECK(bins * bands <= (int64_t(1) << 28), InvalidArgument, node_label(ctx), ": a ", bins, " x ", bands,
           " matrix is more than 2^28 weights");
  const double low_mel = 2595.0 * std::log10(1.0 + low / 700.0), high_mel = 2595.0 * std::log10(1.0 + high / 700.0);
  const double step = (high_mel - low_mel) / double(bands + 2);
  std::vector<int64_t> edge(size_t(bands + 2));
  for (int64_t i = 0; i < bands + 2; ++i) {
    const double hz = 700.0 * (std::pow(10.0, (double(i) * step + low_mel) / 2595.0) - 1.0);
    edge[size_t(i)] = int64_t(std::floor(double(dft_length + 1) * hz / double(sample_rate)));
  }
  Tensor& y = ctx.output(0, DType::f32, Shape{bins, bands});
  float* out = y.data<float>();
  std::fill_n(out, y.numel(), 0.0f);
  auto put = [&](int64_t bin, int64_t band, double v) {
    VX_CHECK(bin >= 0 && bin < bins, InvalidArgument, node_label(ctx), ": upper_edge_hertz ", high,
             " Hz lies above the spectrogram's last bin (sample_rate / 2)");
    out[bin * bands + band] = float(v);
  };
  for (int64_t i = 0; i < bands; ++i) {
    const int64_t left = edge[size_t(i)], center = edge[size_t(i + 1)], right = edge[size_t(i + 2)];
    if (center == left) {
      put(center, i, 1.0);
    } else {
      for (int64_t j = left; j <= center; ++j) put(j, i, double(j - left) / double(center - left));
    }
    for (int64_t j = center; j < right; ++j) put(j, i, double(right - j) / double(right - center));
  }
}

}  // namespace

VX_REGISTER_CPU_KERNEL(mel_weight_matrix, {"MelWeightMatrix", "reference", 0, nullptr, mel_weight_matrix_kernel});
VX_REGISTER_CPU_KERNEL(hann_window, {"HannWindow", "reference", 0, nullptr, window_kernel<Window::hann>});
VX_REGISTER_CPU_KERNEL(hamming_window, {"HammingWindow", "reference", 0, nullptr, window_kernel<Window::hamming>});
VX_REGISTER_CPU_KERNEL(blackman_window, {"BlackmanWindow", "reference", 0, nullptr, window_kernel<Window::blackman>});
VX_REGISTER_CPU_KERNEL(shape, {"Shape", "reference", 0, nullptr, shape_kernel});
VX_REGISTER_CPU_KERNEL(size, {"Size", "reference", 0, nullptr, size_kernel});
VX_REGISTER_CPU_KERNEL(constant_of_shape, {"ConstantOfShape", "reference", 0, nullptr, constant_of_shape_kernel});
VX_REGISTER_CPU_KERNEL(range, {"Range", "reference", 0, nullptr, range_kernel});
VX_REGISTER_CPU_KERNEL(nonzero, {"NonZero", "reference", 0, nullptr, with_f16_as_f32(nonzero_kernel)});

}  // namespace vx::cpu::ref

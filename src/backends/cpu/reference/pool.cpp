// Reference pooling with full ONNX semantics: MaxPool (1-D/2-D/3-D, pads, strides, dilations,
// ceil_mode, auto_pad, storage_order and the Indices output), AveragePool (count_include_pad,
// ceil_mode, dilations), LpPool, GlobalAveragePool, GlobalMaxPool and GlobalLpPool; and max_pool
// (reference_ops.h), the plain max pooling the fused conv composes.
#include <algorithm>
#include <cmath>
#include <limits>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/kernel_util.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

void max_pool(const Tensor& x, const WindowGeometry& g, Tensor& y, Tensor* indices) {
  const size_t rank = g.rank();
  VX_CHECK(rank >= 1 && rank <= 3 && x.rank() == rank + 2 && y.rank() == rank + 2, InvalidArgument,
           "max_pool: X ", x.shape().str(), " and Y ", y.shape().str(), " must be N,C plus 1 to 3 spatial axes");
  auto pad3 = [&](const std::vector<int64_t>& v, int64_t fill) {
    std::vector<int64_t> r(3 - rank, fill);
    r.insert(r.end(), v.begin(), v.end());
    return r;
  };
  std::vector<int64_t> in_ext(x.shape().begin() + 2, x.shape().end());
  const auto in = pad3(in_ext, 1), out = pad3(g.output, 1), k = pad3(g.kernel, 1), s = pad3(g.strides, 1),
             d = pad3(g.dilations, 1), p = pad3(g.pads_begin, 0);
  VX_CHECK(y.dim(0) == x.dim(0) && y.dim(1) == x.dim(1), InvalidArgument, "max_pool: Y has shape ", y.shape().str());
  for (size_t i = 0; i < rank; ++i)
    VX_CHECK(y.dim(i + 2) == g.output[i], InvalidArgument, "max_pool: Y has shape ", y.shape().str());
  const int64_t planes = x.dim(0) * x.dim(1), in_plane = in[0] * in[1] * in[2], out_plane = out[0] * out[1] * out[2];
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  int64_t* ip = indices ? indices->data<int64_t>() : nullptr;
  for (int64_t pl = 0; pl < planes; ++pl)
    for (int64_t oz = 0; oz < out[0]; ++oz)
      for (int64_t oy = 0; oy < out[1]; ++oy)
        for (int64_t ox = 0; ox < out[2]; ++ox) {
          float best = -std::numeric_limits<float>::infinity();
          int64_t best_index = -1;
          for (int64_t kz = 0; kz < k[0]; ++kz) {
            const int64_t iz = oz * s[0] - p[0] + kz * d[0];
            if (iz < 0 || iz >= in[0]) continue;
            for (int64_t ky = 0; ky < k[1]; ++ky) {
              const int64_t iy = oy * s[1] - p[1] + ky * d[1];
              if (iy < 0 || iy >= in[1]) continue;
              for (int64_t kx = 0; kx < k[2]; ++kx) {
                const int64_t ix = ox * s[2] - p[2] + kx * d[2];
                if (ix < 0 || ix >= in[2]) continue;
                const int64_t at = pl * in_plane + (iz * in[1] + iy) * in[2] + ix;
                if (best_index < 0 || xp[at] > best) {
                  best = xp[at];
                  best_index = at;
                }
              }
            }
          }
          const int64_t o = pl * out_plane + (oz * out[1] + oy) * out[2] + ox;
          yp[o] = best;
          if (ip) ip[o] = best_index;
        }
}

namespace {

// Where each pooling window lies: per spatial axis, input and output extents, kernel, stride,
// dilation and the padding before / after.
struct PoolGeometry {
  std::vector<int64_t> in, out, kernel, strides, dilations, pad_begin, pad_end;
  size_t rank() const { return in.size(); }
};

PoolGeometry pool_geometry(const KernelContext& ctx, const Tensor& x) {
  const Attributes& attrs = ctx.node().attrs;
  VX_CHECK(x.rank() >= 3, InvalidArgument, node_label(ctx), ": expects N x C x D1..., got ", x.shape().str());
  size_t nd = x.rank() - 2;
  PoolGeometry g;
  g.in.assign(x.shape().begin() + 2, x.shape().end());
  g.kernel = attrs.get_ints("kernel_shape");
  VX_CHECK(g.kernel.size() == nd, InvalidArgument, node_label(ctx), ": kernel_shape has ", g.kernel.size(),
           " entries for ", nd, " spatial axes");
  auto per_axis = [&](const char* name, int64_t fallback) {
    std::vector<int64_t> v = attrs.get_ints(name);
    if (v.empty()) v.assign(nd, fallback);
    VX_CHECK(v.size() == nd, InvalidArgument, node_label(ctx), ": ", name, " has ", v.size(), " entries");
    return v;
  };
  g.strides = per_axis("strides", 1);
  g.dilations = per_axis("dilations", 1);
  std::vector<int64_t> pads = attrs.get_ints("pads");
  if (pads.empty()) pads.assign(2 * nd, 0);
  VX_CHECK(pads.size() == 2 * nd, InvalidArgument, node_label(ctx), ": pads has ", pads.size(), " entries");
  std::string auto_pad = attrs.get_string("auto_pad", "NOTSET");
  bool ceil_mode = attrs.get_int("ceil_mode", 0) != 0;
  g.out.resize(nd);
  g.pad_begin.resize(nd);
  g.pad_end.resize(nd);
  for (size_t i = 0; i < nd; ++i) {
    int64_t k = g.kernel[i], s = g.strides[i], d = g.dilations[i];
    VX_CHECK(k >= 1 && s >= 1 && d >= 1, InvalidArgument, node_label(ctx),
             ": kernel, strides and dilations must be >= 1");
    int64_t span = (k - 1) * d + 1;  // the dilated window
    if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
      g.out[i] = (g.in[i] + s - 1) / s;
      int64_t total = std::max<int64_t>(0, (g.out[i] - 1) * s + span - g.in[i]);
      g.pad_begin[i] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
      g.pad_end[i] = total - g.pad_begin[i];
    } else if (auto_pad == "VALID") {
      g.pad_begin[i] = g.pad_end[i] = 0;
      g.out[i] = g.in[i] >= span ? (g.in[i] - span) / s + 1 : 0;
    } else {
      VX_CHECK(auto_pad == "NOTSET", Unsupported, node_label(ctx), ": unknown auto_pad '", auto_pad, "'");
      g.pad_begin[i] = pads[i];
      g.pad_end[i] = pads[i + nd];
      int64_t room = g.in[i] + g.pad_begin[i] + g.pad_end[i] - span;
      VX_CHECK(room >= 0, InvalidArgument, node_label(ctx), ": the window is larger than the padded input on axis ", i);
      g.out[i] = (ceil_mode ? (room + s - 1) / s : room / s) + 1;
      // A last window that would start inside the end padding is dropped (as PyTorch does).
      if (ceil_mode && (g.out[i] - 1) * s >= g.in[i] + g.pad_begin[i]) --g.out[i];
    }
  }
  return g;
}

// Calls fn(output_index, window) for every output position of one plane, where window lists the
// plane offsets of the window's elements that lie inside the input, and `covered` is how many
// window positions lie inside the padded extent (the count_include_pad divisor).
template <class Fn>
void for_each_window(const PoolGeometry& g, Fn&& fn) {
  size_t nd = g.rank();
  std::vector<int64_t> in_strides = strides_of(g.in), out_strides = strides_of(g.out);
  int64_t out_total = product(g.out, 0, nd), k_total = product(g.kernel, 0, nd);
  std::vector<int64_t> k_strides = strides_of(g.kernel);
  std::vector<int64_t> window, coords;
  for (int64_t o = 0; o < out_total; ++o) {
    window.clear();
    int64_t covered = 1;
    std::vector<int64_t> start(nd);
    for (size_t d = 0; d < nd; ++d) {
      start[d] = o / out_strides[d] % g.out[d] * g.strides[d] - g.pad_begin[d];
      // Window positions inside [-pad_begin, in + pad_end): the divisor with count_include_pad.
      int64_t inside = 0;
      for (int64_t k = 0; k < g.kernel[d]; ++k) {
        int64_t p = start[d] + k * g.dilations[d];
        inside += p >= -g.pad_begin[d] && p < g.in[d] + g.pad_end[d];
      }
      covered *= inside;
    }
    for (int64_t q = 0; q < k_total; ++q) {
      int64_t offset = 0;
      bool valid = true;
      for (size_t d = 0; d < nd && valid; ++d) {
        int64_t p = start[d] + q / k_strides[d] % g.kernel[d] * g.dilations[d];
        valid = p >= 0 && p < g.in[d];
        offset += p * in_strides[d];
      }
      if (valid) window.push_back(offset);
    }
    fn(o, window, covered);
  }
}

std::vector<int64_t> pooled_dims(const Tensor& x, const std::vector<int64_t>& spatial) {
  std::vector<int64_t> dims = {x.dim(0), x.dim(1)};
  dims.insert(dims.end(), spatial.begin(), spatial.end());
  return dims;
}

void max_pool_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  PoolGeometry g = pool_geometry(ctx, x);
  int64_t storage_order = ctx.node().attrs.get_int("storage_order", 0);
  VX_CHECK(storage_order == 0 || storage_order == 1, InvalidArgument, node_label(ctx), ": storage_order must be 0 or 1");
  int64_t planes = x.dim(0) * x.dim(1), in_size = product(g.in, 0, g.rank()), out_size = product(g.out, 0, g.rank());
  std::vector<double> src = read_doubles(x), dst(size_t(planes * out_size));
  std::vector<int64_t> argmax(dst.size(), 0);
  // Indices count column-major over the spatial axes when storage_order is 1.
  std::vector<int64_t> row_strides = strides_of(g.in), col_strides(g.rank(), 1);
  for (size_t d = 1; d < g.rank(); ++d) col_strides[d] = col_strides[d - 1] * g.in[d - 1];
  for (int64_t plane = 0; plane < planes; ++plane) {
    const double* p = src.data() + plane * in_size;
    for_each_window(g, [&](int64_t o, const std::vector<int64_t>& window, int64_t) {
      double best = -std::numeric_limits<double>::infinity();
      int64_t best_at = window.empty() ? 0 : window[0];
      for (int64_t w : window)
        if (p[w] > best) {  // strictly greater: the first maximum wins ties
          best = p[w];
          best_at = w;
        }
      int64_t index = best_at;
      if (storage_order == 1) {
        index = 0;
        for (size_t d = 0; d < g.rank(); ++d) index += best_at / row_strides[d] % g.in[d] * col_strides[d];
      }
      dst[size_t(plane * out_size + o)] = best;
      argmax[size_t(plane * out_size + o)] = plane * in_size + index;
    });
  }
  Shape shape(pooled_dims(x, g.out));
  write_doubles(ctx.output(0, x.dtype(), shape), dst);
  if (ctx.num_outputs() > 1) {
    Tensor& indices = ctx.output(1, DType::i64, shape);
    std::copy(argmax.begin(), argmax.end(), indices.data<int64_t>());
  }
}

void average_pool_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  PoolGeometry g = pool_geometry(ctx, x);
  bool include_pad = ctx.node().attrs.get_int("count_include_pad", 0) != 0;
  int64_t planes = x.dim(0) * x.dim(1), in_size = product(g.in, 0, g.rank()), out_size = product(g.out, 0, g.rank());
  std::vector<double> src = read_doubles(x), dst(size_t(planes * out_size));
  for (int64_t plane = 0; plane < planes; ++plane) {
    const double* p = src.data() + plane * in_size;
    for_each_window(g, [&](int64_t o, const std::vector<int64_t>& window, int64_t covered) {
      double sum = 0;
      for (int64_t w : window) sum += p[w];
      int64_t count = include_pad ? covered : int64_t(window.size());
      dst[size_t(plane * out_size + o)] = count > 0 ? sum / double(count) : 0.0;
    });
  }
  write_doubles(ctx.output(0, x.dtype(), Shape(pooled_dims(x, g.out))), dst);
}

void lp_pool_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  PoolGeometry g = pool_geometry(ctx, x);
  double power = double(ctx.node().attrs.get_int("p", 2));
  int64_t planes = x.dim(0) * x.dim(1), in_size = product(g.in, 0, g.rank()), out_size = product(g.out, 0, g.rank());
  std::vector<double> src = read_doubles(x), dst(size_t(planes * out_size));
  for (int64_t plane = 0; plane < planes; ++plane) {
    const double* p = src.data() + plane * in_size;
    for_each_window(g, [&](int64_t o, const std::vector<int64_t>& window, int64_t) {
      double sum = 0;
      for (int64_t w : window) sum += std::pow(std::abs(p[w]), power);
      dst[size_t(plane * out_size + o)] = std::pow(sum, 1.0 / power);
    });
  }
  write_doubles(ctx.output(0, x.dtype(), Shape(pooled_dims(x, g.out))), dst);
}

// Global pooling: one value per (n, c) plane of x into y (N x C x 1 x ...).
template <class Reduce>
void global_pool(const Tensor& x, Tensor& y, Reduce&& reduce) {
  int64_t planes = x.dim(0) * x.dim(1), size = product(x.shape().dims(), 2, x.rank());
  std::vector<double> src = read_doubles(x), dst(static_cast<size_t>(planes));
  for (int64_t p = 0; p < planes; ++p) dst[size_t(p)] = reduce(src.data() + p * size, size);
  write_doubles(y, dst);
}

// The global pool node's output, spatial extents 1, with x's dtype.
Tensor& global_pool_output(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.rank() >= 3, InvalidArgument, node_label(ctx), ": expects N x C x D1..., got ", x.shape().str());
  std::vector<int64_t> dims(x.rank(), 1);
  dims[0] = x.dim(0);
  dims[1] = x.dim(1);
  return ctx.output(0, x.dtype(), Shape(dims));
}

double mean_of(const double* p, int64_t n) {
  double sum = 0;
  for (int64_t i = 0; i < n; ++i) sum += p[i];
  return n > 0 ? sum / double(n) : 0.0;
}

void global_average_pool_kernel(KernelContext& ctx) { global_average_pool(ctx.input(0), global_pool_output(ctx)); }

void global_max_pool_kernel(KernelContext& ctx) {
  global_pool(ctx.input(0), global_pool_output(ctx), [](const double* p, int64_t n) {
    double best = -std::numeric_limits<double>::infinity();
    for (int64_t i = 0; i < n; ++i) best = std::max(best, p[i]);
    return best;
  });
}

void global_lp_pool_kernel(KernelContext& ctx) {
  double power = double(ctx.node().attrs.get_int("p", 2));
  global_pool(ctx.input(0), global_pool_output(ctx), [power](const double* p, int64_t n) {
    double sum = 0;
    for (int64_t i = 0; i < n; ++i) sum += std::pow(std::abs(p[i]), power);
    return std::pow(sum, 1.0 / power);
  });
}

}  // namespace

void global_average_pool(const Tensor& x, Tensor& y) { global_pool(x, y, mean_of); }

VX_REGISTER_CPU_KERNEL(max_pool_onnx, {"MaxPool", "reference", 0, nullptr, max_pool_kernel});
VX_REGISTER_CPU_KERNEL(average_pool_onnx, {"AveragePool", "reference", 0, nullptr, average_pool_kernel});
VX_REGISTER_CPU_KERNEL(lp_pool_onnx, {"LpPool", "reference", 0, nullptr, lp_pool_kernel});
VX_REGISTER_CPU_KERNEL(global_average_pool,
                       {"GlobalAveragePool", "reference", 0, nullptr, global_average_pool_kernel});
VX_REGISTER_CPU_KERNEL(global_max_pool, {"GlobalMaxPool", "reference", 0, nullptr, global_max_pool_kernel});
VX_REGISTER_CPU_KERNEL(global_lp_pool, {"GlobalLpPool", "reference", 0, nullptr, global_lp_pool_kernel});

}  // namespace vx::cpu::ref

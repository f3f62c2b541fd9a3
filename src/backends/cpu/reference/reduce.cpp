// Reference reductions along axes: Reduce{Sum,Mean,Max,Min,Prod,L1,L2,LogSum,LogSumExp,SumSquare},
// ArgMax and ArgMin. Accumulation is in double. Opset differences handled here: Reduce* axes from
// the attribute (ReduceSum < 13, the others < 18) or from input 1 (later), noop_with_empty_axes.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

enum class Reduce { sum, mean, max, min, prod, l1, l2, log_sum, log_sum_exp, sum_square };

// Which axes to reduce (sorted, normalised); empty with `noop` true means "copy the input".
struct ReduceAxes {
  std::vector<char> reduced;  // per input axis
  bool noop = false;
};

ReduceAxes reduce_axes(const KernelContext& ctx, int64_t rank) {
  std::vector<int64_t> axes;
  bool given = false;
  if (ctx.has_input(1)) {
    axes = int_values(ctx.input(1), ctx, "axes");
    given = true;
  } else if (ctx.node().attrs.has("axes")) {
    axes = ctx.node().attrs.get_ints("axes");
    given = true;
  }
  ReduceAxes result;
  result.reduced.assign(size_t(rank), 0);
  if (!given || axes.empty()) {
    if (ctx.node().attrs.get_int("noop_with_empty_axes", 0) != 0) {
      result.noop = true;
    } else {
      std::fill(result.reduced.begin(), result.reduced.end(), 1);
    }
    return result;
  }
  for (int64_t a : axes) result.reduced[size_t(normalize_axis(a, rank, ctx))] = 1;
  return result;
}

template <Reduce kind>
void reduce_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = int64_t(x.rank());
  ReduceAxes axes = reduce_axes(ctx, rank);
  const bool keepdims = ctx.node().attrs.get_int("keepdims", 1) != 0;
  if (axes.noop) {
    Tensor& y = ctx.output(0, x.dtype(), x.shape());
    if (x.nbytes()) std::memcpy(y.raw(), x.raw(), x.nbytes());
    return;
  }
  std::vector<int64_t> kept_dims, out_dims;
  int64_t group = 1;  // elements reduced into each output
  for (int64_t d = 0; d < rank; ++d) {
    bool r = axes.reduced[size_t(d)];
    kept_dims.push_back(r ? 1 : x.dim(size_t(d)));
    if (r) group *= x.dim(size_t(d));
    if (!r) out_dims.push_back(x.dim(size_t(d)));
    else if (keepdims) out_dims.push_back(1);
  }
  Shape kept_shape(kept_dims);
  const int64_t n_out = kept_shape.numel();
  std::vector<double> acc(static_cast<size_t>(n_out));
  // The identity of each reduction (also the result over an empty set).
  double init = 0;
  if constexpr (kind == Reduce::prod) init = 1;
  if constexpr (kind == Reduce::max || kind == Reduce::log_sum_exp) init = -std::numeric_limits<double>::infinity();
  if constexpr (kind == Reduce::min) init = std::numeric_limits<double>::infinity();
  std::fill(acc.begin(), acc.end(), init);

  std::array<std::vector<int64_t>, 1> to_out{broadcast_strides(kept_shape, x.shape())};
  dispatch<kNumeric>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const T* in = x.data<T>();
    std::vector<double> max_of;  // LogSumExp subtracts each group's max for stability
    if constexpr (kind == Reduce::log_sum_exp) {
      max_of = acc;
      for_each_broadcast<1>(x.shape(), to_out, [&](int64_t i, const std::array<int64_t, 1>& o) {
        max_of[size_t(o[0])] = std::max(max_of[size_t(o[0])], double(in[i]));
      });
      std::fill(acc.begin(), acc.end(), 0.0);
    }
    for_each_broadcast<1>(x.shape(), to_out, [&](int64_t i, const std::array<int64_t, 1>& o) {
      double v = double(in[i]);
      double& a = acc[size_t(o[0])];
      if constexpr (kind == Reduce::sum || kind == Reduce::mean || kind == Reduce::log_sum) a += v;
      else if constexpr (kind == Reduce::max) a = (std::isnan(v) || v > a) ? v : a;
      else if constexpr (kind == Reduce::min) a = (std::isnan(v) || v < a) ? v : a;
      else if constexpr (kind == Reduce::prod) a *= v;
      else if constexpr (kind == Reduce::l1) a += std::fabs(v);
      else if constexpr (kind == Reduce::l2 || kind == Reduce::sum_square) a += v * v;
      else if constexpr (kind == Reduce::log_sum_exp) {
        double m = max_of[size_t(o[0])];
        a += std::isinf(m) ? std::exp(v) : std::exp(v - m);
      }
    });
    Tensor& y = ctx.output(0, x.dtype(), Shape(out_dims));
    T* out = y.data<T>();
    for (int64_t i = 0; i < n_out; ++i) {
      double a = acc[size_t(i)];
      if constexpr (kind == Reduce::mean) a = group ? a / double(group) : std::numeric_limits<double>::quiet_NaN();
      if constexpr (kind == Reduce::l2) a = std::sqrt(a);
      if constexpr (kind == Reduce::log_sum) a = std::log(a);
      if constexpr (kind == Reduce::log_sum_exp) {
        double m = max_of[size_t(i)];
        a = std::isinf(m) ? std::log(a) : m + std::log(a);
      }
      if constexpr (std::is_floating_point_v<T>) {
        out[i] = T(a);
      } else {
        double lo = double(std::numeric_limits<T>::lowest()), hi = double(std::numeric_limits<T>::max());
        out[i] = std::isnan(a) ? T(0) : T(std::clamp(a, lo, hi));
      }
    }
  });
}

template <bool is_max>
void arg_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const int64_t rank = int64_t(x.rank());
  const int64_t axis = normalize_axis(ctx.node().attrs.get_int("axis", 0), rank, ctx);
  const bool keepdims = ctx.node().attrs.get_int("keepdims", 1) != 0;
  const bool last = ctx.node().attrs.get_int("select_last_index", 0) != 0;
  AxisSplit s = split_at(x.shape(), axis);
  VX_CHECK(s.n > 0, InvalidArgument, node_label(ctx), ": cannot take the arg", is_max ? "max" : "min", " of an empty axis");
  std::vector<int64_t> dims = x.shape().dims();
  if (keepdims) dims[size_t(axis)] = 1;
  else dims.erase(dims.begin() + axis);
  Tensor& y = ctx.output(0, DType::i64, Shape(dims));
  int64_t* out = y.data<int64_t>();
  dispatch<kNumeric>(x.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const T* in = x.data<T>();
    for (int64_t o = 0; o < s.outer; ++o)
      for (int64_t i = 0; i < s.inner; ++i) {
        const T* p = in + o * s.n * s.inner + i;
        int64_t best = 0;
        for (int64_t k = 1; k < s.n; ++k) {
          T v = p[k * s.inner], b = p[best * s.inner];
          bool better = is_max ? (last ? v >= b : v > b) : (last ? v <= b : v < b);
          if (better) best = k;
        }
        out[o * s.inner + i] = best;
      }
  });
}

}  // namespace

VX_REGISTER_CPU_KERNEL(reduce_sum, {"ReduceSum", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::sum>)});
VX_REGISTER_CPU_KERNEL(reduce_mean, {"ReduceMean", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::mean>)});
VX_REGISTER_CPU_KERNEL(reduce_max, {"ReduceMax", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::max>)});
VX_REGISTER_CPU_KERNEL(reduce_min, {"ReduceMin", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::min>)});
VX_REGISTER_CPU_KERNEL(reduce_prod, {"ReduceProd", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::prod>)});
VX_REGISTER_CPU_KERNEL(reduce_l1, {"ReduceL1", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::l1>)});
VX_REGISTER_CPU_KERNEL(reduce_l2, {"ReduceL2", "reference", 0, nullptr, with_f16_as_f32(reduce_kernel<Reduce::l2>)});
VX_REGISTER_CPU_KERNEL(reduce_log_sum, {"ReduceLogSum", "reference", 0, nullptr,
                                        with_f16_as_f32(reduce_kernel<Reduce::log_sum>)});
VX_REGISTER_CPU_KERNEL(reduce_log_sum_exp, {"ReduceLogSumExp", "reference", 0, nullptr,
                                            with_f16_as_f32(reduce_kernel<Reduce::log_sum_exp>)});
VX_REGISTER_CPU_KERNEL(reduce_sum_square, {"ReduceSumSquare", "reference", 0, nullptr,
                                           with_f16_as_f32(reduce_kernel<Reduce::sum_square>)});
VX_REGISTER_CPU_KERNEL(arg_max, {"ArgMax", "reference", 0, nullptr, with_f16_as_f32(arg_kernel<true>)});
VX_REGISTER_CPU_KERNEL(arg_min, {"ArgMin", "reference", 0, nullptr, with_f16_as_f32(arg_kernel<false>)});

}  // namespace vx::cpu::ref

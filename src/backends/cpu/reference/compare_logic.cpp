// Reference kernels for ONNX's comparisons (Equal, Less, LessOrEqual, Greater, GreaterOrEqual) and
// logic (Not, And, Or, Xor). All broadcast and produce bool tensors.
#include <array>

#include "backends/cpu/reference/math_util.h"

namespace vx::cpu::ref {
namespace {

enum class Cmp { eq, lt, le, gt, ge };

template <Cmp kind>
void compare_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  VX_CHECK(a.dtype() == b.dtype(), InvalidArgument, node_label(ctx), ": inputs have different element types (",
           dtype_name(a.dtype()), " and ", dtype_name(b.dtype()), ")");
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor& out = ctx.output(0, DType::boolean, shape);
  dispatch<kind == Cmp::eq ? kAll : kNumeric>(a.dtype(), ctx, [&](auto t) {
    using T = decltype(t);
    const T* pa = a.data<T>();
    const T* pb = b.data<T>();
    uint8_t* po = static_cast<uint8_t*>(out.raw());
    std::array<std::vector<int64_t>, 2> strides{broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)};
    for_each_broadcast<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2>& o) {
      T x = pa[o[0]], y = pb[o[1]];
      bool r;
      if constexpr (kind == Cmp::eq) r = x == y;
      else if constexpr (kind == Cmp::lt) r = x < y;
      else if constexpr (kind == Cmp::le) r = x <= y;
      else if constexpr (kind == Cmp::gt) r = x > y;
      else r = x >= y;
      po[i] = r;
    });
  });
}

enum class Logic { and_, or_, xor_ };

template <Logic kind>
void logic_kernel(KernelContext& ctx) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  VX_CHECK(a.dtype() == DType::boolean && b.dtype() == DType::boolean, InvalidArgument, node_label(ctx),
           ": inputs must be bool");
  Shape shape = broadcast_shapes(a.shape(), b.shape());
  Tensor& out = ctx.output(0, DType::boolean, shape);
  const uint8_t* pa = static_cast<const uint8_t*>(a.raw());
  const uint8_t* pb = static_cast<const uint8_t*>(b.raw());
  uint8_t* po = static_cast<uint8_t*>(out.raw());
  std::array<std::vector<int64_t>, 2> strides{broadcast_strides(a.shape(), shape), broadcast_strides(b.shape(), shape)};
  for_each_broadcast<2>(shape, strides, [&](int64_t i, const std::array<int64_t, 2>& o) {
    bool x = pa[o[0]] != 0, y = pb[o[1]] != 0;
    if constexpr (kind == Logic::and_) po[i] = x && y;
    else if constexpr (kind == Logic::or_) po[i] = x || y;
    else po[i] = x != y;
  });
}

void not_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::boolean, InvalidArgument, node_label(ctx), ": the input must be bool");
  Tensor& y = ctx.output(0, DType::boolean, x.shape());
  const uint8_t* in = static_cast<const uint8_t*>(x.raw());
  uint8_t* out = static_cast<uint8_t*>(y.raw());
  for (int64_t i = 0; i < x.numel(); ++i) out[i] = in[i] == 0;
}

}  // namespace

VX_REGISTER_CPU_KERNEL(equal, {"Equal", "reference", 0, nullptr, with_f16_as_f32(compare_kernel<Cmp::eq>)});
VX_REGISTER_CPU_KERNEL(less, {"Less", "reference", 0, nullptr, with_f16_as_f32(compare_kernel<Cmp::lt>)});
VX_REGISTER_CPU_KERNEL(less_equal, {"LessOrEqual", "reference", 0, nullptr, with_f16_as_f32(compare_kernel<Cmp::le>)});
VX_REGISTER_CPU_KERNEL(greater, {"Greater", "reference", 0, nullptr, with_f16_as_f32(compare_kernel<Cmp::gt>)});
VX_REGISTER_CPU_KERNEL(greater_equal, {"GreaterOrEqual", "reference", 0, nullptr,
                                       with_f16_as_f32(compare_kernel<Cmp::ge>)});
VX_REGISTER_CPU_KERNEL(logic_and, {"And", "reference", 0, nullptr, logic_kernel<Logic::and_>});
VX_REGISTER_CPU_KERNEL(logic_or, {"Or", "reference", 0, nullptr, logic_kernel<Logic::or_>});
VX_REGISTER_CPU_KERNEL(logic_xor, {"Xor", "reference", 0, nullptr, logic_kernel<Logic::xor_>});
VX_REGISTER_CPU_KERNEL(logic_not, {"Not", "reference", 0, nullptr, not_kernel});

}  // namespace vx::cpu::ref

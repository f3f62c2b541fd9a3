// Integer matrix products on Vulkan: MatMulInteger (qmatmul.comp, int32 output) and
// QLinearMatMul (the same int32 accumulation into a scratch buffer, then requant.comp with
// per-tensor scales). Zero points: scalars, per row of A, per column of B. Batch dimensions
// broadcast as numpy's matmul (ops/matmul_shape.h).
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/requant_push.h"
#include "ops/matmul_shape.h"

namespace vx::vk {
namespace {

struct QMatMulPush {
  uint32_t count = 0;
  int32_t m = 1, k = 1, n = 1, flags = 0;
};

struct Product {
  int64_t m = 1, k = 1, n = 1;
  Shape out;
  std::vector<int32_t> offsets;  // per batch: A offset, B offset
};

Product plan_product(const OpInfo& info, const Shape& a_shape, const Shape& b_shape) {
  const MatMulShape s = matmul_shape(a_shape, b_shape, label(info));
  Product p{s.m, s.k, s.n, s.out, {}};
  for (const std::array<int64_t, 2>& o : matmul_batch_offsets(s)) {
    p.offsets.push_back(int32_t(o[0]));
    p.offsets.push_back(int32_t(o[1]));
  }
  if (p.offsets.empty()) p.offsets = {0, 0};
  checked_count32(info, a_shape.numel());
  checked_count32(info, b_shape.numel());
  checked_count32(info, p.out.numel());
  return p;
}

// Zero point flags: scalar (bit 0), per row / column (bit 1).
int32_t zero_flags(const OpInfo& info, size_t input, int64_t per_extent, const char* what) {
  if (!info.has_input(input)) return 0;
  const int64_t n = info.inputs[input].shape.numel();
  VX_CHECK(info.inputs[input].device == DeviceType::i32, InvalidArgument, label(info), ": ", what, " is not integer");
  if (n == 1) return 1;
  VX_CHECK(n == per_extent && info.inputs[input].shape.rank() == 1, Unsupported, label(info), ": ", what, " of ",
           n, " values (scalar or one per row / column only)");
  return 3;
}

Dispatch product_dispatch(const OpInfo& info, const Product& prod, size_t a, size_t b, size_t za, size_t zb,
                          Binding acc) {
  QMatMulPush push;
  push.count = uint32_t(prod.out.numel());
  push.m = int32_t(prod.m);
  push.k = int32_t(prod.k);
  push.n = int32_t(prod.n);
  push.flags = zero_flags(info, za, prod.m, "the zero point of A") | (zero_flags(info, zb, prod.n, "the zero point of B") << 2);
  return make_dispatch("qmatmul",
                       {Binding::in(int(a)), Binding::in(int(b)), info.has_input(za) ? Binding::in(int(za)) : Binding::in(int(a)),
                        info.has_input(zb) ? Binding::in(int(zb)) : Binding::in(int(b)), Binding::constant_blob(0), acc},
                       push, push.count);
}

std::vector<uint8_t> table_bytes(const std::vector<int32_t>& v) {
  std::vector<uint8_t> out(v.size() * 4);
  std::memcpy(out.data(), v.data(), out.size());
  return out;
}

OpPlan plan_matmul_integer(const OpInfo& info) {
  require_inputs(info, 2);
  VX_CHECK(info.inputs[0].device == DeviceType::i32 && info.inputs[1].device == DeviceType::i32, Unsupported,
           label(info), ": integer operands only");
  const Product prod = plan_product(info, info.inputs[0].shape, info.inputs[1].shape);
  VX_CHECK(prod.out == info.outputs[0].shape, InvalidArgument, label(info), ": output shape ",
           info.outputs[0].shape.str(), ", expected ", prod.out.str());
  OpPlan plan;
  plan.constants.push_back(table_bytes(prod.offsets));
  plan.dispatches.push_back(product_dispatch(info, prod, 0, 1, 2, 3, Binding::out(0)));
  return plan;
}

OpPlan plan_qlinear_matmul(const OpInfo& info) {
  require_inputs(info, 8);
  const OpTensor& y = info.outputs[0];
  VX_CHECK(info.inputs[0].device == DeviceType::i32 && info.inputs[3].device == DeviceType::i32, Unsupported,
           label(info), ": integer operands only");
  for (size_t s : {size_t(1), size_t(4), size_t(6)})
    VX_CHECK(is_float(info.inputs[s].dtype) && info.inputs[s].shape.numel() == 1, Unsupported, label(info),
             ": per-tensor float scales only");
  VX_CHECK(info.inputs[7].shape.numel() == 1 && (y.dtype == DType::u8 || y.dtype == DType::i8), InvalidArgument,
           label(info), ": y_zero_point must be one uint8 or int8");
  const Product prod = plan_product(info, info.inputs[0].shape, info.inputs[3].shape);
  VX_CHECK(prod.out == y.shape, InvalidArgument, label(info), ": output shape ", y.shape.str());
  OpPlan plan;
  plan.constants.push_back(table_bytes(prod.offsets));
  plan.scratch_bytes.push_back(uint64_t(std::max<int64_t>(prod.out.numel(), 1)) * 4);
  plan.dispatches.push_back(product_dispatch(info, prod, 0, 3, 2, 5, Binding::scratch_buffer(0)));
  RequantPush r;
  r.count = uint32_t(prod.out.numel());
  r.lo = y.dtype == DType::u8 ? 0 : -128;
  r.hi = y.dtype == DType::u8 ? 255 : 127;
  plan.dispatches.push_back(make_dispatch(shader_variant("requant", {info.inputs[1].device}),
                                          {Binding::scratch_buffer(0), Binding::in(1), Binding::in(4), Binding::in(6),
                                           Binding::in(7), Binding::in(7), Binding::out(0)},
                                          r, r.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(matmul_integer, {"MatMulInteger", "", 0, plan_matmul_integer});
VX_REGISTER_VK_OP(qlinear_matmul, {"QLinearMatMul", "", 0, plan_qlinear_matmul});

}  // namespace vx::vk

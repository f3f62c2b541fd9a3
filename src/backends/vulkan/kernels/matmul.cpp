// MatMul (NumPy semantics: 1-D operands promoted, batch axes of any rank broadcast), vx.FusedMatMul
// (MatMul + bias [N] + residual + activation, ops/fused_ops.h, in the GEMM's epilogue; then the rows
// normalised, in the split-K reduce pass where there is one), vx.MatMulInt8W
// (the same with int8 weights read as bytes, per-column scales in the epilogue) and Gemm (transA,
// transB, alpha, beta, C broadcast to M x N) on the shared GEMM kernels (gemm_plan.h).
// Constant operands (weights) are uploaded once, converted to the storage type and laid out
// row-major in the orientation the kernel reads fastest (B as K x N, A as M x K).
#include <algorithm>
#include <cstring>

#include "backends/vulkan/kernels/gemm_plan.h"
#include "ops/fused_ops.h"
#include "ops/matmul_shape.h"

namespace vx::vk {
namespace {

// A constant matrix stack [batch][rows][cols] as a blob, transposed per matrix when asked.
int add_matrix_constant(OpPlan& plan, const Tensor& t, int64_t rows, int64_t cols, bool transpose,
                        DeviceType storage) {
  std::vector<float> v = constant_values(t);
  if (transpose) {  // stored [cols][rows] per matrix
    std::vector<float> out(v.size());
    const int64_t per = rows * cols;
    for (int64_t b = 0; b < int64_t(v.size()) / std::max<int64_t>(per, 1); ++b)
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c) out[size_t(b * per + r * cols + c)] = v[size_t(b * per + c * rows + r)];
    v.swap(out);
  }
  plan.constants.push_back(pack(v, storage));
  return int(plan.constants.size() - 1);
}

struct BatchAxis {
  int64_t extent, sa, sb, so, sc;  // element strides of A, B, Y and the residual along this batch axis
};

// A constant int8 matrix [K, N] as bytes, 4 per 32-bit word (padded to whole words).
int add_int8_constant(OpPlan& plan, const OpInfo& info, const Tensor& t) {
  if (t.dtype() != DType::i8) decline(info, "int8 weights of type ", dtype_name(t.dtype()));
  std::vector<uint8_t> bytes(size_t((t.numel() + 3) / 4 * 4), 0);
  std::memcpy(bytes.data(), t.data<int8_t>(), size_t(t.numel()));
  plan.constants.push_back(std::move(bytes));
  return int(plan.constants.size() - 1);
}

// MatMul with an epilogue: bias (input `bias_input` when present), residual (vx.FusedMatMul's
// input 3 when `residual`: the GEMM's C with beta = 1, broadcast onto the product) and activation;
// then, with vx.FusedMatMul's LnScale (input 4) and LnBias (5), each row normalised.
// With `int8_weights` (vx.MatMulInt8W), B is a constant int8 [K, N] and input 2 its fp32 scales [N].
OpPlan plan_matmul_epilogue(const OpInfo& info, size_t bias_input, GemmActivation act, bool int8_weights = false,
                            bool residual = false) {
  const DeviceType storage = float_storage(info, 0);
  if (!int8_weights) float_storage(info, 1);
  else if (!info.inputs[1].constant || info.inputs[1].shape.rank() != 2) decline(info, "int8 weights must be a constant matrix");
  const Shape& as = info.inputs[0].shape;
  const Shape& bs = info.inputs[1].shape;
  if (as.rank() < 1 || bs.rank() < 1) decline(info, "operands of rank 0");
  std::vector<int64_t> a = as.dims(), b = bs.dims();
  if (a.size() == 1) a.insert(a.begin(), 1);
  if (b.size() == 1) b.push_back(1);
  const int64_t m = a[a.size() - 2], k = a.back(), n = b.back();
  if (b[b.size() - 2] != k) decline(info, "inner extents differ in ", as.str(), " x ", bs.str());
  const bool has_residual = residual && info.has_input(3);
  if (has_residual && (as.rank() < 2 || bs.rank() < 2)) decline(info, "a residual with a vector operand");
  checked_count32(info, as.numel(), "A");
  checked_count32(info, bs.numel(), "B");
  checked_count32(info, info.outputs[0].shape.numel(), "Y");

  // Batch axes, right-aligned and broadcast; strides in elements of each operand (0 where broadcast).
  const size_t ra = a.size() - 2, rb = b.size() - 2, rank = std::max(ra, rb);
  std::vector<BatchAxis> axes(rank);
  int64_t sa = m * k, sb = k * n, so = m * n;
  for (size_t i = rank; i-- > 0;) {
    const int64_t ea = i + ra >= rank ? a[i + ra - rank] : 1, eb = i + rb >= rank ? b[i + rb - rank] : 1;
    if (ea != eb && ea != 1 && eb != 1) decline(info, "batch axes of ", as.str(), " and ", bs.str(), " do not broadcast");
    const int64_t e = std::max(ea, eb);
    axes[i] = {e, ea == 1 ? 0 : sa, eb == 1 ? 0 : sb, so, 0};
    sa *= ea;
    sb *= eb;
    so *= e;
  }
  // The residual's element strides over the product [batch..., M, N] (0 along broadcast axes).
  int64_t scm = 0, scn = 0;
  if (has_residual) {
    float_storage(info, 3);
    const std::vector<int64_t> r = info.inputs[3].shape.dims();
    if (r.size() > rank + 2) decline(info, "residual ", info.inputs[3].shape.str(), " has more axes than the product");
    std::vector<int64_t> out(rank + 2), strides(rank + 2, 0);
    for (size_t i = 0; i < rank; ++i) out[i] = axes[i].extent;
    out[rank] = m;
    out[rank + 1] = n;
    int64_t stride = 1;
    for (size_t i = r.size(); i-- > 0;) {
      const size_t o = i + out.size() - r.size();
      if (r[i] != 1 && r[i] != out[o])
        decline(info, "residual ", info.inputs[3].shape.str(), " does not broadcast onto the product");
      strides[o] = r[i] == 1 ? 0 : stride;
      stride *= r[i];
    }
    for (size_t i = 0; i < rank; ++i) axes[i].sc = strides[i];
    scm = strides[rank];
    scn = strides[rank + 1];
    checked_count32(info, info.inputs[3].shape.numel(), "Residual");
  }
  // Drop unit axes, merge neighbours that are one strided run in every operand.
  std::vector<BatchAxis> merged;
  for (const BatchAxis& ax : axes) {
    if (ax.extent == 1) continue;
    if (!merged.empty()) {
      BatchAxis& prev = merged.back();
      if (prev.sa == ax.sa * ax.extent && prev.sb == ax.sb * ax.extent && prev.so == ax.so * ax.extent &&
          prev.sc == ax.sc * ax.extent) {
        prev = {prev.extent * ax.extent, ax.sa, ax.sb, ax.so, ax.sc};
        continue;
      }
    }
    merged.push_back(ax);
  }
  // A batch of A's rows times one shared B is one taller product: fold the innermost batch axis
  // into M where A, Y (and the residual) continue their rows across it. PyTorch's attention
  // exports [seq, 1, d] x [d, 3d]: 128 products of one row each re-read the weights 128 times.
  int64_t rows = m;
  if (!merged.empty()) {
    const BatchAxis& ax = merged.back();
    // With one row per product the residual's row stride is free: its batch stride becomes it.
    const int64_t residual_row_stride = rows == 1 ? ax.sc : scm;
    const bool residual_follows = !has_residual || ax.sc == rows * residual_row_stride;
    if (ax.sb == 0 && ax.sa == rows * k && ax.so == rows * n && residual_follows) {
      rows *= ax.extent;
      scm = residual_row_stride;
      merged.pop_back();
    }
  }
  while (merged.size() < 2) merged.insert(merged.begin(), BatchAxis{1, 0, 0, 0, 0});
  const std::vector<BatchAxis> outer(merged.begin(), merged.end() - 2);  // one GEMM call per index

  OpPlan plan;
  GemmDesc d;
  d.m = rows;
  d.n = n;
  d.k = k;
  d.sam = k;
  d.sak = 1;
  d.sbk = n;
  d.sbn = 1;
  const BatchAxis& z1 = merged[merged.size() - 2];
  const BatchAxis& z0 = merged.back();
  d.z1_count = z1.extent;
  d.z0_count = z0.extent;
  d.a_z1 = z1.sa;
  d.a_z0 = z0.sa;
  d.b_z1 = z1.sb;
  d.b_z0 = z0.sb;
  d.o_z1 = z1.so;
  d.o_z0 = z0.so;
  if (has_residual) {  // Y = act(alpha * acc + bias + beta * C) with C the residual, beta 1
    d.has_c = true;
    d.beta = 1.0f;
    d.scm = scm;
    d.scn = scn;
    d.c_z1 = z1.sc;
    d.c_z0 = z0.sc;
    d.c = info.inputs[3].constant
              ? Binding::constant_blob(add_matrix_constant(plan, *info.inputs[3].constant, 0, 0, false, storage))
              : Binding::in(3);
  }
  d.a = info.inputs[0].constant ? Binding::constant_blob(add_matrix_constant(plan, *info.inputs[0].constant, 0, 0, false, storage))
                                : Binding::in(0);
  if (int8_weights) {
    d.b_int8 = true;
    d.b = Binding::constant_blob(add_int8_constant(plan, info, *info.inputs[1].constant));
    const OpTensor& scales = info.inputs[2];
    if (!scales.constant || scales.shape.numel() != n) decline(info, "scales must be a constant vector of ", n, " values");
    plan.constants.push_back(pack(constant_values(*scales.constant), DeviceType::f32));
    d.scale = Binding::constant_blob(int(plan.constants.size() - 1));
  } else {
    d.b = info.inputs[1].constant ? Binding::constant_blob(add_matrix_constant(plan, *info.inputs[1].constant, 0, 0, false, storage))
                                  : Binding::in(1);
  }
  d.y = Binding::out(0);
  d.act = act;
  if (residual && info.has_input(4)) {  // vx.FusedMatMul's LnScale (and LnBias): rows normalised
    d.layer_norm = true;
    d.ln_epsilon = info.node.attrs.get_float("layer_norm_epsilon", 1e-5f);
    for (size_t i : {size_t(4), size_t(5)}) {
      if (!info.has_input(i)) continue;
      float_storage(info, i);
      const OpTensor& t = info.inputs[i];
      if (t.shape.numel() != n || t.shape.rank() != 1) decline(info, "LayerNorm parameter ", t.shape.str(), " is not a vector of ", n, " values");
      const Binding b = t.constant ? Binding::constant_blob(add_matrix_constant(plan, *t.constant, 0, 0, false, storage))
                                   : Binding::in(int(i));
      (i == 4 ? d.ln_scale : d.ln_bias) = b;
    }
    d.has_ln_bias = info.has_input(5);
  }
  if (info.has_input(bias_input)) {
    float_storage(info, bias_input);
    const OpTensor& bias = info.inputs[bias_input];
    if (bias.shape.numel() != n || bias.shape.rank() > 1)
      decline(info, "bias ", bias.shape.str(), " is not a vector of ", n, " values");
    d.has_bias = true;
    d.bias = bias.constant ? Binding::constant_blob(add_matrix_constant(plan, *bias.constant, 0, 0, false, storage))
                           : Binding::in(int(bias_input));
  }
  int64_t outer_count = 1;
  for (const BatchAxis& ax : outer) outer_count *= ax.extent;
  if (outer_count > 4096) decline(info, "batch broadcast pattern of ", as.str(), " x ", bs.str(), " needs too many dispatches");
  for (int64_t idx = 0; idx < outer_count; ++idx) {
    int64_t rest = idx;
    d.a_base = d.b_base = d.o_base = d.c_base = 0;
    for (size_t i = outer.size(); i-- > 0;) {
      const int64_t c = rest % outer[i].extent;
      rest /= outer[i].extent;
      d.a_base += c * outer[i].sa;
      d.b_base += c * outer[i].sb;
      d.o_base += c * outer[i].so;
      d.c_base += c * outer[i].sc;
    }
    plan.variant = add_gemm(plan, info, d, storage);
  }
  return plan;
}

OpPlan plan_matmul(const OpInfo& info) { return plan_matmul_epilogue(info, 2, GemmActivation::none); }

OpPlan plan_fused_matmul(const OpInfo& info) {
  return plan_matmul_epilogue(info, 2, parse_gemm_activation(info, info.node.attrs.get_string("activation", "none")),
                              false, true);
}

OpPlan plan_matmul_int8w(const OpInfo& info) {
  return plan_matmul_epilogue(info, 3, parse_gemm_activation(info, info.node.attrs.get_string("activation", "none")), true);
}

OpPlan plan_gemm(const OpInfo& info) {
  const DeviceType storage = float_storage(info, 0);
  float_storage(info, 1);
  const Attributes& attrs = info.node.attrs;
  const float alpha = attrs.get_float("alpha", 1.0f), beta = attrs.get_float("beta", 1.0f);
  const Shape& as = info.inputs[0].shape;
  const Shape& bs = info.inputs[1].shape;
  const GemmShape gs = gemm_shape(as, bs, attrs, label(info));
  const bool trans_a = gs.trans_a, trans_b = gs.trans_b;
  const int64_t m = gs.m, k = gs.k, n = gs.n;
  checked_count32(info, as.numel(), "A");
  checked_count32(info, bs.numel(), "B");
  checked_count32(info, m * n, "Y");

  OpPlan plan;
  GemmDesc d;
  d.m = m;
  d.n = n;
  d.k = k;
  d.alpha = alpha;
  d.y = Binding::out(0);
  if (info.inputs[0].constant) {  // uploaded as M x K
    d.a = Binding::constant_blob(add_matrix_constant(plan, *info.inputs[0].constant, m, k, trans_a, storage));
    d.sam = k;
    d.sak = 1;
  } else {
    d.a = Binding::in(0);
    d.sam = trans_a ? 1 : k;
    d.sak = trans_a ? m : 1;
  }
  if (info.inputs[1].constant) {  // uploaded as K x N
    d.b = Binding::constant_blob(add_matrix_constant(plan, *info.inputs[1].constant, k, n, trans_b, storage));
    d.sbk = n;
    d.sbn = 1;
  } else {
    d.b = Binding::in(1);
    d.sbk = trans_b ? 1 : n;
    d.sbn = trans_b ? k : 1;
  }
  if (info.has_input(2) && beta != 0.0f) {
    float_storage(info, 2);
    const Shape& cs = info.inputs[2].shape;
    if (cs.rank() > 2) decline(info, "C of rank ", cs.rank());
    const int64_t cm = cs.rank() == 2 ? cs[0] : 1, cn = cs.rank() >= 1 ? cs[cs.rank() - 1] : 1;
    if ((cm != 1 && cm != m) || (cn != 1 && cn != n)) decline(info, "C ", cs.str(), " does not broadcast to ", m, " x ", n);
    d.has_c = true;
    d.beta = beta;
    d.scm = cm == 1 ? 0 : cn;
    d.scn = cn == 1 ? 0 : 1;
    d.c = info.inputs[2].constant
              ? Binding::constant_blob(add_matrix_constant(plan, *info.inputs[2].constant, 0, 0, false, storage))
              : Binding::in(2);
  }
  plan.variant = add_gemm(plan, info, d, storage);
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(matmul, {"MatMul", "", 0, plan_matmul});
VX_REGISTER_VK_OP(gemm, {"Gemm", "", 0, plan_gemm});
VX_REGISTER_VK_OP(fused_matmul, {kFusedMatMul, "", 0, plan_fused_matmul});
VX_REGISTER_VK_OP(matmul_int8w, {kMatMulInt8W, "", 0, plan_matmul_int8w});

}  // namespace vx::vk

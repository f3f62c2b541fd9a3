// vx.Attention on Vulkan (passes/fused_ops.h): softmax(Q K^T * scale + Mask) V in one dispatch of
// shaders/attention.comp (flash-attention style: key tiles with an online softmax, so any Sk; D in
// chunks of 64; Dv up to kMaxDv in registers). Batch axes broadcast as in MatMul; the mask
// broadcasts onto [..., Sq, Sk]. Declines (CPU fallback) past kMaxDv, more than three batch axes
// that cannot be merged, empty tensors and non-float inputs.
#include <algorithm>
#include <limits>

#include "backends/vulkan/kernels/nn_util.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "passes/fused_ops.h"

namespace vx::vk {
namespace {

using nn::decline;

constexpr int kBatchAxes = 3;
constexpr int kQueryBlock = 16;  // attention.comp's BQ
constexpr int kChunk = 64;       // attention.comp's DC
constexpr int64_t kMaxDv = 4 * kChunk;

// Matches attention.comp's push block.
struct AttentionPush {
  int32_t sq = 0, sk = 0, d = 0, dv = 0;
  int32_t bdims[kBatchAxes]{1, 1, 1};
  int32_t qs[kBatchAxes]{}, ks[kBatchAxes]{}, vs[kBatchAxes]{}, ms[kBatchAxes]{};
  int32_t m_row = 0, m_col = 0;
  int32_t flags = 0;
  float scale = 1;
};
static_assert(sizeof(AttentionPush) <= kOpPushConstantBytes);

// Element strides of `dims` (right-aligned onto `out`, numpy broadcasting) read at `out`'s
// coordinates: 0 along broadcast axes; `inner` is the element count below the aligned axes.
std::vector<int64_t> broadcast_strides(const OpInfo& info, const std::vector<int64_t>& dims,
                                       const std::vector<int64_t>& out, int64_t inner, const char* what) {
  if (dims.size() > out.size()) decline(info, what, " has more batch axes than the output");
  std::vector<int64_t> strides(out.size(), 0);
  int64_t stride = inner;
  for (size_t i = dims.size(); i-- > 0;) {
    const size_t o = i + out.size() - dims.size();
    if (dims[i] != 1 && dims[i] != out[o]) decline(info, what, " does not broadcast to the output's batch axes");
    strides[o] = dims[i] == 1 ? 0 : stride;
    stride *= dims[i];
  }
  return strides;
}

std::vector<int64_t> leading(const Shape& s, size_t drop) {
  return std::vector<int64_t>(s.dims().begin(), s.dims().end() - std::ptrdiff_t(drop));
}

OpPlan plan_attention(const OpInfo& info) {
  for (size_t i = 0; i < 3; ++i)
    if (!info.has_input(i)) decline(info, "input ", i, " is missing");
  const DeviceType storage = nn::float_storage(info, 0);
  for (size_t i = 1; i < info.inputs.size(); ++i)
    if (info.has_input(i) && nn::float_storage(info, i) != storage) decline(info, "inputs of different types");
  const OpTensor &q = info.inputs[0], &k = info.inputs[1], &v = info.inputs[2], &y = info.outputs[0];
  if (y.device != storage) decline(info, "output of another storage type");
  if (q.shape.rank() < 2 || k.shape.rank() < 2 || v.shape.rank() < 2)
    decline(info, "Q, K and V need at least two axes");
  const bool k_transposed = info.node.attrs.get_int("k_transposed", 0) != 0;
  const size_t qr = q.shape.rank(), kr = k.shape.rank(), vr = v.shape.rank();
  const int64_t sq = q.shape[qr - 1 - 1], d = q.shape[qr - 1];
  const int64_t sk = k_transposed ? k.shape[kr - 1] : k.shape[kr - 2];
  const int64_t kd = k_transposed ? k.shape[kr - 2] : k.shape[kr - 1];
  const int64_t dv = v.shape[vr - 1];
  if (kd != d) decline(info, "Q's depth ", d, " differs from K's ", kd);
  if (v.shape[vr - 2] != sk) decline(info, "V has ", v.shape[vr - 2], " keys, K has ", sk);
  if (sq <= 0 || sk <= 0 || d <= 0 || dv <= 0 || y.shape.numel() == 0) decline(info, "empty Q, K, V or output");
  if (dv > kMaxDv) decline(info, "Dv ", dv, " exceeds the kernel's ", kMaxDv);

  // The output's batch axes: Q's, K's and V's broadcast (shape inference planned y).
  const std::vector<int64_t> batch = leading(y.shape, 2);
  if (y.shape.rank() < 2 || y.shape[y.shape.rank() - 2] != sq || y.shape[y.shape.rank() - 1] != dv)
    decline(info, "output planned as ", y.shape.str());
  std::vector<std::vector<int64_t>> strides = {
      broadcast_strides(info, leading(q.shape, 2), batch, sq * d, "Q"),
      broadcast_strides(info, leading(k.shape, 2), batch, sk * d, "K"),
      broadcast_strides(info, leading(v.shape, 2), batch, sk * dv, "V"),
      std::vector<int64_t>(batch.size(), 0)};
  AttentionPush push;
  push.flags = k_transposed ? 2 : 0;
  if (info.has_input(3)) {
    // The mask broadcasts onto the scores [batch..., Sq, Sk].
    const Shape& ms = info.inputs[3].shape;
    std::vector<int64_t> scores = batch;
    scores.push_back(sq);
    scores.push_back(sk);
    const std::vector<int64_t> all = broadcast_strides(info, ms.dims(), scores, 1, "the mask");
    strides[3].assign(all.begin(), all.end() - 2);
    push.m_row = int32_t(all[all.size() - 2]);
    push.m_col = int32_t(all.back());
    push.flags |= 1;
    nn::check_indexable(info, ms.numel(), "Mask");
  }

  // Batch axes merged where every tensor steps through them as one (extent-1 axes dropped), so that
  // at most three remain.
  std::vector<int64_t> dims;
  std::vector<std::array<int64_t, 4>> st;
  for (size_t a = 0; a < batch.size(); ++a) {
    if (batch[a] == 1) continue;
    std::array<int64_t, 4> s{strides[0][a], strides[1][a], strides[2][a], strides[3][a]};
    if (!dims.empty()) {
      bool merge = true;
      for (int t = 0; t < 4; ++t) merge = merge && st.back()[size_t(t)] == s[size_t(t)] * batch[a];
      if (merge) {
        dims.back() *= batch[a];
        st.back() = s;
        continue;
      }
    }
    dims.push_back(batch[a]);
    st.push_back(s);
  }
  if (dims.size() > size_t(kBatchAxes)) decline(info, "more than ", kBatchAxes, " independent batch axes");
  int64_t batch_count = 1;
  for (int64_t e : batch) batch_count *= e;
  const size_t pad = kBatchAxes - dims.size();
  for (size_t a = 0; a < dims.size(); ++a) {
    push.bdims[pad + a] = int32_t(dims[a]);
    push.qs[pad + a] = int32_t(st[a][0]);
    push.ks[pad + a] = int32_t(st[a][1]);
    push.vs[pad + a] = int32_t(st[a][2]);
    push.ms[pad + a] = int32_t(st[a][3]);
  }
  nn::check_indexable(info, q.shape.numel(), "Q");
  nn::check_indexable(info, k.shape.numel(), "K");
  nn::check_indexable(info, v.shape.numel(), "V");
  nn::check_indexable(info, y.shape.numel(), "Y");
  const int64_t blocks = (sq + kQueryBlock - 1) / kQueryBlock;
  if (batch_count > 65535 || blocks > 65535) decline(info, "more than 65535 batches or query blocks");

  push.sq = int32_t(sq);
  push.sk = int32_t(sk);
  push.d = int32_t(d);
  push.dv = int32_t(dv);
  push.scale = info.node.attrs.get_float("scale", 1.0f);

  Dispatch dispatch;
  dispatch.shader = nn::shader_for("attention", storage);
  // Every offset the shader forms is then a multiple of 4 (batch strides are multiples of D or Dv).
  const bool vec_loads = d % 4 == 0 && dv % 4 == 0;
  dispatch.spec_constants = {int32_t((dv + kChunk - 1) / kChunk), vec_loads ? 1 : 0};
  dispatch.bindings = {Binding::in(0), Binding::in(1), Binding::in(2), info.has_input(3) ? Binding::in(3) : Binding::in(0),
                       Binding::out(0)};
  dispatch.set_push(push);
  dispatch.groups = {uint32_t(blocks), uint32_t(batch_count), 1};
  OpPlan plan;
  plan.dispatches.push_back(std::move(dispatch));
  plan.variant = "flash";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_attention, {kAttention, "", 0, plan_attention});

}  // namespace vx::vk

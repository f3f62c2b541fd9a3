// vx.Attention on Vulkan (ops/fused_ops.h): softmax(Q K^T * scale + Mask) V in one dispatch of
// shaders/attention.comp (flash-attention style: key tiles with an online softmax, so any Sk; D in
// chunks of 64; Dv up to kMaxDv in registers), or, at fp16 on devices with cooperative matrices and
// for shapes of whole fragments (tensor_core_shape), of shaders/attention_coopmat.comp. Batch axes
// broadcast as in MatMul; the mask broadcasts onto [..., Sq, Sk]. Q, K, V and Y may be
// heads-interleaved ([..., S, H, D]: the qkv_layout / out_layout "bshd"), read and written through
// row strides. Declines (CPU fallback) past kMaxDv, more than three batch axes that cannot be
// merged, empty tensors and non-float inputs.
#include <algorithm>
#include <cstdlib>
#include <limits>
#include <string>

#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/knobs.h"
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

constexpr int kBatchAxes = 3;
constexpr int kQueryBlock = 16;  // BQ of attention.comp and attention_coopmat.comp
constexpr int kChunk = 64;       // attention.comp's DC
constexpr int64_t kMaxDv = 4 * kChunk;
// attention_coopmat.comp's SK_MAX and D_MAX: its rows of scores and its Q block in shared memory.
constexpr int64_t kTensorCoreMaxSk = 256, kTensorCoreMaxD = 128;
// Its staged variant's (f16_staged: K's and V's rows staged in shared memory): Sk, and D and Dv.
constexpr int64_t kStagedMaxSk = 128, kStagedMaxD = 64;

// Matches the push block of shaders/attention_io.glsl (both attention kernels).
struct AttentionPush {
  int32_t sq = 0, sk = 0, d = 0, dv = 0;
  int32_t bdims[kBatchAxes]{1, 1, 1};
  int32_t qs[kBatchAxes]{}, ks[kBatchAxes]{}, vs[kBatchAxes]{}, ms[kBatchAxes]{}, ys[kBatchAxes]{};
  int32_t q_row = 0, k_row = 0, v_row = 0, y_row = 0;
  int32_t m_row = 0, m_col = 0;
  int32_t flags = 0;
  float scale = 1;
};
static_assert(sizeof(AttentionPush) <= kOpPushConstantBytes);

// A tensor as the op reads it: logical extents and the element stride of each logical axis.
struct Strided {
  std::vector<int64_t> dims, strides;
};

// A dense tensor of `shape`; with `bshd` its two axes before the innermost swap places (the
// "bshd" layout [..., S, H, D] read as [..., H, S, D]).
Strided strided(const OpInfo& info, const Shape& shape, bool bshd, const char* what) {
  Strided t{shape.dims(), std::vector<int64_t>(shape.rank(), 1)};
  for (size_t i = t.dims.size(); i-- > 1;) t.strides[i - 1] = t.strides[i] * t.dims[i];
  if (bshd) {
    const size_t r = t.dims.size();
    if (r < 3) decline(info, what, " of rank ", r, " in layout \"bshd\"");
    std::swap(t.dims[r - 3], t.dims[r - 2]);
    std::swap(t.strides[r - 3], t.strides[r - 2]);
  }
  return t;
}

// The element strides of `t`'s leading axes (all but the `drop` innermost), right-aligned onto
// `out` (numpy broadcasting): 0 along broadcast axes.
std::vector<int64_t> broadcast_strides(const OpInfo& info, const Strided& t, size_t drop,
                                       const std::vector<int64_t>& out, const char* what) {
  const size_t lead = t.dims.size() - drop;
  if (lead > out.size()) decline(info, what, " has more batch axes than the output");
  std::vector<int64_t> strides(out.size(), 0);
  for (size_t i = 0; i < lead; ++i) {
    const size_t o = i + out.size() - lead;
    if (t.dims[i] != 1 && t.dims[i] != out[o]) decline(info, what, " does not broadcast to the output's batch axes");
    strides[o] = t.dims[i] == 1 ? 0 : t.strides[i];
  }
  return strides;
}

bool bshd_layout(const OpInfo& info, const char* attr) { return attention_bshd_layout(info.node, attr); }

// Whether attention_coopmat.comp takes the product: Sk, D and Dv whole 16 x 16 fragments within its
// shared memory, and every offset it forms a whole 16-byte word of 8 fp16 values (its fragments
// load from K and V in memory, its stores write 8 values). VOLVOX_VK_ATTENTION=flash keeps
// attention.comp (measurements).
bool tensor_core_shape(const AttentionPush& push, bool k_transposed) {
  if (const char* env = std::getenv("VOLVOX_VK_ATTENTION"); env && std::string(env) == "flash") return false;
  if (push.sk % 16 != 0 || push.sk > kTensorCoreMaxSk || push.d % 16 != 0 || push.d > kTensorCoreMaxD || push.dv % 16 != 0)
    return false;
  std::vector<int32_t> offsets = {push.q_row, push.v_row, push.y_row, k_transposed ? push.sk : push.k_row};
  for (int a = 0; a < kBatchAxes; ++a) offsets.insert(offsets.end(), {push.qs[a], push.ks[a], push.vs[a], push.ys[a]});
  return std::all_of(offsets.begin(), offsets.end(), [](int32_t v) { return v % 8 == 0; });
}

// Whether attention_coopmat.comp stages K's and V's rows in shared memory (its f16_staged variant):
// K not transposed (rows of keys as stored) and the rows within the variant's shared memory.
// VOLVOX_VK_ATTENTION_STAGED=0 loads the fragments from memory as before (measurements).
bool staged_shape(const AttentionPush& push, bool k_transposed) {
  return !knob_off("VOLVOX_VK_ATTENTION_STAGED") && !k_transposed && push.sk <= kStagedMaxSk && push.d <= kStagedMaxD && push.dv <= kStagedMaxD;
}

OpPlan plan_attention(const OpInfo& info) {
  for (size_t i = 0; i < 3; ++i)
    if (!info.has_input(i)) decline(info, "input ", i, " is missing");
  const DeviceType storage = float_storage(info, 0);
  for (size_t i = 1; i < info.inputs.size(); ++i)
    if (info.has_input(i) && float_storage(info, i) != storage) decline(info, "inputs of different types");
  const OpTensor &qt = info.inputs[0], &kt = info.inputs[1], &vt = info.inputs[2], &yt = info.outputs[0];
  if (yt.device != storage) decline(info, "output of another storage type");
  if (qt.shape.rank() < 2 || kt.shape.rank() < 2 || vt.shape.rank() < 2)
    decline(info, "Q, K and V need at least two axes");
  const bool k_transposed = info.node.attrs.get_int("k_transposed", 0) != 0;
  const bool bshd_in = bshd_layout(info, "qkv_layout"), bshd_out = bshd_layout(info, "out_layout");
  if (bshd_in && k_transposed) decline(info, "qkv_layout \"bshd\" with k_transposed = 1");
  const Strided q = strided(info, qt.shape, bshd_in, "Q"), k = strided(info, kt.shape, bshd_in, "K"),
                v = strided(info, vt.shape, bshd_in, "V"), y = strided(info, yt.shape, bshd_out, "Y");
  const size_t qr = q.dims.size(), kr = k.dims.size(), vr = v.dims.size(), yr = y.dims.size();
  const int64_t sq = q.dims[qr - 2], d = q.dims[qr - 1];
  const int64_t sk = k_transposed ? k.dims[kr - 1] : k.dims[kr - 2];
  const int64_t kd = k_transposed ? k.dims[kr - 2] : k.dims[kr - 1];
  const int64_t dv = v.dims[vr - 1];
  if (kd != d) decline(info, "Q's depth ", d, " differs from K's ", kd);
  if (v.dims[vr - 2] != sk) decline(info, "V has ", v.dims[vr - 2], " keys, K has ", sk);
  if (sq <= 0 || sk <= 0 || d <= 0 || dv <= 0 || yt.shape.numel() == 0) decline(info, "empty Q, K, V or output");
  if (dv > kMaxDv) decline(info, "Dv ", dv, " exceeds the kernel's ", kMaxDv);

  // The output's batch axes: Q's, K's and V's broadcast (shape inference planned y).
  if (yr < 2 || y.dims[yr - 2] != sq || y.dims[yr - 1] != dv) decline(info, "output planned as ", yt.shape.str());
  const std::vector<int64_t> batch(y.dims.begin(), y.dims.end() - 2);
  std::vector<std::vector<int64_t>> strides = {broadcast_strides(info, q, 2, batch, "Q"),
                                               broadcast_strides(info, k, 2, batch, "K"),
                                               broadcast_strides(info, v, 2, batch, "V"),
                                               std::vector<int64_t>(batch.size(), 0),
                                               broadcast_strides(info, y, 2, batch, "Y")};
  AttentionPush push;
  push.flags = k_transposed ? 2 : 0;
  if (info.has_input(3)) {
    // The mask broadcasts onto the scores [batch..., Sq, Sk].
    const Shape& ms = info.inputs[3].shape;
    std::vector<int64_t> scores = batch;
    scores.push_back(sq);
    scores.push_back(sk);
    const std::vector<int64_t> all = broadcast_strides(info, strided(info, ms, false, "the mask"), 0, scores, "the mask");
    strides[3].assign(all.begin(), all.end() - 2);
    push.m_row = int32_t(all[all.size() - 2]);
    push.m_col = int32_t(all.back());
    push.flags |= 1;
    checked_count32(info, ms.numel(), "Mask");
  }
  push.q_row = int32_t(q.strides[qr - 2]);
  push.k_row = int32_t(k.strides[kr - 2]);
  push.v_row = int32_t(v.strides[vr - 2]);
  push.y_row = int32_t(y.strides[yr - 2]);

  // Batch axes merged where every tensor steps through them as one (extent-1 axes dropped), so that
  // at most three remain.
  constexpr size_t kTensors = 5;  // Q, K, V, Mask, Y
  std::vector<int64_t> dims;
  std::vector<std::array<int64_t, kTensors>> st;
  for (size_t a = 0; a < batch.size(); ++a) {
    if (batch[a] == 1) continue;
    std::array<int64_t, kTensors> s{};
    for (size_t t = 0; t < kTensors; ++t) s[t] = strides[t][a];
    if (!dims.empty()) {
      bool merge = true;
      for (size_t t = 0; t < kTensors; ++t) merge = merge && st.back()[t] == s[t] * batch[a];
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
    push.ys[pad + a] = int32_t(st[a][4]);
  }
  checked_count32(info, qt.shape.numel(), "Q");
  checked_count32(info, kt.shape.numel(), "K");
  checked_count32(info, vt.shape.numel(), "V");
  checked_count32(info, yt.shape.numel(), "Y");
  const int64_t blocks = (sq + kQueryBlock - 1) / kQueryBlock;
  if (batch_count > 65535 || blocks > 65535) decline(info, "more than 65535 batches or query blocks");

  push.sq = int32_t(sq);
  push.sk = int32_t(sk);
  push.d = int32_t(d);
  push.dv = int32_t(dv);
  push.scale = info.node.attrs.get_float("scale", 1.0f);

  const bool tensor_cores = storage == DeviceType::f16 && info.coopmat && tensor_core_shape(push, k_transposed);
  const bool staged = tensor_cores && staged_shape(push, k_transposed);
  Dispatch dispatch;
  dispatch.shader = shader_variant(tensor_cores ? "attention_coopmat" : "attention", {storage}, staged ? "staged" : "");
  // Every offset the shader forms is then a multiple of 4 (batch and row strides are multiples of
  // D or Dv, in either layout).
  const bool vec_loads = d % 4 == 0 && dv % 4 == 0;
  if (!tensor_cores) dispatch.spec_constants = {int32_t((dv + kChunk - 1) / kChunk), vec_loads ? 1 : 0};
  dispatch.bindings = {Binding::in(0), Binding::in(1), Binding::in(2), info.has_input(3) ? Binding::in(3) : Binding::in(0),
                       Binding::out(0)};
  dispatch.set_push(push);
  dispatch.groups = {uint32_t(blocks), uint32_t(batch_count), 1};
  OpPlan plan;
  plan.dispatches.push_back(std::move(dispatch));
  plan.variant = staged ? "coopmat+stagedKV" : tensor_cores ? "coopmat" : "flash";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_attention, {kAttention, "", 0, plan_attention});

}  // namespace vx::vk

// vx.AttentionProjection on Vulkan (ops/fused_ops.h): an attention whose output is A of its output
// projection. On tensor cores (attention_coopmat.comp's PROJECTION variant) each workgroup
// multiplies its block of the attention's output by its head's rows of W into fp32 partial sums,
// one split of K a head, and the product's reduce pass (gemm_plan.h's add_gemm_reduce) adds them
// with the bias, the residual and the LayerNorm: two dispatches where the attention and the split
// product took three (a post-norm encoder layer's attention, out-projection and first LayerNorm).
// Elsewhere the two nodes' own plans run in a row, the attention's output in a scratch buffer.
#include <climits>
#include <cstdlib>
#include <string>

#include "backends/vulkan/context.h"
#include "backends/vulkan/kernels/attention_plan.h"
#include "backends/vulkan/kernels/gemm_plan.h"
#include "backends/vulkan/kernels/op_args.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "ops/fused_ops.h"

namespace vx::vk {
namespace {

// Input indices of vx.AttentionProjection.
constexpr size_t kMask = 3, kW = 4, kBias = 5, kResidual = 6, kLnScale = 7, kLnBias = 8;

// VOLVOX_VK_ATTENTION_PROJECTION: "tensor_cores" takes the tensor-core projection where it fits,
// "in_a_row" never (measurements); unset, kTensorCoresByDefault decides. Off by default until
// attention_coopmat.comp's PROJECTION variant has run on a GPU (no device could be started in
// session 39, which wrote it; lavapipe has no cooperative matrices).
constexpr bool kTensorCoresByDefault = false;
bool tensor_cores_chosen() {
  const char* env = std::getenv("VOLVOX_VK_ATTENTION_PROJECTION");
  if (env && std::string(env) == "tensor_cores") return true;
  if (env && std::string(env) == "in_a_row") return false;
  return kTensorCoresByDefault;
}

// A constituent node's OpInfo over the fused node's tensors `inputs` (indices into info.inputs;
// kNoInput for an operand the constituent reads from elsewhere, `other`).
constexpr size_t kNoInput = size_t(-1);
OpInfo constituent(const OpInfo& info, const Node& node, const std::vector<size_t>& inputs, const OpTensor& other,
                   const OpTensor& output) {
  OpInfo sub{node, info.graph, info.opset, info.precision, info.device, {}, {}, {output}, info.coopmat};
  for (size_t i : inputs) {
    sub.inputs.push_back(i == kNoInput ? other : info.inputs[i]);
    sub.present.push_back(i == kNoInput || info.has_input(i));
  }
  return sub;
}

// The attention's and the projection's own plans in a row (any device and precision).
OpPlan plan_in_a_row(const OpInfo& info, const OpTensor& attended) {
  const std::vector<const OpEntry*> attention_ops = find_ops(kAttention), product_ops = find_ops(kFusedMatMul);
  if (attention_ops.empty() || product_ops.empty()) decline(info, "vx.Attention or vx.FusedMatMul has no Vulkan kernel");
  Node attention = info.node;
  attention.op = kAttention;
  attention.inputs.resize(kMask + 1, kNoValue);
  Node product = info.node;
  product.op = kFusedMatMul;
  product.attrs.set("activation", std::string("none"));
  product.inputs = {info.node.input(0), info.node.input(kW), info.node.input(kBias), info.node.input(kResidual),
                    info.node.input(kLnScale), info.node.input(kLnBias)};
  OpTensor a = attended;
  a.shape = Shape(info.node.attrs.get_ints("a_shape"));

  OpPlan plan;
  plan.scratch_bytes.push_back(uint64_t(attended.shape.numel()) * device_type_bytes(attended.device));
  const Binding mid = Binding::scratch_buffer(0);
  OpPlan first = attention_ops[0]->plan(constituent(info, attention, {0, 1, 2, kMask}, {}, attended));
  OpPlan second =
      product_ops[0]->plan(constituent(info, product, {kNoInput, kW, kBias, kResidual, kLnScale, kLnBias}, a, info.outputs[0]));
  plan.variant = first.variant + "|" + second.variant;
  append_plan(plan, std::move(first), {Binding::in(0), Binding::in(1), Binding::in(2), Binding::in(int(kMask))}, {mid});
  append_plan(plan, std::move(second),
              {mid, Binding::in(int(kW)), Binding::in(int(kBias)), Binding::in(int(kResidual)), Binding::in(int(kLnScale)),
               Binding::in(int(kLnBias))},
              {Binding::out(0)});
  return plan;
}

// Input i as the epilogue reads it: a constant blob, or the input itself.
Binding epilogue_input(OpPlan& plan, const OpInfo& info, size_t i, DeviceType storage) {
  if (float_storage(info, i) != storage) decline(info, "input ", i, " of another storage type");
  const OpTensor& t = info.inputs[i];
  if (!t.constant) return Binding::in(int(i));
  plan.constants.push_back(pack(constant_values(*t.constant), storage));
  return Binding::constant_blob(int(plan.constants.size() - 1));
}

// A vector input of `n` values (bias, LayerNorm scale and bias).
Binding vector_input(OpPlan& plan, const OpInfo& info, size_t i, int64_t n, DeviceType storage) {
  const Shape& s = info.inputs[i].shape;
  if (s.numel() != n || s.rank() != 1) decline(info, "input ", i, " ", s.str(), " is not a vector of ", n, " values");
  return epilogue_input(plan, info, i, storage);
}

OpPlan plan_attention_projection(const OpInfo& info) {
  const Node& node = info.node;
  if (!info.has_input(kW)) decline(info, "W is missing");
  const Shape attended_shape =
      attention_output_shape(node, info.inputs[0].shape, info.inputs[1].shape, info.inputs[2].shape);
  const AttentionLaunch launch = attention_launch(info, attended_shape);
  const DeviceType storage = launch.storage;
  OpTensor attended = info.inputs[0];
  attended.shape = attended_shape;
  attended.constant = nullptr;

  // The tensor-core path: W a constant [K, N] of whole fragments, K splits of Dv (a head's columns
  // of A each), the attention's rows a multiple of K apart (so a workgroup's rows take one split),
  // and a residual (if any) of the output's own shape.
  const AttentionPush& ap = launch.push;
  const OpTensor& w = info.inputs[kW];
  const Shape& y = info.outputs[0].shape;
  const int64_t k = w.shape.rank() == 2 ? w.shape[0] : 0, n = w.shape.rank() == 2 ? w.shape[1] : 0;
  const bool fits = launch.tensor_cores && w.constant && k > 0 && n % 16 == 0 && ap.dv <= kTensorCoreMaxD &&
                    k % ap.dv == 0 && ap.y_row % k == 0 && info.outputs[0].device == storage &&
                    (!info.has_input(kResidual) || info.inputs[kResidual].shape == y);
  if (!fits || !tensor_cores_chosen()) return plan_in_a_row(info, attended);
  const int64_t rows = attended_shape.numel() / k, splits = k / ap.dv;
  if (int64_t(splits) * rows * n > INT_MAX) decline(info, "partial sums of ", splits, " x ", rows, " x ", n);

  OpPlan plan;
  plan.constants.push_back(pack(constant_values(*w.constant), storage));
  plan.scratch_bytes.push_back(uint64_t(splits * rows * n) * 4);
  const Binding partials = Binding::scratch_buffer(0);
  AttentionPush push = ap;
  push.proj_n = int32_t(n);
  push.proj_k = int32_t(k);
  Dispatch dispatch;
  dispatch.shader = shader_variant("attention_coopmat", {storage}) + "_projection";
  dispatch.bindings = {Binding::in(0), Binding::in(1), Binding::in(2), info.has_input(kMask) ? Binding::in(int(kMask)) : Binding::in(0),
                       partials, Binding::constant_blob(0)};
  dispatch.set_push(push);
  dispatch.groups = launch.groups;
  plan.dispatches.push_back(std::move(dispatch));

  GemmDesc d;
  d.m = rows;
  d.n = n;
  d.k = k;
  d.y = Binding::out(0);
  if (info.has_input(kBias)) {
    d.has_bias = true;
    d.bias = vector_input(plan, info, kBias, n, storage);
  }
  if (info.has_input(kResidual)) {  // Y = acc + bias + C, C dense like Y
    d.has_c = true;
    d.beta = 1.0f;
    d.scm = n;
    d.scn = 1;
    d.c = epilogue_input(plan, info, kResidual, storage);
  }
  if (info.has_input(kLnScale)) {
    d.layer_norm = true;
    d.ln_epsilon = node.attrs.get_float("layer_norm_epsilon", 1e-5f);
    d.ln_scale = vector_input(plan, info, kLnScale, n, storage);
    d.has_ln_bias = info.has_input(kLnBias);
    if (d.has_ln_bias) d.ln_bias = vector_input(plan, info, kLnBias, n, storage);
  }
  plan.variant = "coopmat_projection_split" + std::to_string(splits) + "|" + add_gemm_reduce(plan, info, d, storage, splits, partials);
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_attention_projection, {kAttentionProjection, "", 0, plan_attention_projection});

}  // namespace vx::vk

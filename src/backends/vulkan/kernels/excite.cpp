// vx.Excite (ops/fused_ops.h; passes/fuse_squeeze_excite.h), shaders/excite.comp: the excitation
// of a squeeze-and-excitation block in one dispatch where the squeeze's C x Rd products are few
// enough for every workgroup to compute all of H (MobileNetV3's first blocks, PaddleOCR's), else
// two (H once into a scratch buffer, then E and the scaling).
#include <bit>

#include "backends/vulkan/kernels/gemm_plan.h"  // kMaxPostOps, add_post_op_constants
#include "backends/vulkan/kernels/op_args.h"
#include "ops/excite_geometry.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"

namespace vx::vk {
namespace {

// H computed in every workgroup up to this many products: ~16 per thread, less than a dispatch.
constexpr int64_t kInlineSqueezeProducts = 4096;
constexpr int64_t kMaxSqueezed = 1024;  // shaders/excite.comp: MAX_SQUEEZED
constexpr int64_t kThreads = 256;
constexpr int64_t kMaxScaled = 1024;  // X values a workgroup scales (4 a thread: PER_THREAD)
constexpr int64_t kMaxTerms = 16;     // W1 / W2 terms a thread loads at once (MAX_TERMS)

// Threads per dot product of `terms` terms: at most kMaxTerms terms a thread (the shader loads
// those at once), a power of two up to the workgroup (past it a thread loops over the rest).
int32_t lanes_for(int64_t terms) {
  return int32_t(std::min<uint64_t>(std::bit_ceil(uint64_t((terms + kMaxTerms - 1) / kMaxTerms)), kThreads));
}

OpPlan plan_excite(const OpInfo& info) {
  if (!info.has_input(1) || !info.has_input(2) || !info.has_input(4)) decline(info, "needs X, P, W1 and W2");
  const DeviceType storage = float_storage(info, 0);
  for (size_t i = 1; i < info.inputs.size(); ++i)
    if (info.has_input(i) && float_storage(info, i) != storage) decline(info, "input ", i, " of another storage type");
  const Shape& xs = info.inputs[0].shape;
  auto shape_of = [&](size_t i) { return info.has_input(i) ? &info.inputs[i].shape : nullptr; };
  const ExciteExtents e = excite_extents(xs, info.inputs[1].shape, info.inputs[2].shape, shape_of(3),
                                         info.inputs[4].shape, shape_of(5), shape_of(6), label(info));
  const int64_t batch = e.batch, channels = e.channels, pixels = e.pixels, squeezed = e.squeezed;
  const bool residual = info.has_input(6);
  if (info.outputs[0].shape != xs || info.outputs[0].device != storage) decline(info, "output differs from X");
  if (squeezed < 1 || squeezed > kMaxSqueezed) decline(info, squeezed, " squeezed channels (the kernel takes 1 to ", kMaxSqueezed, ")");
  if (batch < 1 || batch > 65535) decline(info, "batch ", batch, " exceeds the dispatch limit");
  checked_count32(info, xs.numel(), "X");
  checked_count32(info, channels * squeezed, "W1");
  if (xs.numel() == 0) return OpPlan{};
  const std::vector<PostOp> post_ops = read_post_ops(info.node.attrs, label(info));
  if (post_ops.size() > kMaxPostOps) decline(info, post_ops.size(), " post-ops (the kernel takes ", kMaxPostOps, ")");

  struct {
    int32_t c, rd, pixels, block, run, squeeze_lanes, excite_lanes;
  } push{int32_t(channels), int32_t(squeezed), int32_t(pixels), 0, 0, lanes_for(channels), lanes_for(squeezed)};
  std::vector<int32_t> spec = {1, int32_t(info.node.attrs.get_int("squeeze_relu", 0) != 0),
                               int32_t(info.node.attrs.get_int("relu", 0) != 0), info.has_input(3) ? 1 : 0,
                               info.has_input(5) ? 1 : 0, residual ? 1 : 0};
  add_post_op_constants(spec, 6, post_ops);  // shaders/excite.comp: POST_OPS_ID0
  const Binding absent = Binding::in(0);     // for the optional inputs a mode does not read
  const Binding b1 = info.has_input(3) ? Binding::in(3) : absent, b2 = info.has_input(5) ? Binding::in(5) : absent;
  const Binding r = residual ? Binding::in(6) : absent;

  OpPlan plan;
  // Inline: few products, and all of H's rows in one round of the workgroup's dot products.
  const bool inline_squeeze = channels * squeezed <= kInlineSqueezeProducts && push.squeeze_lanes * squeezed <= kThreads;
  Binding p_or_h = Binding::in(1);
  if (!inline_squeeze) {
    plan.scratch_bytes.push_back(uint64_t(batch * squeezed) * 4);
    Dispatch d;
    d.shader = shader_variant("excite", {storage});
    d.spec_constants = spec;
    d.spec_constants[0] = 0;
    d.bindings = {absent, Binding::in(1), Binding::in(2), b1, absent, absent, absent, Binding::scratch_buffer(0)};
    push.block = int32_t(kThreads / push.squeeze_lanes);  // one round of dot products a workgroup
    d.set_push(push);
    d.groups = {uint32_t((squeezed + push.block - 1) / push.block), uint32_t(batch), 1};
    plan.dispatches.push_back(std::move(d));
    p_or_h = Binding::scratch_buffer(0);
    spec[0] = 2;
  }
  // A workgroup scales up to kMaxScaled values: runs of up to that many pixels of one channel, or
  // whole channels, as many as fit and as one round of E's dot products has.
  push.run = int32_t(std::min(pixels, kMaxScaled));
  push.block = int32_t(std::clamp<int64_t>(kMaxScaled / push.run, 1, kThreads / push.excite_lanes));
  const int64_t runs = (pixels + push.run - 1) / push.run;
  if (runs > 65535) decline(info, pixels, " pixels exceed the dispatch limit");
  Dispatch d;
  d.shader = shader_variant("excite", {storage});
  d.spec_constants = spec;
  d.bindings = {Binding::in(0), p_or_h, Binding::in(2), b1, Binding::in(4), b2, r, Binding::out(0)};
  d.set_push(push);
  d.groups = {uint32_t((channels + push.block - 1) / push.block), uint32_t(batch), uint32_t(runs)};
  plan.dispatches.push_back(std::move(d));
  plan.variant = inline_squeeze ? "one_pass" : "two_pass";
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(vx_excite, {kExcite, "", 0, plan_excite});

}  // namespace vx::vk

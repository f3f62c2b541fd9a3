// What vx.Attention's kernels (shaders/attention*.comp) need to know of a node, shared by the
// vx.Attention plan (attention.cpp) and vx.AttentionProjection's (attention_projection.cpp).
#pragma once
#include <array>
#include <cstdint>

#include "backends/vulkan/kernels/op_kernel.h"

namespace vx::vk {

inline constexpr int kAttentionBatchAxes = 3;
// attention_coopmat.comp's D_MAX: the depth of its Q block (and of the projection's Y block) in
// shared memory.
inline constexpr int64_t kTensorCoreMaxD = 128;

// Matches the push block of shaders/attention_io.glsl (both attention kernels).
struct AttentionPush {
  int32_t sq = 0, sk = 0, d = 0, dv = 0;
  int32_t bdims[kAttentionBatchAxes]{1, 1, 1};
  int32_t qs[kAttentionBatchAxes]{}, ks[kAttentionBatchAxes]{}, vs[kAttentionBatchAxes]{}, ms[kAttentionBatchAxes]{},
      ys[kAttentionBatchAxes]{};
  int32_t q_row = 0, k_row = 0, v_row = 0, y_row = 0;
  int32_t m_row = 0, m_col = 0;
  int32_t flags = 0;
  float scale = 1;
  // attention_coopmat.comp's PROJECTION variant: W's columns N and rows K (Y read as [rows, K]).
  int32_t proj_n = 0, proj_k = 0;
};
static_assert(sizeof(AttentionPush) <= kOpPushConstantBytes);

struct AttentionLaunch {
  AttentionPush push;
  std::array<uint32_t, 3> groups{1, 1, 1};  // query blocks x batches
  int64_t batches = 1;
  DeviceType storage = DeviceType::f32;
  bool tensor_cores = false;  // attention_coopmat.comp takes it (else attention.comp)
};

// The launch of vx.Attention over the node's inputs 0-3 (Q, K, V, Mask) writing an output of
// `y_shape` as stored (its out_layout); declines what neither kernel runs.
AttentionLaunch attention_launch(const OpInfo& info, const Shape& y_shape);

}  // namespace vx::vk

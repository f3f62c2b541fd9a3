#include "backends/vulkan/optimize_for_vulkan.h"

#include <cstdlib>
#include <string_view>

#include "backends/vulkan/kernels/gemm_plan.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/knobs.h"
#include "ops/fused_ops.h"
#include "passes/additive_attention_masks.h"
#include "passes/crop_dilated_conv_taps.h"
#include "passes/fold_attention_transposes.h"
#include "passes/fold_constants.h"
#include "passes/fold_conv_affine.h"
#include "passes/fold_shape_queries.h"
#include "passes/fuse_attention.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_global_mean.h"
#include "passes/fuse_conv_pairs.h"
#include "passes/fuse_conv_post_ops.h"
#include "passes/fuse_conv_relu_pool.h"
#include "passes/fuse_conv_residual.h"
#include "passes/fuse_elementwise_chains.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_hard_swish.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_matmul_bias_act.h"
#include "passes/fuse_matmul_layer_norm.h"
#include "passes/fuse_matmul_residual.h"
#include "passes/fuse_squeeze_excite.h"
#include "passes/fuse_upsample_concat_conv.h"
#include "passes/gemm_as_fused_matmul.h"
#include "passes/matmul_column_panels.h"
#include "passes/merge_sibling_slices.h"
#include "passes/remove_dead_nodes.h"
#include "passes/transposes_as_reshapes.h"
#include "passes/untranspose_attention_keys.h"

namespace vx::vk {

bool vulkan_runs_fused_matmul() { return !find_ops(kFusedMatMul).empty(); }

void optimize_for_vulkan(Graph& graph) {
  Graph g = remove_dead_nodes(std::move(graph));
  g = fold_declared_shapes(std::move(g));  // exported shape arithmetic, so the fusions see every shape
  g = fold_constants(std::move(g));
  g = transposes_as_reshapes(std::move(g));  // after the folding: the shapes it needs are known
  g = fuse_hard_swish(std::move(g));  // one dispatch instead of four
  g = crop_dilated_conv_taps(std::move(g));  // dilated taps that read only padding
  g = fold_conv_affine(std::move(g));
  g = fuse_conv_bias_relu(std::move(g));  // Conv (+ Relu) -> vx.FusedConv: the ReLU in the GEMM epilogue
  g = fuse_conv_residual(std::move(g));   // + residual Add (+ Relu): ResNet's block ends, in the same epilogue
  // The denoiser's fusions (as in optimize_onnx.cpp): a U-Net exported with F.interpolate becomes a
  // network of 3x3 vx.FusedConv layers, which runs whole on the denoiser's executable and its
  // cooperative-matrix kernels (vulkan_backend.cpp, choose_engine).
  g = fuse_upsample_concat_conv(std::move(g));
  g = fuse_conv_relu_pool(std::move(g));
  // The elementwise chain after a convolution (HardSwish, HardSigmoid, a scalar scale and shift,
  // ...) into its epilogue (shaders/post_ops.glsl): MobileNet-style networks run one dispatch a
  // layer instead of two to four.
  g = fuse_conv_post_ops(std::move(g), kMaxPostOps);
  g = fuse_squeeze_excite(std::move(g));  // after the two above: its 1x1 convs are vx.FusedConv by then
  // A 1x1 convolution and the 3x3 / strided one that alone reads it (ResNet's bottlenecks): the
  // first one's split-K reduce pass writes the second one's im2col matrix (kernels/conv.cpp).
  g = fuse_conv_pairs(std::move(g));
  // A GlobalAveragePool after a convolution (ResNet's last block): the convolution's split-K reduce
  // pass writes the means (kernels/conv.cpp). Last of the conv fusions: the residual and post-ops
  // are in the epilogue by then.
  // (VOLVOX_VK_GLOBAL_MEAN=0: not folded, for measurements.)
  if (!knob_off("VOLVOX_VK_GLOBAL_MEAN")) g = fuse_conv_global_mean(std::move(g));
  // The transformer fusions, in the CPU path's order (optimize_onnx.cpp): each fused op has a
  // Vulkan kernel, so a decoder layer runs a few dispatches instead of dozens.
  g = fuse_gelu(std::move(g));       // before the MatMul fusion, which takes vx.Gelu as its activation
  g = fuse_layer_norm(std::move(g));
  g = additive_attention_masks(std::move(g));  // a masked_fill before the Softmax, as fuse_attention's Mask
  g = fuse_attention(std::move(g));  // before the MatMul fusion, which would take its MatMuls apart
  g = untranspose_attention_keys(std::move(g));
  g = fold_attention_transposes(std::move(g));  // K's Transpose is a head Transpose once untransposed
  // A vx.FusedMatMul without a Vulkan kernel would run on the CPU (host copies both ways): fuse
  // only once a kernel is registered.
  if (vulkan_runs_fused_matmul()) {
    g = fuse_matmul_bias_act(std::move(g));
    g = gemm_as_fused_matmul(std::move(g));  // a Gemm brings its own bias; the MatMul fusion skips it
    g = fuse_matmul_residual(std::move(g));  // the residual Adds into the GEMM epilogue
  }
  g = fuse_elementwise_chains(std::move(g), kMaxPostOps);  // what the fusions above left: one dispatch a chain
  g = merge_sibling_slices(std::move(g));  // a packed QKV cut by three Slices: one Split dispatch
  // The packed QKV product computed as three panels, so that Q, K and V are aliases of its output:
  // the Split (or PyTorch 2's Transpose) copy goes.
  if (vulkan_runs_fused_matmul()) {
    g = matmul_column_panels(std::move(g));
    // The LayerNorm after a product (a post-norm encoder's, after the out-projection and the
    // second FFN product): normalised by the product's reduce pass, one dispatch instead of two.
    g = fuse_matmul_layer_norm(std::move(g));
  }
  g = remove_dead_nodes(std::move(g));
  g.validate();
  graph = std::move(g);
}

}  // namespace vx::vk

#include "passes/optimize_onnx.h"

#include <limits>

#include "passes/additive_attention_masks.h"
#include "passes/crop_dilated_conv_taps.h"
#include "passes/fold_attention_transposes.h"
#include "passes/fold_constants.h"
#include "passes/fold_conv_affine.h"
#include "passes/fold_shape_queries.h"
#include "passes/fuse_attention.h"
#include "passes/fuse_conv_bias_relu.h"
#include "passes/fuse_conv_post_ops.h"
#include "passes/fuse_conv_relu_pool.h"
#include "passes/fuse_conv_residual.h"
#include "passes/fuse_fake_quantize.h"
#include "passes/fuse_gelu.h"
#include "passes/fuse_hard_swish.h"
#include "passes/fuse_layer_norm.h"
#include "passes/fuse_matmul_bias_act.h"
#include "passes/fuse_matmul_int8_weights.h"
#include "passes/fuse_upsample_concat_conv.h"
#include "passes/remove_dead_nodes.h"
#include "passes/transposes_as_reshapes.h"
#include "passes/untranspose_attention_keys.h"

namespace vx {

void optimize_onnx(Graph& graph) { optimize_onnx(graph, OnnxOptimizeOptions{}); }

void optimize_onnx(Graph& graph, const OnnxOptimizeOptions& options) {
  Graph g = remove_dead_nodes(std::move(graph));
  g = fold_declared_shapes(std::move(g));  // exported shape arithmetic, so the fusions see every shape
  g = fuse_dequantize_matmul(std::move(g));  // before constant folding turns the int8 weights into floats
  g = fold_constants(std::move(g));
  g = transposes_as_reshapes(std::move(g));  // after the folding: the shapes it needs are known
  g = fuse_fake_quantize(std::move(g));      // after the folding, which has turned the weights' pairs into floats
  g = fuse_hard_swish(std::move(g));      // before the conv fusions, which take HardSwish as a post-op
  g = crop_dilated_conv_taps(std::move(g));  // dilated taps that read only padding
  g = fold_conv_affine(std::move(g));     // BatchNormalization, constant Mul / Add after a Conv
  g = fuse_conv_bias_relu(std::move(g));  // every Conv -> vx.FusedConv: the op the oneDNN kernel runs
  g = fuse_conv_residual(std::move(g));   // + residual Add (+ Relu): ResNet's block ends
  // The denoiser's fusions, for U-Nets exported with F.interpolate: the 2x nearest upsample and the
  // skip Concat read inside the next convolution, the 2x2 max pool written by the one before.
  g = fuse_upsample_concat_conv(std::move(g));
  g = fuse_conv_relu_pool(std::move(g));
  // + the elementwise chain after it, as oneDNN post-ops (vx.FakeQuantize's steps among them)
  g = fuse_conv_post_ops(std::move(g), std::numeric_limits<size_t>::max(), true);
  if (options.fuse_transformer) {
    g = fuse_gelu(std::move(g));          // before the MatMul fusion, which takes vx.Gelu as its activation
    g = fuse_layer_norm(std::move(g));
    g = additive_attention_masks(std::move(g));  // a masked_fill before the Softmax, as fuse_attention's Mask
    g = fuse_attention(std::move(g));     // before the MatMul fusion, which would take its MatMuls apart
    g = untranspose_attention_keys(std::move(g));
    g = fold_attention_transposes(std::move(g));  // the head Transposes, read through strides instead
    g = fuse_matmul_bias_act(std::move(g));
  }
  if (options.int8_weights) g = quantize_weights_int8(std::move(g));
  g = remove_dead_nodes(std::move(g));
  g.validate();
  graph = std::move(g);
}

}  // namespace vx

// The ops that Volvox's own passes create (domain "vx"), shared by the passes, the CPU and Vulkan
// kernels and the tests. Everything else in a Graph is a plain ONNX op with ONNX semantics.
//
// The U-Net builder (denoise/unet_spec) emits plain ONNX ops:
//   Conv      inputs X, W, B; kernel_shape [3,3], pads [1,1,1,1], strides [1,1]
//   Relu
//   MaxPool   kernel_shape [2,2], strides [2,2]
//   Resize    inputs X, "" (kNoValue), scales [1,1,2,2]; mode "nearest",
//             coordinate_transformation_mode "asymmetric", nearest_mode "floor"  (= 2x nearest upsample)
//   Concat    axis 1
// and the fusion passes turn them into:
//
//   vx.FusedConv  (op name kFusedConv)
//     inputs:  X, W, B                    when upsample_concat = 0
//              X_low, X_skip, W, B        when upsample_concat = 1: the conv reads
//                                         concat(upsample2x_nearest(X_low), X_skip) along channels
//     attrs:   kernel_shape, pads, strides, dilations, group  (as the Conv it came from)
//              relu             int 0/1   ReLU after bias
//              pool             int 0/1   2x2 max pool, stride 2, after the ReLU
//              upsample_concat  int 0/1   see inputs
//              post_ops, post_alpha, post_beta   elementwise steps after the ReLU (ops/post_ops.h;
//                               absent = none; never with pool; created by fuse_conv_post_ops)
//              global_mean      int 0/1   Y is the mean over the spatial positions of the result
//                               (after the residual, ReLU and post-ops): a GlobalAveragePool or
//                               spatial ReduceMean folded in (passes/fuse_conv_global_mean.h);
//                               never with pool or upsample_concat
//     output:  Y (NCHW; H/2 x W/2 when pool = 1; N x C x 1 x ... when global_mean = 1)
//
//   vx.FusedConvResidual  (kFusedConvResidual; passes/fuse_conv_residual.h)   Y = relu?(Conv(X) + B + R)
//     inputs:  X, W, B (B may be omitted), R (the residual, the output's shape)
//     attrs:   as vx.FusedConv with pool = 0 and upsample_concat = 0; relu (then the post-ops) apply
//              after adding R
//
//   vx.ConvPair  (kConvPair; passes/fuse_conv_pairs.h)   Y = conv2(conv1(X)): a 1x1 convolution
//   and the convolution that alone reads it (a ResNet bottleneck's 1x1 reduction and its 3x3 layer)
//     conv1 = first_relu?(Conv1x1(X, W1) + B1): stride 1, no padding, group 1, no post-ops
//     conv2 = vx.FusedConv of conv1's output with W2, B2 (no pool, no upsample_concat)
//     inputs:  X, W1, B1 (may be omitted), W2, B2 (may be omitted)
//     attrs:   conv2's, as vx.FusedConv's (kernel_shape, pads, strides, dilations, group, relu,
//              post_ops, ...); first_relu int 0/1
//     output:  conv2's Y. On Vulkan conv1's split-K reduce pass writes conv2's im2col matrix
//              directly (one dispatch instead of two: shaders/gemm_reduce_im2col.comp)
//
//   vx.Excite  (kExcite; passes/fuse_squeeze_excite.h)   Y = X * E (+ R): the excitation half of a
//   squeeze-and-excitation block (its squeeze, the GlobalAveragePool giving P, stays a node)
//     E = post_ops(relu?(Conv1x1(H, W2) + B2)),  H = squeeze_relu?(Conv1x1(P, W1) + B1)
//     inputs:  X [N, C, spatial...], P [N, C, 1...], W1 [R, C, 1...], B1 [R] (optional),
//              W2 [C, R, 1...], B2 [C] (optional), R (optional, X's shape: a residual added last)
//     attrs:   squeeze_relu int 0/1; relu int 0/1 and post_ops, post_alpha, post_beta (as
//              vx.FusedConv's) after W2
//     output:  Y, X's shape
//
//   vx.ElementwiseChain  (kElementwiseChain; passes/fuse_elementwise_chains.h)   Y = post_ops(X)
//     inputs:  X (float);  attrs: post_ops, post_alpha, post_beta (as vx.FusedConv's);  output: X's shape
//
// The ONNX fusion passes (fuse_matmul_bias_act, gemm_as_fused_matmul, fuse_attention,
// fuse_layer_norm, fuse_gelu, quantize_weights_int8) create:
//
//   vx.FusedMatMul  (kFusedMatMul)   Y = act(MatMul(A, B) + Bias + Residual)
//     inputs:  A, B (numpy matmul semantics, as MatMul), Bias (optional, 1-D [N], added to the last axis),
//              Residual (optional, broadcasts onto MatMul(A, B)'s shape; added before the activation,
//              as the GEMM epilogue does; created by fuse_matmul_residual, Vulkan path only),
//              LnScale (optional, [N]) and LnBias (optional, [N], only with LnScale): with LnScale,
//              Y = LayerNorm over the last axis of act(...) times LnScale plus LnBias (as vx.LayerNorm;
//              created by fuse_matmul_layer_norm, Vulkan path only)
//     attrs:   activation  string "none" | "relu" | "gelu_erf" | "gelu_tanh"
//              layer_norm_epsilon  float (default 1e-5; with LnScale)
//   vx.MatMulInt8W  (kMatMulInt8W)   Y = act(MatMul(A, W) + Bias) with W = Wq * Scales (per column)
//     inputs:  A [..., K] f32, Wq [K, N] int8 constant, Scales [N] f32 constant, Bias (optional, [N])
//     attrs:   activation  (as vx.FusedMatMul)
//   vx.Attention  (kAttention)   Y = Softmax(Q K^T * scale + Mask, last axis) V
//     inputs:  Q [..., Sq, D], K [..., Sk, D] (or [..., D, Sk] when k_transposed = 1), V [..., Sk, Dv],
//              Mask (optional, broadcast onto [..., Sq, Sk]); batch extents broadcast as in MatMul
//     attrs:   scale float, k_transposed int 0/1
//              qkv_layout string "bhsd" (default: as above) | "bshd": Q, K, V are stored with their
//                         two axes before the last swapped, [..., Sq, H, D], [..., Sk, H, D],
//                         [..., Sk, H, Dv] (the layout before a head Transpose perm (0,2,1,3));
//                         the op reads them as [..., H, S, D] (the Mask still broadcasts onto the
//                         scores [..., H, Sq, Sk]). Needs rank >= 3 and k_transposed = 0.
//                         Created by fold_attention_transposes, Vulkan path only.
//              out_layout string "bhsd" (default) | "bshd": Y is written as [..., Sq, H, Dv] (rank >= 3)
//     output:  [..., Sq, Dv] (logical; stored per out_layout)
//   vx.LayerNorm  (kLayerNorm)   Y = (X - mean) / sqrt(var + epsilon) * Scale + Bias over the last axis
//     inputs:  X, Scale [C], Bias (optional, [C])
//     attrs:   epsilon float
//   vx.Gelu  (kGelu)   Y = 0.5 x (1 + erf(x / sqrt 2)), or the tanh approximation
//     inputs:  X;  attrs: approximate string "none" | "tanh"
//
// The CPU pipeline's fuse_fake_quantize (passes/fuse_fake_quantize.h) creates:
//
//   vx.FakeQuantize  (kFakeQuantize)   Y = DequantizeLinear(QuantizeLinear(X, scale, zero_point), scale, zero_point)
//     inputs:  X (float32);  output: X's shape, float32
//     attrs:   scale float, zero_point int, qmin int, qmax int (the quantised type's range: 0 / 255 for
//              uint8, -128 / 127 for int8)
#pragma once
#include "core/graph.h"

namespace vx {

inline constexpr const char* kFusedConv = "vx.FusedConv";
inline constexpr const char* kFusedConvResidual = "vx.FusedConvResidual";
inline constexpr const char* kConvPair = "vx.ConvPair";
inline constexpr const char* kFusedMatMul = "vx.FusedMatMul";
inline constexpr const char* kMatMulInt8W = "vx.MatMulInt8W";
inline constexpr const char* kAttention = "vx.Attention";
inline constexpr const char* kLayerNorm = "vx.LayerNorm";
inline constexpr const char* kGelu = "vx.Gelu";
inline constexpr const char* kExcite = "vx.Excite";
inline constexpr const char* kElementwiseChain = "vx.ElementwiseChain";
inline constexpr const char* kFakeQuantize = "vx.FakeQuantize";

// vx.Attention's "qkv_layout" / "out_layout" attribute `attr`: true for "bshd" ([..., S, H, D]),
// false for "bhsd" (the default); InvalidArgument naming the node for anything else
// (fused_shape_fns.cpp).
bool attention_bshd_layout(const Node& node, const char* attr);

}  // namespace vx

// Convolutions: Conv (1-D to 3-D, strides, dilations, asymmetric and automatic pads, groups,
// depthwise, pointwise, constant or runtime weights, every Vulkan kernel forced in turn),
// ConvTranspose, the fused vx.FusedConv / vx.FusedConvResidual, ConvInteger and QLinearConv.
// Float tolerances as for the products (cases_matmul.cpp): 1e-4 of the peak, 1e-2 at fp16.
#include <cmath>

#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
constexpr CaseTolerance kConvF32{0, 1e-4, 1e-4};
constexpr CaseTolerance kConvF16{0, 1e-2, 1e-2};

struct ConvGeometry {
  Shape x, w;
  std::vector<int64_t> strides, dilations, pads;
  int64_t group;
  std::string auto_pad;
  bool bias;
};

void set_geometry(OpCase& c, const ConvGeometry& g) {
  if (!g.strides.empty()) c.attr("strides", g.strides);
  if (!g.dilations.empty()) c.attr("dilations", g.dilations);
  if (!g.pads.empty()) c.attr("pads", g.pads);
  if (g.group != 1) c.attr("group", g.group);
  if (!g.auto_pad.empty()) c.attr("auto_pad", g.auto_pad);
}

std::vector<int64_t> pads4(int64_t p) { return {p, p, p, p}; }
}  // namespace

VX_OP_CASES(conv) {
  const ConvGeometry geometries[] = {
      // 2-D: 5 outputs, stride 2, dilation 2, asymmetric pads, groups 3
      {{1, 3, 7, 9}, {5, 3, 3, 3}, {2, 2}, {2, 2}, {1, 0, 2, 1}, 1, "", true},
      {{2, 6, 7, 9}, {9, 2, 3, 3}, {2, 1}, {1, 2}, {0, 1, 2, 1}, 3, "", true},
      {{1, 6, 7, 9}, {6, 1, 3, 3}, {1, 1}, {}, {1, 1, 1, 1}, 6, "", true},   // depthwise
      {{1, 4, 7, 9}, {8, 1, 5, 3}, {2, 2}, {}, {}, 4, "SAME_UPPER", false},  // depthwise x2
      {{1, 5, 7, 9}, {7, 5, 4, 2}, {3, 2}, {}, {}, 1, "SAME_LOWER", true},
      {{1, 5, 7, 9}, {7, 5, 3, 3}, {}, {}, {}, 1, "VALID", false},
      {{2, 17, 5, 6}, {19, 17, 1, 1}, {}, {}, {}, 1, "", true},                     // pointwise
      {{1, 33, 9, 10}, {70, 33, 3, 3}, {}, {}, {1, 1, 1, 1}, 1, "", true},          // several tiles
      {{1, 4, 17}, {6, 2, 3}, {2}, {2}, {1, 2}, 2, "", true},                       // 1-D
      {{1, 3, 4, 5, 6}, {4, 3, 2, 3, 2}, {1, 2, 1}, {}, {1, 0, 1, 0, 1, 1}, 1, "", true},  // 3-D
      {{1, 300, 1, 1}, {37, 300, 1, 1}, {}, {}, {}, 1, "", true},  // squeeze-and-excitation: the dot kernel
      {{2, 70, 5, 5}, {12, 35, 5, 5}, {}, {}, {}, 2, "VALID", false},  // a window over the whole input
  };
  std::vector<Variant> shapes;
  for (const ConvGeometry& g : geometries)
    for (bool constant_w : {true, false})
      shapes.push_back({cat("x", g.x.str(), "_w", g.w.str(), "_group", g.group, g.auto_pad.empty() ? "" : "_" + g.auto_pad,
                            constant_w ? "_constW" : "_runtimeW"),
                        [g, constant_w](OpCase& v) {
                          InputSpec w = f32(g.w, -0.5f, 0.5f), b = f32({g.w[0]});
                          if (constant_w) w.constant(), b.constant();
                          v.with_inputs({f32(g.x), w});
                          if (g.bias) v.in(b);
                          set_geometry(v, g);
                        }});
  // VOLVOX_VK_CONV picks the Vulkan kernel: the automatic choice, then each kernel forced.
  std::vector<Variant> kernels;
  for (const char* mode : {"auto", "direct", "dot", "gemm"})
    kernels.push_back({cat("kernel=", mode), [mode = std::string(mode)](OpCase& v) {
                         v.env("VOLVOX_VK_CONV", mode);
                         if (mode != "auto") v.expect_variant(Backend::vulkan_f32, mode).expect_variant(Backend::vulkan_f16, mode);
                       }});
  cases.add(OpCase("Conv", "geometries")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .opset(17)
                .variants(std::move(shapes))
                .variants(std::move(kernels)));
  // A 3x3 conv at a size the speed mode can scale (channels and image).
  cases.add(OpCase("Conv", "3x3_same")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({1, 8, 13, 11}).scaled({1, 2, 3}))
                .in(f32({9, 8, 3, 3}, -0.3f, 0.3f).constant().scaled({0, 1}))
                .in(f32({9}).constant().scaled({0}))
                .attr("pads", pads4(1)));

  const auto transpose_case = [](Shape x, Shape w, std::vector<std::pair<std::string, std::vector<int64_t>>> ints,
                                 int64_t group, std::string auto_pad, bool bias) {
    return Variant{cat("x", x.str(), "_w", w.str(), auto_pad.empty() ? "" : "_" + auto_pad), [=](OpCase& v) {
                     v.with_inputs({f32(x), f32(w)});
                     if (bias) v.in(f32({w[1] * group}));
                     for (const auto& [k, value] : ints) v.attr(k, value);
                     if (group != 1) v.attr("group", group);
                     if (!auto_pad.empty()) v.attr("auto_pad", auto_pad);
                   }};
  };
  cases.add(OpCase("ConvTranspose", "geometries")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .opset(17)
                .variants({transpose_case({1, 3, 4, 5}, {3, 2, 3, 3}, {{"strides", {2, 2}}}, 1, "", true),
                           transpose_case({1, 6, 4, 5}, {6, 2, 3, 2},
                                          {{"strides", {2, 3}}, {"pads", {1, 0, 0, 1}}, {"output_padding", {1, 1}}}, 3, "", true),
                           transpose_case({2, 4, 3, 5}, {4, 3, 3, 3},
                                          {{"strides", {2, 1}}, {"dilations", {2, 2}}, {"pads", {1, 2, 0, 1}}}, 1, "", false),
                           transpose_case({1, 2, 3, 4}, {2, 3, 3, 3}, {{"strides", {2, 2}}, {"output_shape", {7, 9}}}, 1, "", true),
                           transpose_case({1, 2, 3, 4}, {2, 3, 3, 3}, {{"strides", {2, 2}}}, 1, "SAME_UPPER", true),
                           transpose_case({1, 2, 3, 4}, {2, 3, 4, 3}, {{"strides", {2, 2}}}, 1, "SAME_LOWER", false),
                           transpose_case({1, 4, 7}, {4, 1, 3}, {{"strides", {3}}}, 2, "", true),
                           transpose_case({1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, {{"strides", {2, 1, 2}}}, 1, "", true),
                           // The PaddleOCR detector's upsampling (kernel 2, stride 2), with and without bias.
                           transpose_case({1, 12, 9, 11}, {12, 6, 2, 2}, {{"strides", {2, 2}}}, 1, "", true),
                           transpose_case({2, 12, 9, 11}, {12, 10, 2, 2}, {{"strides", {2, 2}}}, 1, "", false),
                           // one output or input channel (the detector's last layer): no layout copies
                           transpose_case({2, 6, 9, 11}, {6, 1, 2, 2}, {{"strides", {2, 2}}}, 1, "", true),
                           transpose_case({2, 1, 7, 9}, {1, 5, 3, 3}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}, 1, "", true),
                           // kernel 3, stride 2, pads 1, output_padding 1 (an exact 2x upsampling)
                           transpose_case({1, 5, 7, 9}, {5, 9, 3, 3},
                                          {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}, {"output_padding", {1, 1}}}, 1, "", true),
                           transpose_case({2, 6, 7, 5}, {6, 3, 3, 3}, {{"strides", {2, 2}}, {"pads", {0, 1, 1, 0}}}, 2, "", false),
                           transpose_case({1, 8, 7, 5}, {8, 1, 3, 3}, {{"strides", {2, 2}}, {"pads", {1, 1, 1, 1}}}, 8, "", true),  // depthwise
                           transpose_case({1, 3, 7, 9}, {3, 4, 3, 3}, {{"strides", {1, 2}}, {"dilations", {2, 2}}}, 1, "", true),
                           // output_shape one past the full extent on the width: a position no tap reaches
                           transpose_case({1, 3, 5, 7}, {3, 2, 3, 3}, {{"strides", {2, 2}}, {"output_shape", {10, 16}}}, 1, "", false),
                           transpose_case({2, 4, 5, 7}, {4, 3, 3, 3}, {{"strides", {2, 2}}}, 1, "SAME_UPPER", true),
                           transpose_case({2, 4, 5, 7}, {4, 3, 3, 3}, {{"strides", {2, 1}}, {"pads", {1, 0, 1, 2}}}, 1, "VALID", true),
                           transpose_case({2, 5, 9}, {5, 8, 3}, {{"strides", {2}}, {"pads", {1, 0}}, {"output_padding", {1}}}, 1, "", true)})
                .variants({{"constW", [](OpCase& v) {
                              std::vector<InputSpec> ins = v.inputs();
                              for (size_t i = 1; i < ins.size(); ++i) ins[i].constant();
                              v.with_inputs(ins);
                            }},
                           // The oneDNN kernel reorders the weights once: runtime weights by design run on the reference.
                           {"runtimeW", [](OpCase& v) { v.may_fall_back(Backend::cpu); }}}));
  // At a size where oneDNN's JIT kernels apply (channels in multiples of 8 and 16).
  cases.add(OpCase("ConvTranspose", "upsample2x")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({1, 32, 13, 11}))
                .in(f32({32, 16, 2, 2}, -0.3f, 0.3f).constant())
                .in(f32({16}).constant())
                .attr("strides", std::vector<int64_t>{2, 2})
                .expect_variant(Backend::cpu, "onednn"));

  // vx.FusedConv: relu, the 2x2 max pool after it; grouped, depthwise and strided (ResNet's stem).
  cases.add(OpCase(kFusedConv, "relu_pool")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({1, 5, 9, 11}).scaled({1, 2, 3}))
                .in(f32({6, 5, 3, 3}).constant().scaled({0, 1}))
                .in(f32({6}).constant().scaled({0}))
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("pads", pads4(1))
                .attr("relu", int64_t(1))
                .sweep("pool", {int64_t(0), int64_t(1)}));
  struct Grouped {
    int64_t c_in, c_out, group, kernel, stride, pad, relu;
  };
  std::vector<Variant> grouped;
  for (const Grouped& g : {Grouped{6, 4, 2, 3, 1, 1, 1}, Grouped{8, 8, 8, 3, 2, 1, 1}, Grouped{9, 9, 9, 5, 1, 2, 0},
                           Grouped{12, 18, 3, 1, 2, 0, 0}, Grouped{17, 5, 1, 1, 2, 0, 1}, Grouped{3, 8, 1, 7, 2, 3, 1}}) {
    const float bound = 1.0f / std::sqrt(float(g.c_in / g.group * g.kernel * g.kernel));
    grouped.push_back({cat("cin", g.c_in, "_cout", g.c_out, "_group", g.group, "_k", g.kernel, "_s", g.stride),
                       [g, bound](OpCase& v) {
                         v.with_inputs({f32({2, g.c_in, 13, 11}), f32({g.c_out, g.c_in / g.group, g.kernel, g.kernel}, -bound, bound).constant(),
                                        f32({g.c_out}).constant()})
                             .attr("kernel_shape", std::vector<int64_t>{g.kernel, g.kernel})
                             .attr("strides", std::vector<int64_t>{g.stride, g.stride})
                             .attr("pads", pads4(g.pad))
                             .attr("group", g.group)
                             .attr("relu", g.relu)
                             .attr("pool", int64_t(0))
                             .attr("upsample_concat", int64_t(0));
                       }});
  }
  cases.add(OpCase(kFusedConv, "grouped_strided").tol_f32(kConvF32).tol_f16(kConvF16).variants(std::move(grouped)).expect_variant(Backend::cpu, "onednn"));
  // upsample_concat: the conv reads concat(upsample2x(X_low), X_skip). The Vulkan per-op executor
  // builds the concatenation in scratch (shaders/upsample_concat.comp); whole U-Nets run on the
  // denoiser's executable (tests/parity/vulkan_conv_test.cpp). Batch 2, odd channel counts.
  cases.add(OpCase(kFusedConv, "upsample_concat")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({2, 9, 4, 5}))
                .in(f32({2, 5, 8, 10}))
                .in(f32({7, 14, 3, 3}, -0.3f, 0.3f).constant())
                .in(f32({7}).constant())
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("pads", pads4(1))
                .attr("relu", int64_t(1))
                .attr("upsample_concat", int64_t(1))
                .sweep("pool", {int64_t(0), int64_t(1)})
                .expect_variant(Backend::vulkan_f32, "upcat+")
                .expect_variant(Backend::vulkan_f16, "upcat+"));
  // vx.FusedConvResidual: Y = relu?(Conv(X) + B + R). On Vulkan R joins the GEMM's epilogue (the
  // bias then per row and group), also in a split-K GEMM's reduce pass.
  struct Residual {
    const char* name;
    int64_t c_in, c_out, group, kernel, stride, height, width;
  };
  std::vector<Variant> residuals;
  for (const Residual& r : {Residual{"3x3", 6, 6, 1, 3, 1, 9, 11}, Residual{"grouped", 8, 6, 2, 3, 1, 9, 11},
                            Residual{"strided_1x1", 10, 12, 1, 1, 2, 9, 11},
                            Residual{"downsample", 16, 64, 1, 1, 2, 8, 8}, Residual{"split_k", 300, 7, 1, 1, 1, 3, 5}}) {
    const int64_t pad = r.kernel / 2, out_h = (r.height + 2 * pad - r.kernel) / r.stride + 1,
                  out_w = (r.width + 2 * pad - r.kernel) / r.stride + 1;
    const float bound = 1.0f / std::sqrt(float(r.c_in / r.group * r.kernel * r.kernel));
    residuals.push_back({r.name, [r, pad, out_h, out_w, bound](OpCase& v) {
                           v.with_inputs({f32({1, r.c_in, r.height, r.width}),
                                          f32({r.c_out, r.c_in / r.group, r.kernel, r.kernel}, -bound, bound).constant(),
                                          f32({r.c_out}).constant(), f32({1, r.c_out, out_h, out_w})})
                               .attr("kernel_shape", std::vector<int64_t>{r.kernel, r.kernel})
                               .attr("strides", std::vector<int64_t>{r.stride, r.stride})
                               .attr("pads", pads4(pad))
                               .attr("group", r.group);
                         }});
  }
  cases.add(OpCase(kFusedConvResidual, "relu_bias")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .variants(std::move(residuals))
                .sweep("relu", {int64_t(0), int64_t(1)})
                .variants({{"bias", [](OpCase&) {}}, {"no_bias", [](OpCase& v) {
                             std::vector<InputSpec> ins = v.inputs();
                             ins[2] = omitted();
                             v.with_inputs(ins);
                           }}})
                .expect_variant(Backend::vulkan_f32, "gemm")
                .expect_variant(Backend::vulkan_f16, "gemm"));

  // The im2col matrix materialised (shaders/im2col.comp) and multiplied as a plain matrix: on the
  // H200 only large convolutions at fp16 take it (kernels/conv.cpp, kIm2colMinMacs); forced here on
  // every device and precision. Odd sizes, two images, strides, dilations, asymmetric pads, 1-D.
  cases.add(OpCase("Conv", "im2col_materialised")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .env("VOLVOX_VK_IM2COL_MIN_MACS", "0")
                .variants({{"3x3_two_images",
                            [](OpCase& v) {
                              v.in(f32({2, 7, 11, 9})).in(f32({5, 7, 3, 3}, -0.3f, 0.3f).constant()).in(f32({5}).constant())
                                  .attr("pads", pads4(1));
                            }},
                           {"strided_dilated",
                            [](OpCase& v) {
                              v.in(f32({1, 6, 13, 10})).in(f32({9, 6, 3, 2}, -0.3f, 0.3f).constant())
                                  .attr("strides", std::vector<int64_t>{2, 1}).attr("dilations", std::vector<int64_t>{3, 2})
                                  .attr("pads", std::vector<int64_t>{3, 0, 2, 1});
                            }},
                           {"one_d",
                            [](OpCase& v) {
                              v.in(f32({1, 7, 37})).in(f32({4, 7, 5}, -0.3f, 0.3f).constant()).in(f32({4}).constant())
                                  .attr("strides", std::vector<int64_t>{2}).attr("pads", std::vector<int64_t>{2, 1});
                            }}})
                .expect_variant(Backend::vulkan_f32, "gemm_im2col")
                .expect_variant(Backend::vulkan_f16, "gemm_im2col"));
  // 1-D convolutions ([N, C, W]: audio front ends such as a spectrogram as a strided conv), which
  // the oneDNN kernel runs as 2-D with a unit height.
  cases.add(OpCase(kFusedConv, "one_d")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({2, 3, 37}).scaled({1, 2}))
                .in(f32({5, 3, 4}, -0.3f, 0.3f).constant())
                .in(f32({5}).constant())
                .attr("kernel_shape", std::vector<int64_t>{4})
                .attr("strides", std::vector<int64_t>{2})
                .attr("pads", std::vector<int64_t>{1, 2})
                .attr("dilations", std::vector<int64_t>{2})
                .sweep("relu", {int64_t(0), int64_t(1)})
                .expect_variant(Backend::cpu, "onednn"));
  // Post-ops (ops/post_ops.h, fuse_conv_post_ops): every step, after the ReLU and after a
  // residual. On Vulkan in the epilogue of the GEMM (here), of the direct and dot kernels and of a
  // split-K GEMM's reduce pass (post_ops_kernels).
  struct PostOpChain {
    const char* name;
    std::vector<std::string> ops;
    std::vector<float> alpha, beta;
  };
  std::vector<Variant> chains;
  for (const PostOpChain& c : {PostOpChain{"hard_swish_linear", {"hard_swish", "linear"}, {0.0f, 0.9f}, {0.0f, -0.2f}},
                               PostOpChain{"hard_sigmoid", {"linear", "clip"}, {0.2f, 0.0f}, {0.5f, 1.0f}},
                               PostOpChain{"leaky_logistic_tanh", {"relu", "logistic", "tanh"}, {0.1f, 0.0f, 0.0f}, {0.0f, 0.0f, 0.0f}},
                               PostOpChain{"exp_log_linear", {"exp", "log", "linear"}, {0.0f, 0.0f, -0.5f}, {0.0f, 0.0f, 0.25f}}})
    chains.push_back({c.name, [c](OpCase& v) {
                        v.attr("post_ops", c.ops).attr("post_alpha", c.alpha).attr("post_beta", c.beta);
                      }});
  cases.add(OpCase(kFusedConv, "post_ops")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({2, 5, 9, 7}).scaled({1, 2, 3}))
                .in(f32({6, 5, 3, 3}, -0.3f, 0.3f).constant())
                .in(f32({6}).constant())
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("pads", pads4(1))
                .sweep("relu", {int64_t(0), int64_t(1)})
                .variants(chains)
                .expect_variant(Backend::cpu, "onednn")
                .expect_variant(Backend::vulkan_f32, "gemm_"));
  // Chains that repeat a step with other parameters: oneDNN 2.6 applies the first one's to every
  // step of the same algorithm (ops/eltwise_post_op_algorithms.h), so a scale runs as pow(a, 1), a
  // second clip as the older clip, and a second shifted linear cannot run there (the reference does).
  auto repeated = [](const char* name, std::vector<std::string> ops, std::vector<float> alpha, std::vector<float> beta,
                     bool on_onednn) {
    return Variant{name, [=](OpCase& v) {
                     v.attr("post_ops", ops).attr("post_alpha", alpha).attr("post_beta", beta);
                     if (on_onednn) v.expect_variant(Backend::cpu, "onednn");
                     else v.may_fall_back(Backend::cpu);  // oneDNN 2.6 cannot run the chain
                   }};
  };
  cases.add(OpCase(kFusedConv, "post_ops_repeated")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({1, 5, 9, 7}).scaled({1, 2, 3}))
                .in(f32({6, 5, 3, 3}, -0.3f, 0.3f).constant())
                .in(f32({6}).constant())
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("pads", pads4(1))
                .sweep("relu", {int64_t(0), int64_t(1)})
                .variants({repeated("hard_sigmoid_scale", {"linear", "clip", "linear"}, {0.2f, 0.0f, 6.0f}, {0.5f, 1.0f, 0.0f}, true),
                           repeated("clip_tanh_clip", {"clip", "tanh", "clip"}, {-1.0f, 0.0f, -0.5f}, {1.0f, 0.0f, 0.5f}, true),
                           repeated("two_shifts", {"linear", "tanh", "linear"}, {0.5f, 0.0f, 2.0f}, {0.1f, 0.0f, 0.3f}, false)}));
  // vx.FakeQuantize after a convolution (passes/post_op_steps.h): scale, round (ties to even),
  // clip to the integer range less the zero point, scale back. A value within rounding error of a
  // tie may land one step (0.125) away from the reference's.
  cases.add(OpCase(kFusedConv, "post_ops_fake_quantize")
                .tol_f32({0, 0.126, 0})
                .tol_f16({0, 0.126, 0})
                .in(f32({1, 5, 9, 7}).scaled({1, 2, 3}))
                .in(f32({6, 5, 3, 3}, -0.3f, 0.3f).constant())
                .in(f32({6}).constant())
                .attr("kernel_shape", std::vector<int64_t>{3, 3})
                .attr("pads", pads4(1))
                .attr("post_ops", std::vector<std::string>{"linear", "round", "clip", "linear"})
                .attr("post_alpha", std::vector<float>{8.0f, 0.0f, -3.0f, 0.125f})
                .attr("post_beta", std::vector<float>{0.0f, 0.0f, 12.0f, 0.0f})
                .expect_variant(Backend::cpu, "onednn"));
  cases.add(OpCase(kFusedConv, "post_ops_kernels")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .variants({{"depthwise_direct",
                            [](OpCase& v) {
                              v.in(f32({1, 6, 9, 7})).in(f32({6, 1, 3, 3}, -0.3f, 0.3f).constant()).in(f32({6}).constant())
                                  .attr("kernel_shape", std::vector<int64_t>{3, 3}).attr("pads", pads4(1))
                                  .attr("group", int64_t(6)).expect_variant(Backend::vulkan_f32, "direct");
                            }},
                           {"pointwise_split_k",
                            [](OpCase& v) {
                              v.in(f32({1, 300, 3, 5})).in(f32({7, 300, 1, 1}, -0.1f, 0.1f).constant())
                                  .in(f32({7}).constant()).attr("kernel_shape", std::vector<int64_t>{1, 1})
                                  .env("VOLVOX_VK_CONV", "gemm")  // else the dot kernel's (few outputs)
                                  .expect_variant(Backend::vulkan_f32, "gemm1x1_tiled_splitk");
                            }},
                           {"squeeze_excite_dot",
                            [](OpCase& v) {
                              v.in(f32({1, 300, 1, 1})).in(f32({37, 300, 1, 1}, -0.1f, 0.1f).constant())
                                  .in(f32({37}).constant()).attr("kernel_shape", std::vector<int64_t>{1, 1})
                                  .expect_variant(Backend::vulkan_f32, "dot")
                                  .expect_variant(Backend::vulkan_f16, "dot");
                            }},
                           {"squeeze_excite_short_dot",  // 40 products an output: the dot kernel on a 1x1 map
                            [](OpCase& v) {
                              v.in(f32({1, 40, 1, 1})).in(f32({10, 40, 1, 1}, -0.3f, 0.3f).constant())
                                  .in(f32({10}).constant()).attr("kernel_shape", std::vector<int64_t>{1, 1})
                                  .expect_variant(Backend::vulkan_f32, "dot")
                                  .expect_variant(Backend::vulkan_f16, "dot");
                            }}})
                .variants(std::move(chains)));
  cases.add(OpCase(kFusedConvResidual, "post_ops")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .in(f32({1, 6, 7, 9}))
                .in(f32({6, 6, 1, 1}, -0.3f, 0.3f).constant())
                .in(f32({6}).constant())
                .in(f32({1, 6, 7, 9}))
                .attr("kernel_shape", std::vector<int64_t>{1, 1})
                .attr("post_ops", std::vector<std::string>{"hard_swish", "linear"})
                .attr("post_alpha", std::vector<float>{0.0f, 1.5f})
                .attr("post_beta", std::vector<float>{0.0f, 0.25f})
                .expect_variant(Backend::cpu, "onednn")
                .expect_variant(Backend::vulkan_f32, "gemm"));

  // vx.ConvPair: a 1x1 convolution and the one that alone reads it (fuse_conv_pairs). Forced onto
  // the materialised im2col matrix with K split 3 ways, the first one's reduce pass writes the
  // second one's matrix (shaders/gemm_reduce_im2col.comp: odd sizes, two images, a stride, a
  // dilation, padding read as zeros); as chosen on lavapipe, two convolutions in a row.
  std::vector<Variant> pairs;
  for (const char* name : {"3x3_two_images", "strided", "dilated_post_ops"})
    pairs.push_back({name, [name](OpCase& v) {
                       const std::string n = name;
                       const int64_t images = n == "3x3_two_images" ? 2 : 1;
                       v.with_inputs({f32({images, 70, 9, 11}), f32({13, 70, 1, 1}, -0.12f, 0.12f).constant(),
                                      f32({13}).constant(), f32({6, 13, 3, 3}, -0.3f, 0.3f).constant(),
                                      f32({6}).constant()})
                           .attr("kernel_shape", std::vector<int64_t>{3, 3})
                           .attr("pads", pads4(n == "dilated_post_ops" ? 2 : 1));
                       if (n == "strided") v.attr("strides", std::vector<int64_t>{2, 2});
                       if (n == "dilated_post_ops")
                         v.attr("dilations", std::vector<int64_t>{2, 2})
                             .attr("post_ops", std::vector<std::string>{"hard_swish"})
                             .attr("post_alpha", std::vector<float>{0.0f})
                             .attr("post_beta", std::vector<float>{0.0f});
                     }});
  auto conv_pair_case = [&](const char* name) {
    return OpCase(kConvPair, name)
        .env("VOLVOX_VK_CONV", "gemm")  // else the dot kernel's (few outputs)
        .tol_f32(kConvF32)
        .tol_f16(kConvF16)
        .attr("relu", int64_t(1))
        .variants(pairs);
  };
  cases.add(conv_pair_case("reduce_into_im2col")
                .sweep("first_relu", {int64_t(0), int64_t(1)})
                .variants({{"biases", [](OpCase&) {}}, {"no_first_bias", [](OpCase& v) {
                             std::vector<InputSpec> ins = v.inputs();
                             ins[2] = omitted();
                             v.with_inputs(ins);
                           }}})
                .env("VOLVOX_VK_IM2COL_MIN_MACS", "0")
                .env("VOLVOX_VK_SPLITK", "3")
                .expect_variant(Backend::vulkan_f32, "gemm1x1_tiled_splitk3|gemm_reduce_im2col_tiled_splitk")
                .expect_variant(Backend::vulkan_f16, "gemm1x1_tiled_splitk3|gemm_reduce_im2col_tiled_splitk"));
  cases.add(conv_pair_case("in_a_row")
                .expect_variant(Backend::vulkan_f32, "gemm1x1_tiled|gemm_tiled")
                .expect_variant(Backend::vulkan_f16, "gemm1x1_tiled|gemm_tiled"));

  // ConvInteger and QLinearConv over the geometries the quantised kernels special-case.
  struct QGeometry {
    Shape x, w;
    std::vector<std::pair<std::string, std::vector<int64_t>>> ints;
    std::string auto_pad;
    int64_t group;
  };
  const QGeometry qgeometries[] = {
      {{1, 2, 5, 6}, {3, 2, 3, 3}, {}, "", 1},
      {{2, 3, 7, 5}, {4, 3, 3, 2}, {{"pads", {1, 0, 2, 1}}, {"strides", {2, 1}}}, "", 1},
      {{1, 4, 8, 8}, {6, 2, 3, 3}, {{"dilations", {2, 1}}}, "", 2},
      {{1, 2, 6, 7}, {2, 2, 2, 3}, {{"strides", {2, 2}}}, "SAME_UPPER", 1},
      {{1, 2, 6, 7}, {2, 2, 3, 2}, {}, "SAME_LOWER", 1},
      {{2, 3, 11}, {2, 3, 4}, {{"pads", {2, 1}}}, "", 1},
  };
  std::vector<Variant> integer_convs, qlinear_convs;
  for (const QGeometry& g : qgeometries) {
    const auto set_q = [g](OpCase& v) {
      for (const auto& [k, value] : g.ints) v.attr(k, value);
      if (!g.auto_pad.empty()) v.attr("auto_pad", g.auto_pad);
      v.attr("group", g.group);
    };
    const std::string label = cat("x", g.x.str(), "_w", g.w.str());
    for (DType t : {DType::u8, DType::i8}) {
      const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
      integer_convs.push_back({label + "_" + std::string(dtype_name(t)), [=](OpCase& v) {
                                 v.with_inputs({ints(g.x, lo, hi, t), ints(g.w, lo, hi, t)});
                                 set_q(v);
                               }});
      integer_convs.push_back({label + "_" + std::string(dtype_name(t)) + "_zero_points", [=](OpCase& v) {
                                 v.with_inputs({ints(g.x, lo, hi, t), ints(g.w, lo, hi, t), ints({}, lo, hi, t), ints({g.w[0]}, lo, hi, t)});
                                 set_q(v);
                               }});
    }
    for (bool per_channel : {false, true})
      qlinear_convs.push_back({label + (per_channel ? "_per_channel" : "_per_tensor"), [=](OpCase& v) {
                                 const int64_t m = g.w[0];
                                 v.with_inputs({ints(g.x, 0, 255, DType::u8), scalar(0.125), ints({}, 100, 140, DType::u8),
                                                ints(g.w, 0, 255, DType::u8),
                                                per_channel ? f32({m}, 0.001f, 0.01f) : scalar(0.00390625),
                                                ints({m}, 100, 140, DType::u8), scalar(0.25), ints({}, 0, 255, DType::u8),
                                                ints({m}, -2000, 2000)});
                                 set_q(v);
                               }});
  }
  // vx.Excite (passes/fuse_squeeze_excite.h): E from P through two 1x1 layers, X scaled by it (+ R).
  // One pass (20 x 6 products) with HardSigmoid; two passes (136 x 40) with a residual and no biases;
  // a map of more than 1024 pixels (two workgroups a channel); rank 3.
  const Attribute hard_sigmoid_ops = std::vector<std::string>{"linear", "clip"};
  cases.add(OpCase(kExcite, "blocks")
                .tol_f32(kConvF32)
                .tol_f16(kConvF16)
                .attr("squeeze_relu", int64_t(1))
                .variants({{"one_pass_hard_sigmoid",
                            [=](OpCase& v) {
                              v.with_inputs({f32({2, 20, 9, 7}), f32({2, 20, 1, 1}), f32({6, 20, 1, 1}, -0.4f, 0.4f).constant(),
                                             f32({6}).constant(), f32({20, 6, 1, 1}, -0.4f, 0.4f).constant(), f32({20}).constant()})
                                  .attr("post_ops", hard_sigmoid_ops)
                                  .attr("post_alpha", std::vector<float>{0.2f, 0.0f})
                                  .attr("post_beta", std::vector<float>{0.5f, 1.0f})
                                  .expect_variant(Backend::vulkan_f32, "one_pass");
                            }},
                           {"two_pass_residual_no_bias",
                            [](OpCase& v) {
                              v.with_inputs({f32({1, 136, 5, 4}), f32({1, 136, 1, 1}), f32({40, 136, 1, 1}, -0.1f, 0.1f).constant(),
                                             omitted(), f32({136, 40, 1, 1}, -0.2f, 0.2f).constant(), omitted(), f32({1, 136, 5, 4})})
                                  .attr("relu", int64_t(1))
                                  .expect_variant(Backend::vulkan_f32, "two_pass");
                            }},
                           {"many_pixels_rank3",
                            [](OpCase& v) {
                              v.with_inputs({f32({1, 5, 1301}), f32({1, 5, 1}), f32({3, 5, 1}).constant(), f32({3}).constant(),
                                             f32({5, 3, 1}).constant(), f32({5}).constant()})
                                  .attr("post_ops", std::vector<std::string>{"logistic"})
                                  .attr("post_alpha", std::vector<float>{0.0f})
                                  .attr("post_beta", std::vector<float>{0.0f})
                                  .expect_variant(Backend::vulkan_f32, "one_pass");
                            }}}));
  cases.add(OpCase("ConvInteger", "geometries").opset(10).variants(std::move(integer_convs)).integers_only());
  // Requantisation rounds (acc + bias) * scale in fp32 on the device, in double on the CPU: they
  // could differ by one within fp32 rounding of a half, which these inputs do not produce.
  cases.add(OpCase("QLinearConv", "geometries").opset(10).variants(std::move(qlinear_convs)));
}

}  // namespace vx::optable

// Matrix products: MatMul (numpy broadcasting, vectors), Gemm (transposes, alpha, beta, C
// broadcast), the fused vx.FusedMatMul (bias, activation, residual, rows normalised) and
// vx.MatMulInt8W (int8 weights dequantised in the kernel), and the quantised MatMulInteger and
// QLinearMatMul.
//
// Float products accumulate in fp32 on the device and in oneDNN, in double in the reference: the
// tolerance is 1e-4 of the output's peak (at least 1e-4), 1e-2 at fp16 storage.
#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
constexpr CaseTolerance kProductF32{0, 1e-4, 1e-4};
constexpr CaseTolerance kProductF16{0, 1e-2, 1e-2};

Variant matmul_variant(const Shape& a, const Shape& b, bool b_constant) {
  InputSpec bs = f32(b);
  if (b_constant) bs.constant();
  return inputs_variant(cat(a.str(), "x", b.str(), b_constant ? "_const" : ""), {f32(a), bs});
}

OpCase product_case(const std::string& op, const std::string& name) {
  return OpCase(op, name).tol_f32(kProductF32).tol_f16(kProductF16).opset(17);
}
}  // namespace

VX_OP_CASES(matmul) {
  // Vectors, broadcast batches, K past one tile, a long K.
  cases.add(product_case("MatMul", "shapes")
                .in(f32({70, 33}))
                .in(f32({33, 65}))
                .scale_last(2)
                .variants({matmul_variant({1, 17}, {17, 5}, false), matmul_variant({1, 17}, {17, 5}, true),
                           matmul_variant({70, 33}, {33, 65}, false), matmul_variant({3, 1, 7, 9}, {9, 11}, true),
                           matmul_variant({3, 1, 7, 9}, {4, 9, 11}, false), matmul_variant({17}, {17, 5}, false),
                           matmul_variant({2, 3, 17}, {17}, false), matmul_variant({5}, {5}, false),
                           matmul_variant({2, 1, 3, 4, 6}, {1, 5, 1, 6, 7}, false),
                           matmul_variant({129, 40}, {40, 3}, true), matmul_variant({1, 600}, {600, 70}, true),
                           matmul_variant({2, 3, 300}, {300, 20}, false), matmul_variant({40, 1, 24}, {24, 30}, true)}));
  // The shapes the oneDNN path was first tested at.
  cases.add(product_case("MatMul", "fast_path_shapes")
                .in(f32({7, 13}))
                .in(f32({13, 5}).constant())
                .variants({matmul_variant({7, 13}, {13, 5}, true), matmul_variant({2, 3, 7, 13}, {13, 29}, true),
                           matmul_variant({3, 1, 5, 9}, {4, 9, 6}, false),
                           matmul_variant({1, 12, 17, 8}, {1, 12, 8, 17}, false), matmul_variant({13}, {13, 5}, true),
                           matmul_variant({4, 7, 13}, {13}, false), matmul_variant({2, 5, 3}, {2, 3, 1}, false),
                           matmul_variant({1, 33}, {33, 65}, true)})
                .expect_variant(Backend::cpu, "onednn"));

  // Gemm: M x K x N, transposes, alpha and beta, C of every broadcastable shape or none.
  struct GemmShape {
    int64_t m, k, n, ta, tb;
    float alpha, beta;
    Shape c;  // rank 0 with has_c false: no C
    bool has_c, b_constant, c_constant;
  };
  const GemmShape gemms[] = {
      {1, 17, 5, 0, 0, 1.0f, 1.0f, {5}, true, true, true},       {7, 9, 11, 1, 0, 0.5f, 2.0f, {7, 1}, true, false, false},
      {7, 9, 11, 0, 1, 1.5f, 1.0f, {7, 11}, true, false, true},  {7, 9, 11, 1, 1, 1.0f, -1.0f, {}, true, true, false},
      {65, 70, 66, 0, 1, 1.0f, 1.0f, {66}, true, true, true},    {3, 4, 5, 0, 0, 1.0f, 1.0f, {}, false, false, false},
      {7, 13, 5, 0, 0, 1.0f, 1.0f, {5}, true, true, true},       {7, 13, 5, 1, 1, 0.5f, 2.0f, {7, 5}, true, true, true},
      {7, 13, 5, 0, 1, 1.5f, -1.0f, {7, 1}, true, true, true},   {3, 17, 9, 0, 0, 2.0f, 1.0f, {}, false, true, false},
      {1, 2048, 1000, 0, 1, 1.0f, 1.0f, {1000}, true, true, true},
  };
  std::vector<Variant> gemm_variants;
  for (const GemmShape& g : gemms) {
    const std::string label = cat(g.m, "x", g.k, "x", g.n, g.ta ? "_transA" : "", g.tb ? "_transB" : "", "_alpha", g.alpha,
                                  "_beta", g.beta, g.has_c ? "_C" + g.c.str() : "_noC", g.b_constant ? "_constB" : "",
                                  g.c_constant ? "_constC" : "");
    gemm_variants.push_back({label, [g](OpCase& v) {
                               InputSpec a = f32(g.ta ? Shape{g.k, g.m} : Shape{g.m, g.k});
                               InputSpec b = f32(g.tb ? Shape{g.n, g.k} : Shape{g.k, g.n});
                               if (g.b_constant) b.constant();
                               std::vector<InputSpec> ins = {a, b};
                               if (g.has_c) {
                                 InputSpec c = f32(g.c);
                                 if (g.c_constant) c.constant();
                                 ins.push_back(c);
                               }
                               v.with_inputs(ins).attr("transA", g.ta).attr("transB", g.tb).attr("alpha", g.alpha).attr("beta", g.beta);
                               // oneDNN takes a constant C only; a runtime one runs on the reference.
                               if (g.has_c && !g.c_constant) v.may_fall_back(Backend::cpu);
                             }});
  }
  cases.add(product_case("Gemm", "attributes").in(f32({7, 9})).in(f32({9, 11})).variants(std::move(gemm_variants)));

  // vx.FusedMatMul: every activation, with and without a bias, and the residual epilogue (the
  // Vulkan path's; oneDNN declines it and the reference runs it).
  cases.add(product_case(kFusedMatMul, "bias_activation")
                .in(f32({2, 9, 19}))
                .in(f32({19, 37}).constant())
                .scale_axes({-1, -2})
                .sweep("activation", {std::string("none"), std::string("relu"), std::string("gelu_erf"), std::string("gelu_tanh")})
                .variants({{"no_bias", [](OpCase&) {}}, {"bias", [](OpCase& v) { v.in(f32({37}).constant()); }}}));
  cases.add(product_case(kFusedMatMul, "residual")
                .in(f32({2, 9, 19}))
                .in(f32({19, 37}).constant())
                .in(f32({37}).constant())
                .in(f32({2, 9, 37}))
                .attr("activation", std::string("relu"))
                .may_fall_back(Backend::cpu)
                // Residuals that continue the rows across the batch (the batch folds into M) and
                // ones broadcast over it (it does not).
                .variants({{"per_row", [](OpCase&) {}},
                           {"rows_of_one", [](OpCase& v) {
                              v.with_inputs({f32({9, 1, 19}), f32({19, 37}).constant(), f32({37}).constant(), f32({9, 1, 37})});
                            }},
                           {"shared_over_batch", [](OpCase& v) {
                              v.with_inputs({f32({2, 9, 19}), f32({19, 37}).constant(), f32({37}).constant(), f32({9, 37})});
                            }},
                           {"per_column", [](OpCase& v) {
                              v.with_inputs({f32({2, 9, 19}), f32({19, 37}).constant(), f32({37}).constant(), f32({37})});
                            }},
                           {"per_batch", [](OpCase& v) {
                              v.with_inputs({f32({2, 9, 19}), f32({19, 37}).constant(), f32({37}).constant(), f32({2, 1, 1})});
                            }}}));
  // vx.FusedMatMul normalising its rows (LnScale, LnBias): in the split-K reduce pass (at fp16 on
  // rows of quads 4 columns at a time, one or two quads an invocation; rows of 198 value by value),
  // after an unsplit product, without LnBias, and rows too long for the reduce pass (the LayerNorm
  // then follows the split product). K = 300 splits; the 64 x 64 kernel forced so that the variant is
  // known on every device.
  auto layer_norm_inputs = [](int64_t n, bool ln_bias) {
    std::vector<InputSpec> ins = {f32({2, 9, 300}), f32({300, n}, -0.1f, 0.1f).constant(), f32({n}).constant(),
                                  f32({2, 9, n}), f32({n}, 0.5f, 1.5f).constant()};
    if (ln_bias) ins.push_back(f32({n}).constant());
    return ins;
  };
  cases.add(product_case(kFusedMatMul, "layer_norm")
                .with_inputs(layer_norm_inputs(200, true))
                .attr("layer_norm_epsilon", 1e-3f)
                .env("VOLVOX_VK_GEMM", "tiled")
                .may_fall_back(Backend::cpu)
                .variants({{"split3_in_reduce", [](OpCase& v) {
                              v.env("VOLVOX_VK_SPLITK", "3").expect_variant(Backend::vulkan_f32, "tiled_splitk3+reduce_layer_norm")
                                  .expect_variant(Backend::vulkan_f16, "tiled_splitk3+reduce_layer_norm_quads");
                            }},
                           {"split3_in_reduce_by_values", [](OpCase& v) {
                              v.env("VOLVOX_VK_SPLITK", "3").env("VOLVOX_VK_REDUCE_LN_QUADS", "0")
                                  .expect_variant(Backend::vulkan_f16, "tiled_splitk3+reduce_layer_norm");
                            }},
                           {"split3_rows_of_1020", [layer_norm_inputs](OpCase& v) {  // a second quad for 127 of 128 threads
                              v.with_inputs(layer_norm_inputs(1020, true)).env("VOLVOX_VK_SPLITK", "3")
                                  .expect_variant(Backend::vulkan_f16, "tiled_splitk3+reduce_layer_norm_quads");
                            }},
                           {"split2_rows_of_198", [layer_norm_inputs](OpCase& v) {  // not quads
                              v.with_inputs(layer_norm_inputs(198, true)).env("VOLVOX_VK_SPLITK", "2")
                                  .expect_variant(Backend::vulkan_f16, "tiled_splitk2+reduce_layer_norm");
                            }},
                           {"unsplit", [](OpCase& v) {
                              v.env("VOLVOX_VK_SPLITK", "1").expect_variant(Backend::vulkan_f32, "tiled+layer_norm_")
                                  .expect_variant(Backend::vulkan_f16, "tiled+layer_norm_");
                            }},
                           {"split2_no_ln_bias", [layer_norm_inputs](OpCase& v) {
                              v.with_inputs(layer_norm_inputs(200, false)).env("VOLVOX_VK_SPLITK", "2")
                                  .expect_variant(Backend::vulkan_f32, "tiled_splitk2+reduce_layer_norm");
                            }},
                           {"split2_rows_of_1100", [layer_norm_inputs](OpCase& v) {
                              v.with_inputs(layer_norm_inputs(1100, true)).env("VOLVOX_VK_SPLITK", "2")
                                  .expect_variant(Backend::vulkan_f32, "tiled_splitk2+layer_norm_");
                            }}}));
  // vx.MatMulInt8W: 300 columns (one block of 256 and a remainder).
  cases.add(product_case(kMatMulInt8W, "bias_relu")
                .in(f32({3, 5, 41}))
                .in(ints({41, 300}, -127, 127, DType::i8).constant())
                .in(f32({300}, 0.001f, 0.02f).constant())
                .attr("activation", std::string("relu"))
                .variants({{"no_bias", [](OpCase&) {}}, {"bias", [](OpCase& v) { v.in(f32({300}).constant()); }}}));

  // MatMulInteger: uint8 and int8, without zero points, scalar ones, per-row / per-column ones.
  const std::pair<Shape, Shape> integer_shapes[] = {
      {{3, 5}, {5, 4}}, {{2, 1, 3, 5}, {3, 5, 2}}, {{5}, {5, 3}}, {{4, 5}, {5}}, {{1, 7}, {7, 1}}};
  std::vector<Variant> integer_variants;
  for (const auto& [sa, sb] : integer_shapes)
    for (DType t : {DType::u8, DType::i8}) {
      const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
      const std::string label = cat(sa.str(), "x", sb.str(), "_", dtype_name(t));
      integer_variants.push_back(inputs_variant(label, {ints(sa, lo, hi, t), ints(sb, lo, hi, t)}));
      integer_variants.push_back(inputs_variant(label + "_scalar_zero_points", {ints(sa, lo, hi, t), ints(sb, lo, hi, t),
                                                                                ints({}, lo, hi, t), ints({}, lo, hi, t)}));
      if (sa.rank() == 2 && sb.rank() == 2)
        integer_variants.push_back(inputs_variant(label + "_row_column_zero_points",
                                                  {ints(sa, lo, hi, t), ints(sb, lo, hi, t), ints({sa[0]}, lo, hi, t),
                                                   ints({sb[1]}, lo, hi, t)}));
    }
  cases.add(OpCase("MatMulInteger", "shapes_and_zero_points")
                .opset(10)
                .in(ints({3, 5}, 0, 255, DType::u8))
                .in(ints({5, 4}, 0, 255, DType::u8))
                .variants(std::move(integer_variants))
                .integers_only());
  // QLinearMatMul requantises: scales that make the products land between integers.
  std::vector<Variant> qlinear_variants;
  for (DType t : {DType::u8, DType::i8}) {
    const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
    qlinear_variants.push_back(inputs_variant(
        std::string(dtype_name(t)), {ints({2, 3, 6}, lo, hi, t), scalar(0.0625), ints({}, lo, hi, t), ints({6, 5}, lo, hi, t),
                        scalar(0.03125), ints({}, lo, hi, t), scalar(0.5), ints({}, lo, hi, t)}));
  }
  cases.add(OpCase("QLinearMatMul", "requantises").opset(10).variants(std::move(qlinear_variants)));
}

}  // namespace vx::optable

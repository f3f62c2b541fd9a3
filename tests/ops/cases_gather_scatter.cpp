// Indexing: Gather, GatherElements, GatherND (negative indices, constant or runtime indices, batch
// dims, rank 7), Scatter, ScatterElements and ScatterND (every reduction over repeated indices, or
// distinct targets without one). Gathers move values: exact at both precisions.
#include "ops/op_table.h"

namespace vx::optable {

namespace {
constexpr CaseTolerance kMoved{0, 0, 0};

// Indices from a formula of the flat position (a spread of negative and positive ones).
InputSpec index_pattern(Shape shape, int64_t mul, int64_t mod, int64_t offset) {
  return custom(std::move(shape), DType::i64, [mul, mod, offset](const Shape& sh, DType, uint64_t) {
    Tensor t(DType::i64, sh);
    for (int64_t i = 0; i < t.numel(); ++i) t.data<int64_t>()[i] = i * mul % mod - offset;
    return t;
  });
}
// The variant both Vulkan precisions must plan.
void expect_on_vulkan(OpCase& v, const char* variant) {
  v.expect_variant(Backend::vulkan_f32, variant).expect_variant(Backend::vulkan_f16, variant);
}
}  // namespace

VX_OP_CASES(gather_scatter) {
  std::vector<Variant> gathers;
  for (int64_t axis : {0, 1, -1, 2})
    for (bool constant : {true, false}) {
      // Axis 0 has extent 1: indices 0 and -1 only.
      InputSpec idx = axis == 0 ? values({2, 2}, {0, -1, 0, -1}, DType::i64) : values({2, 2}, {0, -1, 2, -3}, DType::i64);
      if (constant) idx.constant();
      gathers.push_back({cat("axis", axis, constant ? "_constant" : "_runtime"), [axis, idx](OpCase& v) {
                           v.in(f32({1, 3, 5, 7})).in(idx).attr("axis", axis);
                         }});
    }
  gathers.push_back({"scalar_index", [](OpCase& v) { v.in(f32({9})).in(scalar(-2, DType::i64)); }});
  gathers.push_back({"int32_indices", [](OpCase& v) {
                       v.in(f32({2, 1, 9})).in(values({3}, {8, 0, 4}, DType::i32).constant()).attr("axis", int64_t(2));
                     }});
  gathers.push_back({"no_indices", [](OpCase& v) { v.in(f32({4, 3})).in(values({2, 0}, {}, DType::i64).constant()).attr("axis", int64_t(0)); }});
  gathers.push_back({"2d_indices_axis0", [](OpCase& v) { v.in(f32({3, 5, 7})).in(values({2, 3}, {-3, 2, 0, 1, -1, -2}, DType::i64)); }});
  cases.add(OpCase("Gather", "axes").opset(13).tol_f32(kMoved).tol_f16(kMoved).variants(std::move(gathers)).variants(float_and_int32_data()));
  // Sizes the CPU's fast kernel splits between threads: an embedding table's rows, a middle axis.
  cases.add(OpCase("Gather", "threaded")
                .opset(13)
                .tol_f32(kMoved)
                .tol_f16(kMoved)
                .variants({inputs_variant("embedding_rows", {f32({1000, 384}), index_pattern({1, 300}, 37, 1999, 999)}),
                           {"middle_axis", [](OpCase& v) {
                              v.in(f32({8, 500, 16})).in(index_pattern({700}, 13, 1000, 500)).attr("axis", int64_t(1));
                            }}}));
  // One constant index with only unit axes before its axis: on Vulkan an alias of that run of the
  // data, where its offset (index x the inner extent) binds on any device (a multiple of 256 bytes).
  cases.add(OpCase("Gather", "leading_slice")
                .opset(13)
                .tol_f32(kMoved)
                .tol_f16(kMoved)
                .variants({{"stacked_qkv",
                            [](OpCase& v) {
                              v.in(f32({3, 4, 64})).in(scalar(1, DType::i64).constant()).attr("axis", int64_t(0));
                              expect_on_vulkan(v, "alias");
                            }},
                           {"first_slice",
                            [](OpCase& v) {
                              v.in(f32({2, 64})).in(scalar(0, DType::i64).constant()).attr("axis", int64_t(0));
                              expect_on_vulkan(v, "alias");
                            }},
                           {"unit_axes_first_negative_index",
                            [](OpCase& v) {
                              v.in(f32({1, 1, 3, 128})).in(values({1}, {-1}, DType::i64).constant()).attr("axis", int64_t(2));
                              expect_on_vulkan(v, "alias");
                            }},
                           {"offset_not_aligned",
                            [](OpCase& v) {
                              v.in(f32({3, 5})).in(scalar(2, DType::i64).constant()).attr("axis", int64_t(0));
                              expect_on_vulkan(v, "generic");
                            }},
                           {"axis_after_a_real_one",
                            [](OpCase& v) {
                              v.in(f32({2, 3, 128})).in(scalar(1, DType::i64).constant()).attr("axis", int64_t(1));
                              expect_on_vulkan(v, "generic");
                            }},
                           {"runtime_index",
                            [](OpCase& v) {
                              v.in(f32({3, 4, 64})).in(scalar(1, DType::i64)).attr("axis", int64_t(0));
                              expect_on_vulkan(v, "generic");
                            }}})
                .variants(float_and_int32_data()));
  cases.add(OpCase("Gather", "bools_and_bytes")
                .opset(13)
                .attr("axis", int64_t(1))
                .variants({inputs_variant("bool", {bools({2, 3, 5}), i64s({2, 0}).constant()}),
                           inputs_variant("uint8", {ints({2, 3, 5}, 0, 255, DType::u8), i64s({2, 0}).constant()})}));

  cases.add(OpCase("GatherElements", "axes")
                .opset(13)
                .tol_f32(kMoved)
                .tol_f16(kMoved)
                .variants({{"axis1_runtime", [](OpCase& v) { v.in(f32({3, 4, 5})).in(index_pattern({3, 2, 5}, 7, 8, 4)).attr("axis", int64_t(1)); }},
                           {"axis-2_constant", [](OpCase& v) {
                              v.in(f32({3, 4, 5})).in(index_pattern({3, 2, 5}, 7, 8, 4).constant()).attr("axis", int64_t(-2));
                            }},
                           {"axis0", [](OpCase& v) { v.in(f32({3, 4, 5})).in(index_pattern({2, 4, 5}, 5, 6, 3)).attr("axis", int64_t(0)); }},
                           // Rank 7: axes the indices span fully merge, so it fits the shader's rank 6.
                           {"rank_7", [](OpCase& v) {
                              v.in(f32({2, 3, 1, 2, 2, 3, 2})).in(index_pattern({1, 2, 1, 2, 2, 3, 2}, 1, 3, 1)).attr("axis", int64_t(1));
                            }}})
                .variants(float_and_int32_data()));

  cases.add(OpCase("GatherND", "tuples")
                .opset(13)
                .tol_f32(kMoved)
                .tol_f16(kMoved)
                .variants({{"k2_constant", [](OpCase& v) { v.in(f32({2, 3, 4, 5})).in(values({3, 2}, {0, 2, 1, -1, -2, 0}, DType::i64).constant()); }},
                           {"k2_runtime", [](OpCase& v) { v.in(f32({2, 3, 4, 5})).in(values({3, 2}, {0, 2, 1, -1, -2, 0}, DType::i64)); }},
                           {"batch1_k1", [](OpCase& v) {
                              v.in(f32({2, 3, 4, 5})).in(values({2, 2, 1}, {2, 0, -1, 1}, DType::i64)).attr("batch_dims", int64_t(1));
                            }},
                           {"batch1_k3", [](OpCase& v) {
                              v.in(f32({2, 3, 4, 5})).in(values({2, 3}, {1, 3, 4, 0, 0, -5}, DType::i64).constant()).attr("batch_dims", int64_t(1));
                            }}})
                .variants(float_and_int32_data()));

  // Distinct targets per column (ONNX leaves duplicates without a reduction undefined).
  const InputSpec distinct = custom({3, 2, 5}, DType::i64, [](const Shape& sh, DType, uint64_t) {
    Tensor t(DType::i64, sh);
    for (int64_t a = 0; a < 3; ++a)
      for (int64_t b = 0; b < 2; ++b)
        for (int64_t c = 0; c < 5; ++c) t.set((a * 2 + b) * 5 + c, double(b == 0 ? (c % 2) : -1 - (c % 2)));
    return t;
  });
  std::vector<Variant> scatter_elements = {
      {"distinct_constant", [distinct](OpCase& v) {
         v.opset(13).with_inputs({f32({3, 4, 5}), InputSpec(distinct).constant(), f32({3, 2, 5})}).attr("axis", int64_t(1));
       }},
      {"distinct_runtime", [distinct](OpCase& v) {
         v.opset(13).with_inputs({f32({3, 4, 5}), distinct, f32({3, 2, 5})}).attr("axis", int64_t(-2));
       }},
      // Two updates per column into different rows: without a reduction, updates that meet leave
      // the result to the device's order (random indices here once failed on the H200 only).
      {"int32_data", [](OpCase& v) {
         v.with_inputs({ints({4, 3}, -9, 9), values({2, 3}, {0, 1, 2, 3, 0, 1}, DType::i64), ints({2, 3}, -9, 9)});
       }}};
  // Repeated indices: each reduction applies every update (in ONNX's order).
  for (int64_t axis : {0, 1, 2, -1})
    for (const char* reduction : {"add", "mul", "max", "min"}) {
      const int extent = int(Shape{3, 4, 5}[size_t(axis < 0 ? axis + 3 : axis)]);
      scatter_elements.push_back({cat("axis", axis, "_", reduction), [axis, extent, reduction = std::string(reduction)](OpCase& v) {
                                    v.with_inputs({f32({3, 4, 5}), ints({2, 3, 4}, -extent, extent - 1, DType::i64), f32({2, 3, 4})})
                                        .attr("axis", axis)
                                        .attr("reduction", reduction);
                                  }});
    }
  cases.add(OpCase("ScatterElements", "reductions").opset(18).variants(std::move(scatter_elements)));
  cases.add(OpCase("Scatter", "opset10")
                .opset(10)
                .attr("axis", int64_t(1))
                .variants({inputs_variant("two_per_row", {f32({3, 5}), values({3, 2}, {0, 4, 3, 1, 2, 0}, DType::i64), f32({3, 2})}),
                           inputs_variant("distinct", {f32({3, 4, 5}), distinct, f32({3, 2, 5})})}));

  std::vector<Variant> scatter_nd = {
      {"k2_distinct", [](OpCase& v) {
         v.opset(13).with_inputs({f32({3, 4, 5}), values({2, 2}, {0, 1, -1, -2}, DType::i64).constant(), f32({2, 5})});
       }},
      {"k1_distinct_runtime", [](OpCase& v) { v.opset(13).with_inputs({f32({3, 4, 5}), values({2, 1}, {2, 0}, DType::i64), f32({2, 4, 5})}); }}};
  // k = 1 (slices of 4x3), k = 2 (rows of 3), k = 3 (elements), repeated tuples included.
  for (const char* reduction : {"add", "mul", "max", "min"})
    for (const auto& [ishape, ushape] : std::vector<std::pair<Shape, Shape>>{{{5, 1}, {5, 4, 3}}, {{2, 3, 2}, {2, 3, 3}}, {{7, 3}, {7}}})
      scatter_nd.push_back({cat("k", ishape[ishape.rank() - 1], "_", reduction), [ishape, ushape, reduction = std::string(reduction)](OpCase& v) {
                              v.with_inputs({f32({3, 4, 3}), ints(ishape, -2, 1, DType::i64), f32(ushape)}).attr("reduction", reduction);
                            }});
  cases.add(OpCase("ScatterND", "reductions").opset(18).variants(std::move(scatter_nd)));
}

}  // namespace vx::optable

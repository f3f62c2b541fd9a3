// Data movement: Transpose, Slice, Concat, Split, Expand, Tile, Pad, the aliases (Reshape, Squeeze,
// Unsqueeze, Flatten, Dropout), DepthToSpace, SpaceToDepth, ReverseSequence. Values are moved, not
// computed: exact at both precisions, float data and int32 data alike; bools and bytes too.
#include <limits>

#include "ops/op_table.h"

namespace vx::optable {

namespace {
constexpr CaseTolerance kExact{0, 0, 0};

OpCase movement_case(const std::string& op, const std::string& name, int64_t opset = 13) {
  return OpCase(op, name).opset(opset).tol_f32(kExact).tol_f16(kExact);
}

// Bools and bytes are int32 on the device: moving them must round-trip.
std::vector<Variant> bool_and_byte_data(Shape shape) {
  return {inputs_variant("bool", {bools(shape)}), inputs_variant("uint8", {ints(shape, 0, 255, DType::u8)})};
}
}  // namespace

VX_OP_CASES(movement) {
  std::vector<Variant> perms;
  const std::pair<Shape, std::vector<int64_t>> transposes[] = {
      {{1, 3, 5, 7}, {}},     {{1, 3, 5, 7}, {0, 2, 3, 1}},          {{2, 1, 9}, {2, 0, 1}},
      {{7}, {}},              {{2, 3, 1, 4, 5}, {4, 2, 0, 3, 1}},   {{2, 1, 3, 2, 1, 3}, {5, 4, 3, 2, 1, 0}},
      {{3, 4}, {1, 0}},       {{2, 6, 3, 8}, {0, 2, 1, 3}},          {{}, {}}};
  for (const auto& [shape, perm] : transposes)
    perms.push_back({cat(shape.str(), perm.empty() ? "_reversed" : "_perm" + Shape(perm).str()), [shape, perm](OpCase& v) {
                       v.in(f32(shape));
                       if (!perm.empty()) v.attr("perm", perm);
                     }});
  cases.add(movement_case("Transpose", "perms").variants(std::move(perms)).variants(float_and_int32_data()));
  cases.add(movement_case("Transpose", "bools_and_bytes").attr("perm", std::vector<int64_t>{2, 0, 1}).variants(bool_and_byte_data({2, 3, 5})));
  cases.add(movement_case("Transpose", "heads").in(f32({2, 6, 3, 8}).scaled({1, 3})).attr("perm", std::vector<int64_t>{0, 2, 1, 3}));
  // Sizes where the fast kernel tiles (the input's innermost axis becomes an outer output axis) and
  // threads (more than 16K elements): attention's K^T and head split, NCHW <-> NHWC at odd sizes.
  std::vector<Variant> large;
  const std::pair<Shape, std::vector<int64_t>> large_transposes[] = {
      {{1, 8, 128, 64}, {0, 1, 3, 2}}, {{1, 128, 8, 64}, {0, 2, 1, 3}}, {{2, 37, 29, 33}, {0, 2, 3, 1}},
      {{1, 33, 45, 40}, {0, 3, 1, 2}}, {{3, 70, 41}, {2, 1, 0}}};
  for (const auto& [shape, perm] : large_transposes)
    large.push_back({cat(shape.str(), "_perm", Shape(perm).str()), [shape, perm](OpCase& v) {
                       v.in(f32(shape));
                       v.attr("perm", perm);
                     }});
  cases.add(movement_case("Transpose", "large").variants(std::move(large)).variants(float_and_int32_data()));

  const int64_t big = std::numeric_limits<int64_t>::max(), small = std::numeric_limits<int64_t>::min();
  struct SliceInputs {
    std::string label;
    Shape shape;
    std::vector<int64_t> starts, ends, axes, steps;  // axes / steps empty: omitted
  };
  std::vector<Variant> slices;
  for (const SliceInputs& s : {SliceInputs{"two_axes", {1, 3, 5, 7}, {0, 1}, {2, 6}, {1, 3}, {1, 2}},
                               SliceInputs{"negative_steps", {1, 3, 5, 7}, {-1, 4}, {small, -big}, {-1, 2}, {-2, -1}},
                               SliceInputs{"to_the_end", {2, 1, 9}, {1}, {big}, {-1}, {}},
                               SliceInputs{"no_axes", {9}, {2}, {-2}, {}, {}},
                               SliceInputs{"backwards_by_3", {9}, {8}, {0}, {0}, {-3}},
                               SliceInputs{"rank_5", {2, 3, 2, 4, 5}, {1, 0, 3}, {2, 4, 1}, {0, 1, -1}, {1, 2, -1}},
                               SliceInputs{"empty_result", {4, 5}, {3}, {1}, {0}, {1}},
                               SliceInputs{"step_past_the_end", {4, 5}, {0}, {10}, {1}, {7}},
                               SliceInputs{"to_nothing", {4, 3}, {2}, {2}, {}, {}}})
    slices.push_back({s.label, [s](OpCase& v) {
                        v.in(f32(s.shape)).in(i64s(s.starts).constant()).in(i64s(s.ends).constant());
                        if (!s.axes.empty()) v.in(i64s(s.axes).constant());
                        if (!s.steps.empty()) {
                          if (s.axes.empty()) v.in(omitted());
                          v.in(i64s(s.steps).constant());
                        }
                      }});
  // Starts, axes and steps computed at run time (graph inputs here; int64 extremes arrive saturated
  // to int32): the shader reads them, the executor observes the output shape.
  slices.push_back({"runtime_starts", [](OpCase& v) { v.in(f32({3, 8, 5})).in(i64s({1, 2})).in(i64s({3, 7}).constant()); }});
  slices.push_back({"runtime_everything", [small](OpCase& v) {
                      v.in(f32({3, 8, 5})).in(i64s({-1, 6})).in(i64s({small, 1})).in(i64s({-3, 1})).in(i64s({-1, -2}));
                    }});
  slices.push_back({"runtime_steps_clamped_starts", [big](OpCase& v) {
                      v.in(f32({3, 8, 5})).in(i64s({-100})).in(i64s({big})).in(i64s({2}).constant()).in(i64s({2}));
                    }});
  slices.push_back({"runtime_axes", [](OpCase& v) {
                      v.in(f32({3, 8, 5})).in(i64s({0}).constant()).in(i64s({2}).constant()).in(i64s({-1}));
                    }});
  slices.push_back({"opset1_attributes", [](OpCase& v) {
                      v.opset(1).in(f32({3, 2, 7})).attr("starts", std::vector<int64_t>{1, -4}).attr("ends", std::vector<int64_t>{1000, -1})
                          .attr("axes", std::vector<int64_t>{0, 2});
                    }});
  cases.add(movement_case("Slice", "inputs").variants(std::move(slices)).variants(float_and_int32_data()));
  // Sizes the CPU's fast kernels split between threads (more than one task's 16384 elements).
  cases.add(movement_case("Slice", "threaded")
                .variants({{"every_other_row_reversed_columns",
                            [](OpCase& v) {
                              v.in(f32({4, 301, 130})).in(i64s({1, -1}).constant()).in(i64s({300, -131}).constant())
                                  .in(i64s({1, 2}).constant()).in(i64s({2, -1}).constant());
                            }},
                           {"a_third_of_the_last_axis",  // a fused QKV product's K part
                            [](OpCase& v) {
                              v.in(f32({1, 128, 1536})).in(i64s({512}).constant()).in(i64s({1024}).constant())
                                  .in(i64s({-1}).constant());
                            }}}));

  std::vector<Variant> concats;
  for (int64_t axis : {0, 1, -1, 3})
    concats.push_back({cat("axis", axis), [axis](OpCase& v) {
                         for (int64_t extent : {1, 3, 2}) {
                           std::vector<int64_t> dims = {2, 3, 5, 7};
                           dims[size_t(axis < 0 ? axis + 4 : axis)] = extent;
                           v.in(f32(Shape(dims)));
                         }
                         v.attr("axis", axis);
                       }});
  // More inputs than a dispatch has bindings, one of them a constant.
  concats.push_back({"11_inputs", [](OpCase& v) {
                       for (int64_t i = 0; i < 11; ++i) v.in(i == 4 ? f32({2, 2, 3}).constant() : f32({2, i % 3 + 1, 3}));
                       v.attr("axis", int64_t(-2));
                     }});
  concats.push_back({"rank_1", [](OpCase& v) { v.in(f32({5})).in(f32({2})).attr("axis", int64_t(0)); }});
  concats.push_back({"an_empty_input", [](OpCase& v) { v.in(f32({2, 3})).in(f32({2, 0})).in(f32({2, 1})).attr("axis", int64_t(1)); }});
  concats.push_back({"rows_of_8_and_12", [](OpCase& v) { v.in(f32({3, 4, 8})).in(f32({3, 4, 12})).attr("axis", int64_t(-1)); }});
  cases.add(movement_case("Concat", "axes").variants(std::move(concats)).variants(float_and_int32_data()));
  // Copies the fast CPU kernel (fast/concat.cpp) splits over threads: rows of 480 KB cut into
  // 64 KiB pieces, and 1200 rows of 160 bytes taken many at once.
  cases.add(movement_case("Concat", "threaded")
                .variants({{"long_rows", [](OpCase& v) { v.in(f32({2, 40, 60, 50})).in(f32({2, 24, 60, 50})).attr("axis", int64_t(1)); }},
                           {"many_rows", [](OpCase& v) { v.in(f32({1200, 3, 40})).in(f32({1200, 1, 40})).attr("axis", int64_t(1)); }}})
                .expect_variant(Backend::cpu, "fast"));
  cases.add(movement_case("Concat", "bools_and_bytes")
                .attr("axis", int64_t(-1))
                .variants({inputs_variant("bool", {bools({2, 3, 5}), bools({2, 3, 5})}),
                           inputs_variant("uint8", {ints({2, 3, 5}, 0, 255, DType::u8), ints({2, 3, 5}, 0, 255, DType::u8)})}));

  std::vector<Variant> splits = {
      {"opset13_sizes", [](OpCase& v) { v.in(f32({2, 9, 4})).in(i64s({2, 3, 4}).constant()).attr("axis", int64_t(1)).outputs(3); }},
      {"opset11_attribute", [](OpCase& v) {
         v.opset(11).in(f32({2, 9, 4})).attr("split", std::vector<int64_t>{1, 3}).attr("axis", int64_t(-1)).outputs(2);
       }},
      {"equal_parts", [](OpCase& v) { v.in(f32({2, 9, 4})).attr("axis", int64_t(-2)).outputs(3); }},
      {"opset18_num_outputs", [](OpCase& v) { v.opset(18).in(f32({7, 3})).attr("num_outputs", int64_t(3)).outputs(3); }},
      {"empty_part", [](OpCase& v) { v.in(f32({5})).in(i64s({0, 5}).constant()).outputs(2); }}};
  // Along the last axis with ranges of multiples of 4 (vec4) or not, along a middle axis with an
  // inner extent of 4 or 3, 9 outputs (per-output copies), an empty output.
  const std::tuple<Shape, int64_t, std::vector<int64_t>> parts[] = {{{5, 36}, -1, {8, 16, 12}},
                                                                    {{5, 36}, -1, {4, 6, 26}},
                                                                    {{2, 9, 4}, 1, {2, 3, 4}},
                                                                    {{2, 9, 3}, 1, {5, 1, 3}},
                                                                    {{3, 9}, 1, {1, 1, 1, 1, 1, 1, 1, 1, 1}},
                                                                    {{4, 6}, 0, {1, 0, 3}}};
  for (const auto& [x, axis, sizes] : parts)
    splits.push_back({cat(x.str(), "_axis", axis, "_into", sizes.size()), [x, axis, sizes](OpCase& v) {
                        v.in(f32(x)).in(i64s(sizes).constant()).attr("axis", axis).outputs(sizes.size());
                      }});
  cases.add(movement_case("Split", "parts").variants(std::move(splits)).variants(float_and_int32_data()));
  cases.add(movement_case("Split", "threaded").in(f32({130, 1536})).attr("axis", int64_t(-1)).outputs(3));

  std::vector<Variant> expands;
  for (const auto& [in, shape] : std::vector<std::pair<Shape, std::vector<int64_t>>>{
           {{3, 1}, {2, 3, 4}}, {{1}, {2, 1, 3, 1, 2}}, {{1, 5, 1}, {4, 1, 1}}, {{}, {3, 2}}, {{2, 1, 3}, {1, 2, 4, 3}}})
    expands.push_back({cat(in.str(), "_to", Shape(shape).str()), [in, shape](OpCase& v) { v.in(f32(in)).in(i64s(shape).constant()); }});
  cases.add(movement_case("Expand", "shapes").variants(std::move(expands)).variants(float_and_int32_data()));
  cases.add(movement_case("Expand", "threaded")
                .variants({inputs_variant("rows", {f32({1, 1, 130}), i64s({8, 129, 130}).constant()}),
                           inputs_variant("columns", {f32({8, 129, 1}), i64s({8, 129, 130}).constant()})}));

  cases.add(movement_case("Tile", "repeats")
                .variants({inputs_variant("2x1x3", {f32({2, 1, 3}), i64s({2, 3, 1}).constant()}),
                           inputs_variant("rank_1", {f32({5}), i64s({3}).constant()}),
                           inputs_variant("4d", {f32({1, 3, 5, 7}), i64s({2, 1, 2, 1}).constant()})})
                .variants(float_and_int32_data()));

  std::vector<Variant> pads;
  for (const char* mode : {"constant", "reflect", "edge", "wrap"}) {
    pads.push_back({cat(mode, "_constant_pads"), [mode = std::string(mode)](OpCase& v) {
                      v.opset(19).in(f32({1, 3, 5, 7})).in(i64s({0, 1, 2, 3, 0, 2, 1, 4}).constant()).in(scalar(1.5).constant())
                          .attr("mode", mode);
                    }});
    // Pads and the fill value computed at run time: the shader reads them.
    pads.push_back({cat(mode, "_runtime_pads"), [mode = std::string(mode)](OpCase& v) {
                      v.opset(19).in(f32({1, 3, 5, 7})).in(i64s({0, 1, 2, -3, 0, 2, -1, 4})).in(scalar(1.5)).attr("mode", mode);
                    }});
  }
  pads.push_back({"negative_crops", [](OpCase& v) { v.in(f32({1, 3, 5, 7})).in(i64s({0, -1, 1, -2, 0, 0, -1, 3}).constant()); }});
  pads.push_back({"opset2_attributes", [](OpCase& v) {
                    v.opset(2).in(f32({2, 9})).attr("pads", std::vector<int64_t>{1, 0, 2, 2}).attr("value", 2.0f);
                  }});
  pads.push_back({"opset18_axes", [](OpCase& v) {
                    v.opset(18).in(f32({1, 3, 5, 7})).in(i64s({2, 1, 0, 3}).constant()).in(omitted()).in(i64s({-1, 1}).constant())
                        .attr("mode", std::string("edge"));
                  }});
  pads.push_back({"opset18_runtime_pads_constant_axes", [](OpCase& v) {
                    v.opset(18).in(f32({1, 3, 5, 7})).in(i64s({2, 0, 1, 3})).in(scalar(-2.0).constant()).in(i64s({-1, 1}).constant());
                  }});
  pads.push_back({"reflect_wider_than_the_input", [](OpCase& v) {
                    v.in(f32({3})).in(i64s({5, 6}).constant()).attr("mode", std::string("reflect"));
                  }});
  pads.push_back({"reflect_size_1", [](OpCase& v) {
                    v.in(f32({1, 4})).in(i64s({0, 2, 0, 1}).constant()).attr("mode", std::string("reflect"));
                  }});
  cases.add(movement_case("Pad", "modes").variants(std::move(pads)).variants(float_and_int32_data()));
  cases.add(movement_case("Pad", "bools_and_bytes")
                .variants({inputs_variant("bool", {bools({2, 3, 5}), i64s({0, 1, 0, 0, 2, 1}).constant()}),
                           inputs_variant("uint8", {ints({2, 3, 5}, 0, 255, DType::u8), i64s({0, 1, 0, 0, 2, 1}).constant()})}));

  // The aliases: the output is the input's bytes (no dispatch).
  const InputSpec x4 = f32({2, 1, 3, 1});
  cases.add(movement_case("Reshape", "alias", 14).in(x4).in(i64s({3, -1}).constant()).variants(float_and_int32_data())
                .expect_variant(Backend::vulkan_f32, "alias"));
  cases.add(movement_case("Squeeze", "axes")
                .variants({{"opset13_input", [x4](OpCase& v) { v.in(x4).in(i64s({-1, 1}).constant()); }},
                           {"opset11_attribute", [x4](OpCase& v) { v.opset(11).in(x4).attr("axes", std::vector<int64_t>{1}); }}})
                .variants(float_and_int32_data()));
  cases.add(movement_case("Unsqueeze", "axes").in(x4).in(i64s({0, -1}).constant()).variants(float_and_int32_data()));
  cases.add(movement_case("Reshape", "threaded", 14)  // 1.2 MB: copied in pieces by the fast CPU kernel
                .in(f32({4, 300, 250}))
                .in(i64s({1200, -1}).constant())
                .expect_variant(Backend::cpu, "fast"));
  cases.add(movement_case("Flatten", "axis").in(x4).attr("axis", int64_t(-2)).variants(float_and_int32_data()));
  // Dropout at inference: the identity, and its mask (all true) filled on the GPU.
  cases.add(movement_case("Dropout", "inference")
                .variants({{"output_only", [x4](OpCase& v) { v.in(x4); }},
                           {"with_mask", [x4](OpCase& v) {
                              v.in(x4).in(scalar(0.3).constant()).in(values({}, {0}, DType::boolean).constant()).outputs(2)
                                  .declare_output(1, {2, 1, 3, 1}, DType::boolean);
                            }}}));

  cases.add(movement_case("DepthToSpace", "modes")
                .variants({{"DCR", [](OpCase& v) { v.in(f32({2, 8, 3, 5})).attr("blocksize", int64_t(2)).attr("mode", std::string("DCR")); }},
                           {"CRD", [](OpCase& v) { v.in(f32({2, 8, 3, 5})).attr("blocksize", int64_t(2)).attr("mode", std::string("CRD")); }},
                           {"blocksize_3", [](OpCase& v) { v.in(f32({1, 9, 2, 3})).attr("blocksize", int64_t(3)); }}})
                .variants(float_and_int32_data()));
  cases.add(movement_case("SpaceToDepth", "blocksize_2").in(f32({1, 3, 6, 4})).attr("blocksize", int64_t(2)).variants(float_and_int32_data()));

  cases.add(movement_case("ReverseSequence", "axes")
                .variants({{"time_0_runtime_lengths", [](OpCase& v) { v.in(f32({4, 3, 2, 5})).in(i64s({4, 0, 2})); }},
                           {"time_1_constant_lengths", [](OpCase& v) {
                              v.in(f32({3, 4})).in(i64s({1, 4, 3}).constant()).attr("batch_axis", int64_t(0)).attr("time_axis", int64_t(1));
                            }}})
                .variants(float_and_int32_data()));
}

}  // namespace vx::optable

// Resampling: Resize (every mode and coordinate transform, scales up and down, sizes, an roi,
// cubic options, runtime sizes, opset 10, the fast CPU kernel's paths), Upsample, GridSample and
// RoiAlign.
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(resample) {
  struct ResizeMode {
    std::string mode, transform, nearest;
  };
  std::vector<Variant> modes;
  for (const ResizeMode& m : {ResizeMode{"nearest", "asymmetric", "floor"}, ResizeMode{"nearest", "half_pixel", "round_prefer_floor"},
                              ResizeMode{"nearest", "align_corners", "round_prefer_ceil"},
                              ResizeMode{"nearest", "tf_half_pixel_for_nn", "ceil"},
                              ResizeMode{"nearest", "pytorch_half_pixel", "round_prefer_floor"}, ResizeMode{"linear", "half_pixel", ""},
                              ResizeMode{"linear", "align_corners", ""}, ResizeMode{"linear", "asymmetric", ""},
                              ResizeMode{"linear", "pytorch_half_pixel", ""}, ResizeMode{"linear", "half_pixel_symmetric", ""},
                              ResizeMode{"cubic", "half_pixel", ""}, ResizeMode{"cubic", "align_corners", ""}})
    modes.push_back({cat(m.mode, "_", m.transform, m.nearest.empty() ? "" : "_" + m.nearest), [m](OpCase& v) {
                       v.attr("mode", m.mode).attr("coordinate_transformation_mode", m.transform);
                       if (!m.nearest.empty()) v.attr("nearest_mode", m.nearest);
                       if (m.mode == "nearest") v.tol_f32({0, 0, 0}).tol_cpu({0, 0, 0});  // picks values: exact
                       if (m.mode == "cubic") v.may_fall_back(Backend::cpu);  // the fast CPU kernel declines cubic
                     }});
  cases.add(OpCase("Resize", "modes")
                .opset(13)
                .tol_f32({1e-5, 1e-6})
                .variants(std::move(modes))
                .variants({inputs_variant("scales_up", {f32({1, 2, 5, 7}), omitted(), values({4}, {1, 1, 2.0, 1.5}).constant()}),
                           inputs_variant("scales_down", {f32({1, 2, 5, 7}), omitted(), values({4}, {1, 1, 0.6, 0.5}).constant()}),
                           inputs_variant("sizes", {f32({1, 2, 5, 7}), omitted(), omitted(), i64s({1, 2, 9, 4}).constant()})}));
  cases.add(OpCase("Resize", "options")
                .tol_f32({1e-5, 1e-6})
                .variants({{"tf_crop_and_resize", [](OpCase& v) {
                              v.opset(13)
                                  .in(f32({1, 2, 5, 7}))
                                  .in(values({8}, {0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3}).constant())
                                  .in(values({4}, {1, 1, 2.0, 1.5}).constant())
                                  .attr("mode", std::string("linear"))
                                  .attr("coordinate_transformation_mode", std::string("tf_crop_and_resize"))
                                  .attr("extrapolation_value", 0.25f)
                                  .may_fall_back(Backend::cpu);  // the fast CPU kernel declines tf_crop_and_resize
                            }},
                           {"cubic_exclude_outside", [](OpCase& v) {
                              v.opset(18)
                                  .in(f32({1, 2, 5, 7}))
                                  .in(omitted())
                                  .in(values({4}, {1, 1, 1.7, 0.8}).constant())
                                  .attr("mode", std::string("cubic"))
                                  .attr("exclude_outside", int64_t(1))
                                  .attr("cubic_coeff_a", -0.5f)
                                  .may_fall_back(Backend::cpu);  // cubic
                            }},
                           // Sizes computed at run time (a graph input): the executor observes the output shape.
                           {"runtime_sizes_nearest", [](OpCase& v) {
                              v.opset(13).in(f32({1, 2, 5, 7})).in(omitted()).in(omitted()).in(i64s({1, 2, 8, 3})).attr("mode", std::string("nearest"));
                            }},
                           {"runtime_sizes_linear", [](OpCase& v) {
                              v.opset(13).in(f32({1, 2, 5, 7})).in(omitted()).in(omitted()).in(i64s({1, 2, 8, 3})).attr("mode", std::string("linear"));
                            }},
                           {"opset10_nearest", [](OpCase& v) {
                              v.opset(10).in(f32({1, 3, 4, 5})).in(values({4}, {1, 1, 2, 3}).constant()).attr("mode", std::string("nearest"));
                            }},
                           {"opset10_linear", [](OpCase& v) {
                              v.opset(10).in(f32({1, 3, 4, 5})).in(values({4}, {1, 1, 2, 3}).constant()).attr("mode", std::string("linear"));
                            }}}));
  // Nearest picks values: integers and bytes round-trip exactly. (Linear int32 results may differ
  // by one where a weighted sum lands within rounding of a half: tests/parity/vulkan_ops_movement_test.cpp.)
  cases.add(OpCase("Resize", "nearest_integers")
                .opset(13)
                .attr("mode", std::string("nearest"))
                .may_fall_back(Backend::cpu)  // the fast CPU kernel is f32 only
                .variants({inputs_variant("int32", {ints({1, 2, 5, 7}, -1000, 1000), omitted(), values({4}, {1, 1, 2.0, 1.5}).constant()}),
                           inputs_variant("uint8", {ints({1, 2, 3, 5}, 0, 255, DType::u8), omitted(), values({4}, {1, 1, 2, 1.5}).constant()})}));
  cases.add(OpCase("Resize", "2x_upsample")
                .opset(13)
                .in(f32({1, 8, 19, 17}).scaled({1, 2, 3}))
                .in(omitted())
                .in(values({4}, {1, 1, 2, 2}).constant())
                .sweep("mode", {std::string("nearest"), std::string("linear")})
                .tol_f32({1e-5, 1e-6}));

  // The fast CPU kernel's paths (src/backends/cpu/fast/resize.cpp): odd extents, N > 1, integer and
  // fractional factors up and down, constant and runtime scales and sizes, 3-D inputs, the axes
  // attribute. Runtime scales that resize a leading axis: nearest picks source planes; linear would
  // blend planes, and the fast kernel hands that run to the reference.
  std::vector<Variant> fast_modes;
  for (const ResizeMode& m : {ResizeMode{"nearest", "asymmetric", "floor"}, ResizeMode{"nearest", "half_pixel_symmetric", "round_prefer_ceil"},
                              ResizeMode{"linear", "half_pixel", ""}, ResizeMode{"linear", "align_corners", ""}})
    fast_modes.push_back({cat(m.mode, "_", m.transform, m.nearest.empty() ? "" : "_" + m.nearest), [m](OpCase& v) {
                            v.attr("mode", m.mode).attr("coordinate_transformation_mode", m.transform);
                            if (!m.nearest.empty()) v.attr("nearest_mode", m.nearest);
                            if (m.mode == "nearest") v.tol_f32({0, 0, 0}).tol_cpu({0, 0, 0});
                          }});
  auto scales = [](std::vector<double> s, bool constant) {
    const int64_t n = int64_t(s.size());
    InputSpec in = values({n}, std::move(s));
    return constant ? in.constant() : in;
  };
  auto sizes = [](std::vector<int64_t> s, bool constant) {
    InputSpec in = i64s(std::move(s));
    return constant ? in.constant() : in;
  };
  // Scales are exact in fp16: vulkan-f16's reference runs on fp16-rounded inputs, scales
  // included. Vulkan takes constant scales only (and runtime sizes only with the stretch policy).
  auto runtime_variant = [](std::string label, std::vector<InputSpec> inputs) {
    return Variant{std::move(label), [inputs](OpCase& v) { v.with_inputs(inputs).may_fall_back(kVulkan); }};
  };
  cases.add(OpCase("Resize", "fast_paths")
                .opset(19)
                .tol_f32({1e-5, 1e-6})
                .variants(std::move(fast_modes))
                .variants({inputs_variant("x2_n2", {f32({2, 3, 13, 17}), omitted(), scales({1, 1, 2, 2}, true)}),
                           runtime_variant("x3_runtime", {f32({1, 2, 7, 9}), omitted(), scales({1, 1, 3, 3}, false)}),
                           inputs_variant("x8", {f32({1, 2, 5, 6}), omitted(), scales({1, 1, 8, 8}, true)}),
                           // DeepLabV3's head (21 planes, 8x): threads' chunks of rows cross planes.
                           inputs_variant("x8_21_planes", {f32({1, 21, 13, 11}), omitted(), scales({1, 1, 8, 8}, true)}),
                           inputs_variant("down", {f32({2, 3, 13, 17}), omitted(), scales({1, 1, 0.5, 0.375}, true)}),
                           runtime_variant("up_down_runtime", {f32({1, 3, 11, 10}), omitted(), scales({1, 1, 1.75, 0.4375}, false)}),
                           inputs_variant("sizes", {f32({2, 2, 9, 13}), omitted(), omitted(), sizes({2, 2, 20, 6}, true)}),
                           inputs_variant("sizes_runtime", {f32({2, 2, 9, 13}), omitted(), omitted(), sizes({2, 2, 4, 31}, false)}),
                           inputs_variant("3d_last_axis", {f32({2, 5, 11}), omitted(), scales({1, 1, 2.5}, true)}),
                           inputs_variant("3d_last_two", {f32({3, 7, 5}), omitted(), scales({1, 2, 1.5}, true)}),
                           runtime_variant("runtime_leading_axis", {f32({1, 2, 5, 7}), omitted(), scales({1, 2, 2, 1.5}, false)}),
                           // Runtime sizes: shape inference (ops/onnx_shape_fns.cpp) knows no axes attribute.
                           {"axes_sizes_not_larger_runtime", [sizes](OpCase& v) {
                              v.with_inputs({f32({1, 2, 6, 9}), omitted(), omitted(), sizes({20, 20}, false)})
                                  .attr("axes", std::vector<int64_t>{-2, -1})
                                  .attr("keep_aspect_ratio_policy", std::string("not_larger"))
                                  .may_fall_back(kVulkan);
                            }}}));
  // A resized leading axis only picks source planes for nearest: the fast CPU kernel takes it;
  // linear would blend planes, which it leaves to the reference.
  cases.add(OpCase("Resize", "leading_axis")
                .opset(13)
                .in(f32({2, 4, 5, 7}))
                .in(omitted())
                .in(values({4}, {1.5, 0.5, 2, 2}).constant())
                .tol_f32({1e-5, 1e-6})
                .variants({{"nearest", [](OpCase& v) { v.attr("mode", std::string("nearest")).tol_f32({0, 0, 0}).tol_cpu({0, 0, 0}); }},
                           {"linear", [](OpCase& v) { v.attr("mode", std::string("linear")).may_fall_back(Backend::cpu); }}}));

  cases.add(OpCase("Upsample", "modes")
                .tol_f32({1e-5, 1e-6})
                .variants({{"opset9_scales_input_nearest", [](OpCase& v) {
                              v.opset(9).in(f32({1, 3, 4, 5})).in(values({4}, {1, 1, 2, 3}).constant()).attr("mode", std::string("nearest"));
                            }},
                           {"opset9_scales_input_linear", [](OpCase& v) {
                              v.opset(9).in(f32({1, 3, 4, 5})).in(values({4}, {1, 1, 2, 3}).constant()).attr("mode", std::string("linear"));
                            }},
                           {"opset7_scales_attribute_nearest", [](OpCase& v) {
                              v.opset(7).in(f32({1, 3, 4, 5})).attr("scales", std::vector<float>{1, 1, 2, 3}).attr("mode", std::string("nearest"));
                            }},
                           {"opset7_scales_attribute_linear", [](OpCase& v) {
                              v.opset(7).in(f32({1, 3, 4, 5})).attr("scales", std::vector<float>{1, 1, 2, 3}).attr("mode", std::string("linear"));
                            }},
                           {"opset7_bilinear", [](OpCase& v) {
                              v.opset(7).in(f32({1, 3, 4, 5})).attr("scales", std::vector<float>{1, 1, 2, 2}).attr("mode", std::string("bilinear"));
                            }}}));

  // Nearest rounds the sampling position: a coordinate within float rounding of a half could pick
  // the other neighbour; this random grid has no such ties.
  cases.add(OpCase("GridSample", "modes_paddings_align_corners")
                .opset(16)
                .in(f32({2, 3, 5, 7}, -2, 2))
                .in(f32({2, 4, 6, 2}, -1.4f, 1.4f))
                .seed(1)
                .tol_f32({1e-5, 1e-5})
                .tol_f16({1e-2, 1e-2})
                .sweep("mode", {std::string("bilinear"), std::string("nearest"), std::string("bicubic")})
                .sweep("padding_mode", {std::string("zeros"), std::string("border"), std::string("reflection")})
                .sweep("align_corners", {int64_t(0), int64_t(1)}));

  cases.add(OpCase("RoiAlign", "modes_sampling_transforms")
                .opset(16)
                .in(f32({2, 3, 9, 11}, -2, 2))
                .in(values({4, 4}, {0.5, 1.0, 7.25, 6.5, -2.0, -1.5, 4.0, 3.0, 3.0, 2.0, 13.0, 10.5, 5.0, 5.0, 5.5, 5.25}))
                .in(values({4}, {0, 1, 1, 0}, DType::i64))
                .attr("output_height", int64_t(3))
                .attr("output_width", int64_t(4))
                .attr("spatial_scale", 0.75f)
                .tol_f32({1e-5, 1e-5})
                .tol_f16({1e-2, 1e-2})
                .sweep("mode", {std::string("avg"), std::string("max")})
                .sweep("sampling_ratio", {int64_t(0), int64_t(2)})
                .sweep("coordinate_transformation_mode", {std::string("half_pixel"), std::string("output_half_pixel")}));
}

}  // namespace vx::optable

// Normalisations: BatchNormalization (folded constants or runtime statistics), InstanceNormalization,
// LayerNormalization (any axis, the optional Mean / InvStdDev outputs), vx.LayerNorm, LRN,
// MeanVarianceNormalization.
#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
constexpr CaseTolerance kNormF32{0, 1e-4, 1e-4};
constexpr CaseTolerance kNormF16{0, 1e-2, 1e-2};
}  // namespace

VX_OP_CASES(norm) {
  std::vector<Variant> bn;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{3, 4}, Shape{1, 5, 3, 2, 3}}) {
      bn.push_back({cat(s.str(), constant ? "_constant" : "_runtime"), [s, constant](OpCase& v) {
                      const int64_t c = s[1];
                      std::vector<InputSpec> ins = {f32(s), f32({c}, 0.5f, 1.5f), f32({c}), f32({c}), f32({c}, 0.2f, 2.0f)};
                      if (constant)
                        for (size_t i = 1; i < ins.size(); ++i) ins[i].constant();
                      v.with_inputs(ins);
                      // Constant statistics fold into one scale and shift.
                      v.expect_variant(Backend::vulkan_f32, constant ? "folded" : "direct");
                    }});
    }
  cases.add(OpCase("BatchNormalization", "statistics").opset(17).attr("epsilon", 1e-3f).tol_f32(kNormF32).tol_f16(kNormF16).variants(std::move(bn)));
  // Older opsets (7 with spatial = 1 spelled out, 9) and 15, epsilon at its default; odd extents, N > 1.
  cases.add(OpCase("BatchNormalization", "opsets_default_epsilon")
                .in(f32({2, 5, 9, 11}))
                .in(f32({5}, 0.5f, 1.5f).constant())
                .in(f32({5}).constant())
                .in(f32({5}).constant())
                .in(f32({5}, 0.2f, 2.0f).constant())
                .tol_f32(kNormF32)
                .tol_f16(kNormF16)
                .variants({{"opset7_spatial", [](OpCase& v) { v.opset(7).attr("spatial", int64_t(1)); }},
                           {"opset9", [](OpCase& v) { v.opset(9); }},
                           {"opset15", [](OpCase& v) { v.opset(15); }}}));

  std::vector<Variant> inorm;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{1, 4, 600}, Shape{1, 2, 3, 2, 3}}) {
      inorm.push_back({cat(s.str(), constant ? "_constant" : "_runtime"), [s, constant](OpCase& v) {
                         InputSpec scale = f32({s[1]}), bias = f32({s[1]});
                         if (constant) scale.constant(), bias.constant();
                         v.with_inputs({f32(s, -2, 3), scale, bias});
                       }});
    }
  cases.add(OpCase("InstanceNormalization", "shapes").opset(17).tol_f32(kNormF32).tol_f16(kNormF16).variants(std::move(inorm)));

  struct LayerNormShape {
    Shape x;
    int64_t axis;
    Shape scale, bias;  // rank 0 bias: absent
    bool constant, stats;
  };
  std::vector<Variant> ln;
  for (const LayerNormShape& c : {LayerNormShape{{2, 3, 17}, -1, {17}, {17}, true, false},
                                  LayerNormShape{{2, 3, 17}, 1, {3, 17}, {3, 17}, false, false},
                                  LayerNormShape{{5, 700}, -1, {700}, {}, true, true},
                                  LayerNormShape{{2, 3, 4, 5}, 2, {1, 5}, {4, 1}, true, true},
                                  LayerNormShape{{3, 7}, 0, {3, 7}, {3, 7}, false, true}}) {
    ln.push_back({cat(c.x.str(), "_axis", c.axis, c.stats ? "_statistics" : ""), [c](OpCase& v) {
                    InputSpec scale = f32(c.scale), bias = f32(c.bias);
                    if (c.constant) scale.constant(), bias.constant();
                    v.with_inputs({f32(c.x, -3, 5), scale});
                    if (c.bias.rank() > 0) v.in(bias);
                    v.attr("axis", c.axis);
                    if (c.stats) {  // Mean and InvStdDev: the input's shape with the normalised axes 1
                      std::vector<int64_t> stats = c.x.dims();
                      const size_t axis = size_t(c.axis < 0 ? c.axis + int64_t(c.x.rank()) : c.axis);
                      for (size_t d = axis; d < stats.size(); ++d) stats[d] = 1;
                      v.outputs(3).declare_outputs({c.x, Shape(stats), Shape(stats)});
                    }
                    // The fast CPU kernel takes the last axis alone and no statistics outputs.
                    if (c.stats || (c.axis != -1 && c.axis != int64_t(c.x.rank()) - 1)) v.may_fall_back(Backend::cpu);
                  }});
  }
  // Not the last axis: the fast kernel declines, the reference runs it.
  ln.push_back({"4x6_axis0_declined", [](OpCase& v) {
                  v.with_inputs({f32({4, 6}), f32({4, 6}).constant()}).attr("axis", int64_t(0)).attr("epsilon", 1e-5f);
                  v.expect_variant(Backend::cpu, "reference").tol_cpu({0, 1e-12, 0}).may_fall_back(Backend::cpu);
                }});
  cases.add(OpCase("LayerNormalization", "axes_and_statistics").opset(17).attr("epsilon", 1e-4f).tol_f32(kNormF32).tol_f16(kNormF16).variants(std::move(ln)));
  cases.add(OpCase("LayerNormalization", "last_axis")
                .opset(17)
                .attr("epsilon", 1e-5f)
                .in(f32({4, 7, 33}).scaled({-1, -2}))
                .in(f32({33}).constant().scaled({-1}))
                .in(f32({33}).constant().scaled({-1}))
                .variants({{"3d", [](OpCase&) {}},
                           inputs_variant("768", {f32({1, 768}), f32({768}).constant(), f32({768}).constant()}),
                           inputs_variant("rank_1", {f32({5}), f32({5}).constant(), f32({5}).constant()})})
                .expect_variant(Backend::cpu, "fast"));
  // vx.LayerNorm (the fused last-axis form): with a bias, without one, a runtime scale.
  std::vector<Variant> vln;
  for (Shape s : {Shape{3, 5, 37}, Shape{2, 768}, Shape{1, 1300}, Shape{4, 1}, Shape{4, 7, 33}, Shape{1, 768}, Shape{5}}) {
    const int64_t c = s[s.rank() - 1];
    vln.push_back(inputs_variant(s.str() + "_bias", {f32(s, -3, 5), f32({c}).constant(), f32({c}).constant()}));
    vln.push_back(inputs_variant(s.str() + "_runtime_scale", {f32(s), f32({c})}));
    vln.push_back(inputs_variant(s.str() + "_constant_scale", {f32(s), f32({c}).constant()}));
  }
  cases.add(OpCase(kLayerNorm, "shapes").attr("epsilon", 1e-3f).variants(std::move(vln)).tol_cpu({0, 0, 1e-4}));

  std::vector<Variant> lrn_shapes = {inputs_variant("4d", {f32({2, 7, 3, 4}, -2, 2)}), inputs_variant("3d", {f32({1, 4, 5}, -2, 2)})};
  cases.add(OpCase("LRN", "sizes")
                .opset(17)
                .attr("alpha", 0.3f)
                .attr("beta", 0.6f)
                .attr("bias", 1.5f)
                .tol_f32(kNormF32)
                .tol_f16(kNormF16)
                .sweep("size", {int64_t(1), int64_t(2), int64_t(3), int64_t(5)})
                .variants(std::move(lrn_shapes)));

  cases.add(OpCase("MeanVarianceNormalization", "axes")
                .opset(13)
                .tol_f32({1e-4, 1e-5})
                .variants({{"0_2_3", [](OpCase& v) { v.in(f32({2, 3, 4, 5}, -2, 5)).attr("axes", std::vector<int64_t>{0, 2, 3}); }},
                           {"1", [](OpCase& v) { v.in(f32({2, 3, 4, 5}, -2, 5)).attr("axes", std::vector<int64_t>{1}); }},
                           {"last", [](OpCase& v) { v.in(f32({3, 5, 7}, -2, 5)).attr("axes", std::vector<int64_t>{-1}); }},
                           {"all", [](OpCase& v) { v.in(f32({3, 5, 7}, -2, 5)).attr("axes", std::vector<int64_t>{0, 1, 2}); }},
                           {"default", [](OpCase& v) { v.in(f32({2, 3, 2, 3})); }}}));
}

}  // namespace vx::optable

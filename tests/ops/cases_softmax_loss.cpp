// Softmax, LogSoftmax, Hardmax (opset 11's 2-D coercion and opset 13's single axis), the losses
// NegativeLogLikelihoodLoss and SoftmaxCrossEntropyLoss (weights, ignore_index, every reduction).
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(softmax_loss) {
  for (const char* op : {"Softmax", "LogSoftmax", "Hardmax"}) {
    OpCase c(op, "axes");
    c.tol_f32({1e-5, 1e-5})
        .tol_f16({1e-2, 1e-3})
        .variants({{"opset11_default", [](OpCase& v) { v.opset(11).in(f32({2, 3, 5, 7}, -4, 4)); }},
                   {"opset11_axis2", [](OpCase& v) { v.opset(11).in(f32({2, 3, 5, 7}, -4, 4)).attr("axis", int64_t(2)); }},
                   {"opset13_default", [](OpCase& v) { v.opset(13).in(f32({2, 3, 5, 7}, -4, 4)); }},
                   {"opset13_axis-3", [](OpCase& v) { v.opset(13).in(f32({2, 3, 5, 7}, -4, 4)).attr("axis", int64_t(-3)); }},
                   {"3x1000", [](OpCase& v) { v.opset(13).in(f32({3, 1000}, -4, 4)); }},
                   {"rank_1", [](OpCase& v) { v.opset(13).in(f32({9}, -4, 4)); }},
                   {"1x1", [](OpCase& v) { v.opset(13).in(f32({1, 1})); }}});
    // oneDNN takes one axis of contiguous rows; opset 13's middle axes run on the reference.
    if (std::string(op) == "Softmax") c.may_fall_back(Backend::cpu);
    cases.add(std::move(c));
  }
  cases.add(OpCase("Softmax", "fast_path")
                .opset(17)
                .in(f32({3, 17}))
                .scale_last(1)
                .variants({{"3x17", [](OpCase&) {}}, inputs_variant("4d_129", {f32({2, 3, 5, 129})}), inputs_variant("1", {f32({1})}),
                           {"opset11_axis1_coerced", [](OpCase& v) { v.with_inputs({f32({2, 3, 5})}).opset(11).attr("axis", int64_t(1)); }}})
                .expect_variant(Backend::cpu, "onednn"));
  cases.add(OpCase("Softmax", "middle_axis_declined")
                .opset(17)
                .in(f32({2, 3, 5}))
                .attr("axis", int64_t(1))
                .tol_cpu({0, 1e-12, 0})
                .may_fall_back(Backend::cpu)
                .expect_variant(Backend::cpu, "reference"));

  // Labels over C = 5 classes, [N, d1] = [3, 4], one of them the ignored class 2.
  const InputSpec labels = patched(ints({3, 4}, 0, 4), {{5, 2}});
  for (const char* op : {"NegativeLogLikelihoodLoss", "SoftmaxCrossEntropyLoss"}) {
    const bool nll = std::string(op) == "NegativeLogLikelihoodLoss";
    // Class weights: a constant for one loss, a runtime input for the other.
    std::vector<Variant> weighting = {{"unweighted", [](OpCase&) {}}, {"weighted", [nll](OpCase& v) {
                                         InputSpec w = f32({5}, 0.5f, 2.0f);
                                         if (nll) w.constant();
                                         v.in(w);
                                       }}};
    OpCase c(op, "reductions");
    c.opset(13)
        .in(nll ? f32({3, 5, 4}, -3, 0) : f32({3, 5, 4}, -3, 3))
        .in(labels)
        .tol_f32({1e-5, 1e-5})
        .tol_f16({1e-2, 1e-3})
        .sweep("reduction", {std::string("none"), std::string("sum"), std::string("mean")})
        .variants({{"all_classes", [](OpCase&) {}}, {"ignore_index", [](OpCase& v) { v.attr("ignore_index", int64_t(2)); }}})
        .variants(weighting);
    if (!nll) c.variants({{"loss", [](OpCase&) {}}, {"log_prob", [](OpCase& v) { v.outputs(2); }}});
    cases.add(std::move(c));
  }
  cases.add(OpCase("NegativeLogLikelihoodLoss", "2d").opset(13).in(f32({6, 3}, -3, 0)).in(ints({6}, 0, 2)));
}

}  // namespace vx::optable

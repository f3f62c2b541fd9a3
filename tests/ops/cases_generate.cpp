// Ops that generate values: ConstantOfShape, Range, the windows (Hann, Hamming, Blackman), OneHot
// (axes, index types, negative indices), Trilu (upper / lower, k).
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(generate) {
  cases.add(OpCase("ConstantOfShape", "values")
                .variants({{"float_2.5", [](OpCase& v) {
                              v.in(i64s({2, 3, 5}).constant()).attr("value", Tensor::from<float>({1}, {2.5f}));
                            }},
                           {"default_zero", [](OpCase& v) { v.in(i64s({7, 1}).constant()); }},
                           {"int32", [](OpCase& v) { v.in(i64s({3, 4}).constant()).attr("value", Tensor::from<int32_t>({1}, {-7})); }}}));

  // Values exact in fp16: the length must not change with the rounding.
  cases.add(OpCase("Range", "directions")
                .variants({inputs_variant("float_up", {scalar(1.5), scalar(9.25), scalar(0.75)}),
                           inputs_variant("float_down", {scalar(3.0), scalar(-4.0), scalar(-1.25)}),
                           inputs_variant("int32", {scalar(-5, DType::i32), scalar(30, DType::i32), scalar(3, DType::i32)})}));

  for (const char* op : {"HannWindow", "HammingWindow", "BlackmanWindow"}) {
    std::vector<Variant> lengths;
    for (int64_t n : {1, 10, 33}) lengths.push_back({cat("n", n), [n](OpCase& v) { v.in(scalar(double(n), DType::i64).constant()); }});
    cases.add(OpCase(op, "lengths")
                  .opset(17)
                  .tol_f32({1e-5, 1e-6})
                  .sweep("periodic", {int64_t(0), int64_t(1)})
                  .variants(std::move(lengths)));
  }

  std::vector<Variant> one_hot;
  for (int64_t axis : {-1, 0, 1, 2})
    one_hot.push_back({cat("int_indices_axis", axis), [axis](OpCase& v) {
                         v.in(ints({2, 3}, -5, 6, DType::i64)).in(scalar(5, DType::i64).constant()).in(values({2}, {-1.5, 3.0})).attr("axis", axis);
                       }});
  for (int64_t axis : {-1, 0, 1})
    one_hot.push_back({cat("float_indices_int_values_axis", axis), [axis](OpCase& v) {
                         v.in(f32({4}, -3.9f, 7.9f)).in(scalar(6.0).constant()).in(values({2}, {0, 9}, DType::i64)).attr("axis", axis);
                       }});
  cases.add(OpCase("OneHot", "axes_and_index_types").opset(11).variants(std::move(one_hot)));

  cases.add(OpCase("Trilu", "upper_lower_k")
                .opset(14)
                .sweep("upper", {int64_t(0), int64_t(1)})
                .variants({{"k-7", [](OpCase& v) { v.in(f32({2, 3, 5, 4})).in(scalar(-7, DType::i64)); }},
                           {"k-1", [](OpCase& v) { v.in(f32({2, 3, 5, 4})).in(scalar(-1, DType::i64)); }},
                           {"k0", [](OpCase& v) { v.in(f32({2, 3, 5, 4})).in(scalar(0, DType::i64)); }},
                           {"k2", [](OpCase& v) { v.in(f32({2, 3, 5, 4})).in(scalar(2, DType::i64)); }},
                           {"k9", [](OpCase& v) { v.in(f32({2, 3, 5, 4})).in(scalar(9, DType::i64)); }},
                           {"int32_without_k", [](OpCase& v) { v.in(ints({4, 6}, -9, 9)); }}}));
}

}  // namespace vx::optable

// Comparisons, logic, Where, IsInf and IsNaN: float and integer operands, bools out.
#include <limits>

#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(compare_logic) {
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"})
    cases.add(OpCase(op, "float_and_int")
                  .in(f32({2, 3, 4}, -2, 2))
                  .in(f32({3, 1}, -2, 2))
                  .scale_last(2)
                  .variants({{"float", [](OpCase&) {}},
                             // Small integer ranges: many equal pairs.
                             {"int32", [](OpCase& v) { v.with_inputs({ints({2, 3, 4}, -3, 3), ints({4}, -3, 3)}); }}})
                  .may_fall_back(Backend::cpu));  // the fast kernel takes same shapes and single values only
  // The fast CPU kernel's cases (cpu/fast/compare.cpp): same shapes (NaNs included; 70 K elements,
  // so several tasks of the pool), one value on either side (Silero's sr == 16000), i32 and i64.
  const double quiet_nan = std::numeric_limits<double>::quiet_NaN();
  for (const char* op : {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"})
    cases.add(OpCase(op, "flat")
                  .variants({{"same_shape", [quiet_nan](OpCase& v) {
                                v.with_inputs({patched(ints({7, 10001}, -3, 3, DType::f32), {{5, quiet_nan}, {9, quiet_nan}}),
                                               patched(ints({7, 10001}, -3, 3, DType::f32), {{9, quiet_nan}, {11, 2}})});
                              }},
                             {"value_first", [](OpCase& v) { v.with_inputs({scalar(1), ints({3, 5}, -3, 3, DType::f32)}); }},
                             {"value_second", [](OpCase& v) { v.with_inputs({ints({2, 3, 4}, -3, 3, DType::f32), f32({1, 1, 1}, 0, 0)}); }},
                             {"int32", [](OpCase& v) { v.with_inputs({ints({5, 9}, -3, 3), ints({5, 9}, -3, 3)}); }},
                             {"int64_scalars", [](OpCase& v) { v.with_inputs({scalar(16000, DType::i64), scalar(16000, DType::i64)}); }},
                             {"int64", [](OpCase& v) { v.with_inputs({ints({4, 6}, -2, 2, DType::i64), scalar(1, DType::i64)}); }}})
                  .expect_variant(Backend::cpu, "fast"));
  for (const char* op : {"And", "Or", "Xor"})
    cases.add(OpCase(op, "broadcast").in(bools({5, 1, 3})).in(bools({4, 1})).integers_only());
  cases.add(OpCase("Not", "bools").in(bools({3, 7})).integers_only());
  cases.add(OpCase("Where", "broadcast_three_ways")
                .in(bools({1, 3, 1, 7}))
                .in(f32({5, 1}))
                .in(f32({2, 1, 1, 1}))
                .variants({{"float", [](OpCase&) {}},
                           inputs_variant("int32", {bools({4}), ints({4}, -9, 9), ints({}, -9, 9)})}));
  // An attention mask: a [1, 1, 1, L] condition picks a scalar or the [B, H, L, L] scores (sizes the
  // CPU's fast kernel splits between threads); and three operands of one shape.
  cases.add(OpCase("Where", "threaded")
                .variants({inputs_variant("attention_mask", {bools({1, 1, 1, 130}), scalar(-1e4), f32({2, 4, 129, 130})}),
                           inputs_variant("same_shapes", {bools({7, 3001}), f32({7, 3001}), f32({7, 3001})})}));
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const InputSpec specials = patched(f32({3, 7}, -5, 5), {{0, inf}, {3, -inf}, {8, nan}, {13, inf}, {20, 0}});
  cases.add(OpCase("IsInf", "signs")
                .in(specials)
                .opset(20)
                .variants({{"both", [](OpCase&) {}},
                           {"positive_only", [](OpCase& v) { v.attr("detect_negative", int64_t(0)); }},
                           {"negative_only", [](OpCase& v) { v.attr("detect_positive", int64_t(0)); }}}));
  cases.add(OpCase("IsNaN", "specials").in(specials).opset(20));
}

}  // namespace vx::optable

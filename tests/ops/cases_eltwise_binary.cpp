// Element-wise binary and variadic ops: broadcasting at odd shapes (rank 0 to 6, empty tensors),
// constant operands, integer types (int64 maths on host inputs is a shape computation the Vulkan
// executor keeps on the CPU by design), Mod's and Pow's sign rules.
#include <limits>

#include "ops/op_table.h"

namespace vx::optable {

// A [1,3,5,7] operand and a broadcast [3,1,7] one (positive: Pow of negative bases needs integer
// exponents), a constant row of 7 where the op takes one, and the op's own special inputs.
static OpCase binary_float_case(const std::string& op, bool constant_row, std::vector<Variant> more = {}) {
  OpCase c(op, "broadcast");
  // Exact on cpu: the fast kernels (where the op has one) compute the reference's float expression.
  c.in(f32({1, 3, 5, 7}, -3, 3)).in(f32({3, 1, 7}, 0.5f, 2)).scale_last(2).tol_cpu({0, 0, 0});
  std::vector<Variant> variants = {{"runtime_b", [](OpCase&) {}}};
  if (constant_row)
    variants.push_back({"constant_row", [](OpCase& v) { v.with_inputs({f32({1, 3, 5, 7}, -3, 3), f32({7}, -2, 2).constant()}); }});
  for (Variant& m : more) variants.push_back(std::move(m));
  c.variants(std::move(variants));
  return c;
}

// Exact integer maths: int32 (on the GPU), int64 (CPU by design), uint8 wrapping at 8 bits.
static OpCase binary_integer_case(const std::string& op, bool with_uint8) {
  OpCase c(op, "integers");
  std::vector<Variant> types = {
      {"int32", [](OpCase& v) { v.with_inputs({ints({2, 3, 5}, -1000, 1000), ints({3, 1}, -9, 9)}); }},
      {"int64", [](OpCase& v) {
         // int64 maths on host inputs is a shape computation: the executor keeps it on the CPU.
         v.with_inputs({ints({2, 3, 5}, -1000, 1000, DType::i64), ints({3, 1}, -9, 9, DType::i64)}).may_fall_back(kVulkan);
       }}};
  if (with_uint8)
    types.push_back({"uint8", [](OpCase& v) { v.with_inputs({ints({17}, 0, 255, DType::u8), ints({17}, 0, 255, DType::u8)}); }});
  // The fast CPU kernels take f32 only: integer maths stays with the reference by design.
  c.variants(std::move(types)).integers_only().may_fall_back(Backend::cpu);
  return c;
}

// Every way the fast CPU kernel (fast/eltwise_binary.cpp) decomposes a broadcast, at odd sizes, some
// above its threading threshold (64K elements) so that chunks start mid-run: the same shape, a
// scalar on either side, per-channel [1,C,1,1] and [C,1,1] on either side, [N,C,1,1] (a squeeze-
// excitation scale), a value per innermost run, a row, a column, and mixed broadcasts. The second
// operand stays in [0.5, 2] (Div), the first is any sign.
static OpCase binary_forms_case(const std::string& op) {
  const Shape big{2, 7, 97, 61};  // 82838 elements: threaded
  auto fw = [](Shape s) { return f32(std::move(s), -3, 3); };
  auto bw = [](Shape s) { return f32(std::move(s), 0.5f, 2); };
  OpCase c(op, "broadcast_forms");
  c.tol_cpu({0, 0, 0});  // the reference's float expression, element by element: exact
  c.variants({inputs_variant("same_3x37x41", {fw({3, 37, 41}), bw({3, 37, 41})}),
              inputs_variant("same_threaded", {fw(big), bw(big)}),
              inputs_variant("scalar_right", {fw({3, 37, 41}), bw({})}),
              inputs_variant("scalar_left", {fw({}), bw({3, 37, 41})}),
              inputs_variant("scalar_1_left_threaded", {fw({1}), bw(big)}),
              inputs_variant("scalar_right_threaded", {fw(big), bw({1, 1, 1, 1})}),
              inputs_variant("per_channel_1c11_threaded", {fw(big), bw({1, 7, 1, 1})}),
              inputs_variant("per_channel_c11", {fw({2, 5, 9, 11}), bw({5, 1, 1})}),
              inputs_variant("per_channel_left", {fw({1, 7, 1, 1}), bw({2, 7, 13, 11})}),
              inputs_variant("se_nc11_threaded", {fw(big), bw({2, 7, 1, 1})}),
              inputs_variant("per_run_nchw1", {fw({2, 3, 5, 7}), bw({2, 3, 5, 1})}),
              inputs_variant("row", {fw({6, 301}), bw({301})}),
              inputs_variant("column_left", {fw({9, 1}), bw({9, 11})}),
              inputs_variant("mixed_2x1x5_1x3x1", {fw({2, 1, 5}), bw({1, 3, 1})}),
              inputs_variant("mixed_threaded", {fw({5, 1, 129}), bw({1, 131, 1})}),
              inputs_variant("mixed_rank_5", {fw({3, 1, 4, 1, 6}), bw({1, 5, 4, 7, 1})})});
  return c;
}

VX_OP_CASES(eltwise_binary) {
  // Broadcasting of every kind, from rank 0 to rank 6 and an empty tensor.
  cases.add(binary_float_case("Add", true,
                              {inputs_variant("4d_3d", {f32({1, 3, 5, 7}), f32({3, 1, 7})}),
                               inputs_variant("3d_scalar", {f32({2, 3, 4}), f32({})}), inputs_variant("scalars", {f32({}), f32({})}),
                               inputs_variant("5_by_1", {f32({5}), f32({1})}), inputs_variant("column_by_row", {f32({4, 1}), f32({1, 6})}),
                               inputs_variant("rank_6", {f32({2, 1, 3, 1, 2, 3}), f32({5, 2, 1})}),
                               inputs_variant("ones", {f32({1, 1, 1}), f32({3, 1})}), inputs_variant("empty", {f32({0, 3}), f32({1, 3})})}));
  for (const char* op : {"Sub", "Mul", "Div"}) cases.add(binary_float_case(op, true));
  for (const char* op : {"Add", "Sub", "Mul", "Div", "Max"}) cases.add(binary_forms_case(op));
  // Quotients correctly rounded to fp32, exactly as the CPU divides (float_division.glsl): decimal
  // ratios land within an ULP of a half or of each other, where a GPU's approximate division (2.5
  // ULP, NVIDIA's) differs.
  cases.add(OpCase("Div", "correctly_rounded")
                .with_inputs({values({11}, {0.35, -2.5, 0.5, 2.55, 12.75, 0.15, 7.65, 1.05, 1, 2, 3}),
                              values({11}, {0.1, 5.0 / 255, 5.0 / 255, 0.1, 0.1, 0.1, 0.1, 0.1, 3, 3, 7})})
                .tol_f32({0, 0, 0})
                .skip(Backend::vulkan_f16));  // fp16 storage rounds the quotients anyway
  // NaN propagates through Max and Min.
  for (const char* op : {"Min", "Max"})
    cases.add(binary_float_case(op, true, {inputs_variant("nan", {patched(f32({3, 8}), {{5, std::numeric_limits<double>::quiet_NaN()}}), f32({8})})}));
  // Pow of negative bases by integer exponents, float and integer types.
  cases.add(binary_float_case("Pow", false,
                              {inputs_variant("integer_exponents", {f32({3, 4}, -3, 3), values({4}, {2, 3, -1, 0})}),
                               inputs_variant("float_base_int_exponent", {f32({3, 4}, -3, 3), ints({4}, -2, 3)}),
                               inputs_variant("int_base_int_exponent", {ints({3, 4}, -4, 4), ints({4}, 0, 4)})})
                .may_fall_back(Backend::cpu));  // integer operands: the fast kernel takes float32 only
  // Float exponents on the fast kernel (spectrogram powers, distances): a scalar (a constant 2 is
  // x * x), per channel, same shape.
  cases.add(OpCase("Pow", "float_exponents")
                .in(f32({3, 37, 41}, 0, 3))
                .in(values({1}, {2}).constant())
                .tol_cpu({2.4e-7, 0, 0})  // x * x against the reference's std::pow: within 2 ulps
                .variants({{"constant_square", [](OpCase&) {}},
                           {"runtime_square", [](OpCase& v) { v.with_inputs({f32({3, 37, 41}, 0, 3), values({1}, {2})}); }},
                           {"per_channel", [](OpCase& v) { v.with_inputs({f32({2, 5, 7, 9}, 0.1, 3), f32({1, 5, 1, 1}, -2, 2)}); }},
                           {"same_shape", [](OpCase& v) { v.with_inputs({f32({4, 33}, 0.1, 2), f32({4, 33}, -3, 3)}); }}}));
  cases.add(binary_float_case("PRelu", false, {inputs_variant("slope_row", {f32({4, 6, 10}), f32({10})})}));
  // Mod: the result takes the divisor's sign (fmod 0, integers) or the dividend's (fmod 1). fp16
  // rounding moves quotients across integers, where a remainder jumps by the divisor: the signs
  // are checked at fp32 only.
  cases.add(binary_float_case("Mod", true,
                              {{"divisor_sign_float", [](OpCase& v) { v.with_inputs({f32({4, 9}, -10, 10), f32({9}, -4, 4)}).skip(Backend::vulkan_f16); }},
                               {"divisor_sign_int32", [](OpCase& v) { v.with_inputs({ints({4, 9}, -20, 20), ints({9}, -5, 5)}); }}})
                .sweep("fmod", {int64_t(1), int64_t(0)}));
  for (const char* op : {"Add", "Sub", "Mul"}) cases.add(binary_integer_case(op, true));
  for (const char* op : {"Div", "Min", "Max"}) cases.add(binary_integer_case(op, false));

  // Variadic: three broadcasting inputs, and one alone.
  for (const char* op : {"Sum", "Mean", "Max", "Min"})
    cases.add(OpCase(op, "variadic")
                  .in(f32({3, 1, 5}))
                  .in(f32({4, 1}))
                  .in(f32({5}))
                  .tol_cpu({0, 0, 0})
                  // The fast CPU kernel takes exactly two inputs; three or one stay with the reference.
                  .variants({{"three", [](OpCase& v) { v.may_fall_back(Backend::cpu); }},
                             inputs_variant("two", {f32({3, 1, 5}), f32({4, 1})}),
                             {"one", [](OpCase& v) { v.with_inputs({f32({2, 3})}).may_fall_back(Backend::cpu); }}}));

  cases.add(OpCase("BitShift", "both_directions")
                .in(ints({3, 5}, 0, 255, DType::u8))
                .in(ints({5}, 0, 7, DType::u8))
                .sweep("direction", {std::string("LEFT"), std::string("RIGHT")})
                .variants({{"uint8", [](OpCase&) {}},
                           {"int32", [](OpCase& v) { v.with_inputs({ints({3, 5}, 0, 100000), ints({5}, 0, 12)}); }}})
                .integers_only());
}

}  // namespace vx::optable

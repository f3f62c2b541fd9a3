// Element-wise unary ops over the range where each is defined and interesting, Clip's three
// spellings, Cast and CastLike between floats, integers and bools, EyeLike.
#include <limits>
#include <set>
#include <string>

#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

namespace {
// The ops fast/eltwise_unary.cpp runs (their cases add a threaded size).
const std::set<std::string> kFastUnary = {"Relu", "LeakyRelu", "Sigmoid", "HardSigmoid", "HardSwish", "Tanh", "Exp",
                                          "Log", "Erf", "Neg", "Abs", "Sqrt", "Reciprocal"};

struct UnaryRange {
  const char* op;
  float lo, hi;
  const char* attr = nullptr;  // one float attribute, when the op has one worth setting
  float value = 0;
};
}  // namespace

VX_OP_CASES(unary) {
  const UnaryRange ranges[] = {
      {"Relu", -3, 3},          {"LeakyRelu", -3, 3, "alpha", 0.2f},  {"Elu", -3, 3, "alpha", 0.7f},
      {"Sigmoid", -20, 20},     {"HardSigmoid", -5, 5},              {"HardSwish", -5, 5},
      {"Tanh", -12, 12},        {"Erf", -4, 4},                      {"Softplus", -20, 20},
      {"Sqrt", 0, 9},           {"Reciprocal", 0.1f, 4},             {"Exp", -10, 10},
      {"Log", 0.01f, 50},       {"Neg", -3, 3},                      {"Abs", -3, 3},
      {"Floor", -5, 5},         {"Ceil", -5, 5},                     {"Round", -5, 5},
      {"Sign", -2, 2},          {"Sin", -6, 6},                      {"Cos", -6, 6},
      {"Tan", -1.2f, 1.2f},     {"Selu", -3, 3},                     {"Celu", -3, 3, "alpha", 1.5f},
      {"ThresholdedRelu", -3, 3, "alpha", 0.5f}, {"Softsign", -5, 5}, {"Asin", -0.99f, 0.99f},
      {"Acos", -0.99f, 0.99f},  {"Atan", -5, 5},                     {"Sinh", -4, 4},
      {"Cosh", -4, 4},          {"Asinh", -5, 5},                    {"Acosh", 1.01f, 5},
      {"Atanh", -0.9f, 0.9f},   {"Shrink", -2, 2, "lambd", 0.7f},    {"Identity", -3, 3},
  };
  for (const UnaryRange& r : ranges) {
    OpCase c(r.op, "range");
    InputSpec x = f32({1, 3, 5, 7}, r.lo, r.hi);
    if (std::string(r.op) == "Round") x = patched(x, {{0, 2.5}, {1, -0.5}});  // halves round to even
    c.in(x).scale_last(2);
    if (r.attr) c.attr(r.attr, r.value);
    // Vulkan allows sin / cos / tan an absolute error of 2^-11; lavapipe does far better.
    if (std::string(r.op) == "Sin" || std::string(r.op) == "Cos" || std::string(r.op) == "Tan") c.tol_f32({1e-5, 1e-5});
    const std::string op = r.op;
    std::vector<Variant> variants;
    // Ops with a fast CPU kernel (fast/eltwise_unary.cpp) also run above its threading threshold
    // (82838 elements, chunks of 1024), and match the reference exactly (its float expression).
    if (kFastUnary.count(op)) {
      variants.push_back(inputs_variant("threaded", {f32({2, 7, 97, 61}, r.lo, r.hi)}));
      c.tol_cpu({0, 0, 0});
    }
    if (op == "Neg" || op == "Abs" || op == "Sign")
      variants.push_back({"int32", [](OpCase& v) {
                            // The fast CPU kernels take f32 only: integers stay with the reference.
                            v.with_inputs({ints({4, 5}, -9, 9)}).may_fall_back(Backend::cpu);
                          }});
    if (op == "Exp") variants.push_back(inputs_variant("scalar", {scalar(0.5)}));
    if (op == "Sigmoid") variants.push_back(inputs_variant("rank_1", {f32({1})}));
    // Relu maps NaN to 0 in the reference, and the fast kernel must too; GLSL leaves max(NaN, 0)
    // undefined, so Vulkan is not held to it.
    if (op == "Relu")
      variants.push_back({"nan", [](OpCase& v) {
                            v.with_inputs({patched(f32({3, 7}, -3, 3), {{2, std::numeric_limits<double>::quiet_NaN()}})})
                                .skip(kVulkan);
                          }});
    if (!variants.empty()) {
      variants.insert(variants.begin(), {op == "Neg" || op == "Abs" || op == "Sign" ? "float" : "4d", [](OpCase&) {}});
      c.variants(std::move(variants));
    }
    cases.add(std::move(c));
  }
  cases.add(OpCase("Gelu", "both_forms")
                .in(f32({1, 3, 5, 7}, -4, 4))
                .opset(20)
                .scale_last(2)
                .sweep("approximate", {std::string("none"), std::string("tanh")}));

  // Clip: attributes (opset 6) or none, a constant min alone, runtime bounds, no bounds, NaN, a
  // threaded size (the fast kernel), integers.
  cases.add(OpCase("Clip", "bounds")
                .in(f32({2, 3, 5}, -3, 3))
                .tol_cpu({0, 0, 0})  // the fast kernel makes the reference's comparisons: exact
                .variants({{"opset6_attributes", [](OpCase& v) { v.opset(6).attr("min", -1.0f).attr("max", 0.5f); }},
                           {"constant_min_only", [](OpCase& v) { v.in(scalar(-0.5).constant()).in(omitted()); }},
                           {"runtime_bounds", [](OpCase& v) { v.in(scalar(-0.5)).in(scalar(1.0)); }},
                           {"runtime_max_only", [](OpCase& v) { v.in(omitted()).in(scalar(0.25)); }},
                           {"no_bounds", [](OpCase&) {}},
                           {"opset6_no_attributes", [](OpCase& v) { v.opset(6); }},
                           // Clip passes NaN through in the reference (the fast kernel too); GLSL's
                           // clamp leaves it undefined, so Vulkan is not held to it.
                           {"nan", [](OpCase& v) {
                              v.with_inputs({patched(f32({2, 3, 5}, -3, 3), {{4, std::numeric_limits<double>::quiet_NaN()}}),
                                             scalar(-0.5).constant(), scalar(1.0).constant()})
                                  .skip(kVulkan);
                            }},
                           inputs_variant("threaded", {f32({2, 7, 97, 61}, -8, 8), scalar(0).constant(), scalar(6).constant()}),
                           {"int32", [](OpCase& v) {
                              // The fast CPU kernel takes f32 only: integers stay with the reference.
                              v.with_inputs({ints({11}, -9, 9), scalar(-3, DType::i32).constant(), scalar(4, DType::i32).constant()})
                                  .may_fall_back(Backend::cpu);
                            }}}));

  // Cast from float (a zero among values beyond every integer type's range) and to float.
  std::vector<Variant> casts;
  for (int64_t to : {6, 7, 9, 2, 3, 10})
    casts.push_back({cat("from_float_to", to), [to](OpCase& v) {
                       v.in(patched(f32({3, 7}, -300, 300), {{0, 0}})).attr("to", to).tol_f32({1e-3, 1e-6});
                     }});
  casts.push_back({"int64_to_float", [](OpCase& v) { v.in(ints({9}, -50, 50, DType::i64)).attr("to", int64_t(1)); }});
  casts.push_back({"bool_to_float", [](OpCase& v) { v.in(bools({9})).attr("to", int64_t(1)); }});
  // NaN and infinities to integers (0, then saturated), integers narrowed (wrapping) and to bool.
  // Not on Vulkan: SPIR-V leaves out-of-range float-to-integer conversions undefined, and int64
  // values reach the device as int32.
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  for (int64_t to : {6, 7, 9})
    casts.push_back({cat("specials_to", to), [to, inf, nan](OpCase& v) {
                       v.in(patched(f32({2, 5}, -3, 3), {{0, nan}, {1, inf}, {2, -inf}, {3, 3e9}, {4, -3e9}})).attr("to", to).skip(kVulkan);
                     }});
  casts.push_back({"int64_to_int32_wraps", [](OpCase& v) {
                     v.in(values({4}, {5e9, -5e9, 2147483648.0, -7}, DType::i64)).attr("to", int64_t(6)).skip(kVulkan);
                   }});
  casts.push_back({"int32_to_bool", [](OpCase& v) { v.in(ints({9}, -2, 2)).attr("to", int64_t(9)); }});
  casts.push_back({"bool_to_int64", [](OpCase& v) {  // int64 results are shape arithmetic: the CPU's on Vulkan
                     v.in(bools({9})).attr("to", int64_t(7)).may_fall_back(kVulkan);
                   }});
  casts.push_back({"threaded_float_to_int64", [](OpCase& v) { v.in(f32({300, 257}, -1000, 1000)).attr("to", int64_t(7)); }});
  cases.add(OpCase("Cast", "types").variants(std::move(casts)));
  cases.add(OpCase("CastLike", "to_the_targets_type")
                .in(f32({3, 7}, -100, 100))
                .variants({inputs_variant("to_int32", {f32({3, 7}, -100, 100), ints({1}, 0, 1)}),
                           inputs_variant("int32_to_float", {ints({3, 7}, -100, 100), f32({1})})}));

  cases.add(OpCase("EyeLike", "diagonals")
                .variants({{"k0", [](OpCase& v) { v.in(f32({4, 6})).attr("k", int64_t(0)); }},
                           {"k2", [](OpCase& v) { v.in(f32({4, 6})).attr("k", int64_t(2)); }},
                           {"k-1", [](OpCase& v) { v.in(f32({4, 6})).attr("k", int64_t(-1)); }},
                           {"k9", [](OpCase& v) { v.in(f32({4, 6})).attr("k", int64_t(9)); }},
                           {"int32", [](OpCase& v) { v.in(f32({5, 3})).attr("dtype", int64_t(6)); }}}));

  // vx.ElementwiseChain (passes/fuse_elementwise_chains.h): a mel-spectrogram's Clip, Log and
  // scale-and-shift; Exp, HardSwish and a LeakyRelu; four steps on a tensor of odd size.
  auto chain = [](const char* name, std::vector<std::string> ops, std::vector<float> alpha, std::vector<float> beta) {
    return Variant{name, [=](OpCase& v) { v.attr("post_ops", ops).attr("post_alpha", alpha).attr("post_beta", beta); }};
  };
  cases.add(OpCase(kElementwiseChain, "steps")
                .in(f32({3, 37, 5}, -4, 4))
                .variants({chain("clip_log_linear", {"clip", "log", "linear"}, {1e-10f, 0, 0.4342945f}, {3.4e38f, 0, -2.0f}),
                           chain("exp_hard_swish_leaky", {"exp", "hard_swish", "relu"}, {0, 0, 0.1f}, {0, 0, 0}),
                           chain("four_steps", {"linear", "logistic", "tanh", "clip"}, {2.0f, 0, 0, -0.5f}, {0.5f, 0, 0, 0.5f})})
                .tol_f32({1e-5, 1e-6}));
}

}  // namespace vx::optable

// Quantisation: QuantizeLinear (ties to even, saturation at both ends, scalar and per-axis, uint8,
// int8 and int32), DequantizeLinear, DynamicQuantizeLinear (ranges across zero, all positive, all
// negative, tiny, all zeros).
#include "ops/fused_ops.h"
#include "ops/op_table.h"

namespace vx::optable {

VX_OP_CASES(quantize) {
  // Values with exact halves after dividing by 2 (ties), beyond both saturation ends, and random.
  const InputSpec x = patched(f32({2, 3, 5}, -400, 400), {{0, 3}, {1, 5}, {2, -3}, {3, -5}, {4, 1}, {5, 1000}, {6, -1000}, {7, 0}});
  std::vector<Variant> quantize;
  for (DType t : {DType::u8, DType::i8, DType::i32}) {
    const int lo = t == DType::u8 ? 0 : -20, hi = t == DType::u8 ? 40 : 20;
    const std::string name(dtype_name(t));
    quantize.push_back(inputs_variant("scalar_to_" + name, {x, scalar(2.0), ints({}, lo, hi, t)}));
    quantize.push_back({"per_axis_to_" + name, [x, lo, hi, t](OpCase& v) {
                          v.with_inputs({x, values({3}, {2.0, 0.5, 4.0}), ints({3}, lo, hi, t)}).attr("axis", int64_t(1));
                        }});
  }
  quantize.push_back(inputs_variant("no_zero_point", {x, scalar(3.0)}));
  // Quotients within a few ULP of a half (0.1 is not a binary fraction): an approximate division,
  // which Vulkan allows, rounds some the other way (float_division.glsl).
  quantize.push_back(inputs_variant("near_halves", {values({8}, {0.25, 0.35, 0.45, 2.55, 12.75, 0.15, 7.65, 1.05}),
                                                    scalar(0.1)}));
  cases.add(OpCase("QuantizeLinear", "scalar_and_per_axis").opset(13).variants(std::move(quantize)));

  std::vector<Variant> dequantize;
  for (DType t : {DType::u8, DType::i8, DType::i32}) {
    const int lo = t == DType::u8 ? 0 : -128, hi = t == DType::u8 ? 255 : 127;
    const std::string name(dtype_name(t));
    dequantize.push_back(inputs_variant("scalar_from_" + name, {ints({3, 4, 2}, lo, hi, t), scalar(0.25), ints({}, lo / 4, hi / 4, t)}));
    dequantize.push_back({"per_axis_from_" + name, [lo, hi, t](OpCase& v) {
                            v.with_inputs({ints({3, 4, 2}, lo, hi, t), f32({4}, 0.01f, 2), ints({4}, lo / 4, hi / 4, t)}).attr("axis", int64_t(-2));
                          }});
  }
  cases.add(OpCase("DequantizeLinear", "scalar_and_per_axis").opset(13).variants(std::move(dequantize)));
  // Sizes the CPU's fast kernels split between threads: a QDQ model's activations (per tensor, runs
  // longer than a task) and weights (per output channel, many short runs).
  cases.add(OpCase("QuantizeLinear", "threaded")
                .opset(13)
                .variants({inputs_variant("activations_per_tensor", {f32({1, 16, 57, 59}, -8, 8), scalar(0.05), ints({}, 120, 130, DType::u8)}),
                           {"weights_per_channel", [](OpCase& v) {
                              v.with_inputs({f32({96, 32, 3, 3}), f32({96}, 0.002f, 0.01f), ints({96}, 0, 0, DType::i8)}).attr("axis", int64_t(0));
                            }}}));
  cases.add(OpCase("DequantizeLinear", "threaded")
                .opset(13)
                .variants({inputs_variant("activations_per_tensor", {ints({1, 16, 57, 59}, 0, 255, DType::u8), scalar(0.05),
                                                                     ints({}, 120, 130, DType::u8)}),
                           {"weights_per_channel", [](OpCase& v) {
                              v.with_inputs({ints({96, 32, 3, 3}, -127, 127, DType::i8), f32({96}, 0.002f, 0.01f)}).attr("axis", int64_t(0));
                            }}}));

  // vx.FakeQuantize (a per-tensor Q -> DQ pair, fused on the CPU): ties, both saturation ends, and
  // a size the fast kernel splits between threads. Not on Vulkan: only the CPU pipeline creates it
  // (a Vulkan graph keeps the pairs, which it has kernels for).
  cases.add(OpCase(kFakeQuantize, "ranges")
                .attr("scale", 2.0f)
                .variants({{"uint8", [x](OpCase& v) { v.in(x).attr("zero_point", int64_t(20)).attr("qmin", int64_t(0)).attr("qmax", int64_t(255)); }},
                           {"int8", [x](OpCase& v) { v.in(x).attr("zero_point", int64_t(-3)).attr("qmin", int64_t(-128)).attr("qmax", int64_t(127)); }},
                           {"threaded", [](OpCase& v) {
                              v.in(f32({2, 16, 61, 67}, -300, 300)).attr("zero_point", int64_t(128)).attr("qmin", int64_t(0)).attr("qmax", int64_t(255));
                            }}})
                .skip(kVulkan));

  std::vector<Variant> dynamic;
  for (auto [lo, hi] : std::vector<std::pair<float, float>>{{-3, 7}, {0.5f, 9}, {-6, -1}, {-1e-3f, 2e-3f}})
    for (Shape s : {Shape{7}, Shape{3, 301}}) dynamic.push_back(inputs_variant(cat("[", lo, ",", hi, "]_", s.str()), {f32(s, lo, hi)}));
  dynamic.push_back(inputs_variant("zeros", {values({5}, {0, 0, 0, 0, 0})}));  // scale 0, zero point 0
  // ONNX's own case: -2.5 / (5 / 255) is -127.49999 in fp32, beside the half.
  dynamic.push_back(inputs_variant("onnx_near_half", {values({6}, {0, 2, -3, -2.5f, 1.34f, 0.5f})}));
  cases.add(OpCase("DynamicQuantizeLinear", "ranges").opset(11).outputs(3).variants(std::move(dynamic)));
}

}  // namespace vx::optable

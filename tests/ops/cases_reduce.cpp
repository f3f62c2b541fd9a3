// Reductions over attribute and input axes (keepdims, noop_with_empty_axes, integer types), ArgMax
// and ArgMin (ties: the index rule matters), CumSum (exclusive, reverse, runtime axis) and TopK.
#include "ops/op_table.h"

namespace vx::optable {

namespace {
// Values that keep every reduction finite (LogSum needs positive sums, Prod moderate magnitudes).
InputSpec reduce_data(const std::string& op, Shape shape) {
  if (op == "ReduceLogSum") return f32(std::move(shape), 0.1f, 1.0f);
  if (op == "ReduceProd") return f32(std::move(shape), 0.8f, 1.25f);
  return f32(std::move(shape), -1.0f, 1.0f);
}
}  // namespace

VX_OP_CASES(reduce) {
  const char* reductions[] = {"ReduceSum", "ReduceMean", "ReduceMax",       "ReduceMin",       "ReduceProd",
                              "ReduceL1",  "ReduceL2",   "ReduceLogSum",    "ReduceLogSumExp", "ReduceSumSquare"};
  const std::vector<std::vector<int64_t>> axes_cases = {{}, {1}, {-1}, {0, 2}, {1, 3}, {0, 1, 2, 3}};
  for (const char* name : reductions) {
    const std::string op = name;
    std::vector<Variant> axes;
    for (const auto& a : axes_cases)
      for (int64_t keep : {0, 1})
        axes.push_back({cat("axes", Shape(a).str(), "_keepdims", keep), [op, a, keep](OpCase& v) {
                          v.in(reduce_data(op, {2, 3, 5, 7})).attr("keepdims", keep).opset(op == "ReduceSum" ? 11 : 13);
                          if (!a.empty()) v.attr("axes", a);
                        }});
    // Opset 18: the axes as an input, none (every axis), none with noop_with_empty_axes.
    axes.push_back({"opset18_axes_input", [op](OpCase& v) { v.in(reduce_data(op, {2, 1, 9})).in(i64s({-1, 0}).constant()); }});
    axes.push_back({"opset18_all_axes", [op](OpCase& v) { v.in(reduce_data(op, {2, 1, 9})); }});
    axes.push_back({"opset18_noop", [op](OpCase& v) {
                      v.in(reduce_data(op, {2, 1, 9})).in(values({0}, {}, DType::i64).constant()).attr("noop_with_empty_axes", int64_t(1));
                    }});
    // Long axes reduce in workgroups (a product of 3001 factors would overflow fp16).
    if (op != "ReduceProd")
      axes.push_back({"3x3001_last_axis", [op](OpCase& v) {
                      v.in(reduce_data(op, {3, 3001})).opset(13).attr("axes", std::vector<int64_t>{-1});
                    }});
    if (op != "ReduceLogSum" && op != "ReduceL2" && op != "ReduceLogSumExp")
      axes.push_back({"int32", [op](OpCase& v) {
                        v.in(op == "ReduceProd" ? ints({3, 5, 2}, -3, 3) : ints({3, 50, 2}, -100, 100))
                            .opset(13)
                            .attr("axes", std::vector<int64_t>{1});
                      }});
    // The fast CPU kernel (oneDNN's, cases "onednn" below) takes only the axes oneDNN has a JIT kernel for.
    cases.add(OpCase(op, "axes").opset(18).tol_f32({1e-5, 1e-5}).tol_f16({1e-2, 1e-3}).variants(std::move(axes))
                  .may_fall_back(Backend::cpu));
  }
  // oneDNN's JIT reductions (fast/reduce_onednn.cpp): every axis (the mel front end's ReduceMax),
  // trailing axes, the last one of a long row.
  for (const char* op : {"ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin"})
    cases.add(OpCase(op, "onednn")
                  .opset(13)
                  .tol_f32({1e-5, 1e-5})
                  .tol_f16({1e-2, 1e-3})
                  .variants({{"all_axes", [](OpCase& v) { v.in(f32({1, 1, 97, 32})).attr("keepdims", int64_t(0)); }},
                             {"trailing_axes", [](OpCase& v) {
                                v.in(f32({2, 24, 9, 7})).attr("axes", std::vector<int64_t>{2, 3});
                              }},
                             {"last_axis_3001", [](OpCase& v) {
                                v.in(f32({3, 3001})).attr("axes", std::vector<int64_t>{-1}).attr("keepdims", int64_t(0));
                              }}})
                  .expect_variant(Backend::cpu, "onednn"));
  cases.add(OpCase("ReduceSum", "large")
                .opset(13)
                .in(f32({37, 5, 41}).scaled({0, 2}))
                .attr("axes", std::vector<int64_t>{0, 2})
                .tol_f32({1e-5, 1e-5})
                .tol_f16({1e-2, 1e-3})
                .may_fall_back(Backend::cpu));

  // Float data is no shape computation, so the node runs on the GPU (integer ArgMax with a host
  // input would be one, kept on the CPU by design: tests/parity/vulkan_ops_reduce_test.cpp puts an
  // Identity in front to test it on the GPU).
  for (const char* op : {"ArgMax", "ArgMin"})
    cases.add(OpCase(op, "ties")
                  .opset(13)
                  .in(f32({4, 300, 3}))
                  .sweep("axis", {int64_t(0), int64_t(1), int64_t(-1)})
                  .sweep("keepdims", {int64_t(0), int64_t(1)})
                  .sweep("select_last_index", {int64_t(0), int64_t(1)}));

  std::vector<Variant> cumsum;
  for (int64_t axis : {0, 1, -1}) {
    cumsum.push_back({cat("axis", axis), [axis](OpCase& v) { v.in(f32({2, 9, 5})).in(i64s({axis}).constant()); }});
    cumsum.push_back({cat("axis", axis, "_int32"), [axis](OpCase& v) { v.in(ints({2, 9, 5}, -50, 50)).in(i64s({axis}).constant()); }});
    // The axis computed at run time (a graph input here), read by the shader.
    cumsum.push_back({cat("runtime_axis", axis), [axis](OpCase& v) { v.in(f32({3, 4, 5})).in(scalar(double(axis), DType::i64)); }});
    cumsum.push_back({cat("runtime_axis", axis, "_int32"), [axis](OpCase& v) {
                        v.in(ints({3, 4, 5}, -9, 9)).in(values({1}, {double(axis)}, DType::i32));
                      }});
  }
  cumsum.push_back({"rank_1", [](OpCase& v) { v.in(f32({7})).in(scalar(0, DType::i32).constant()); }});
  cases.add(OpCase("CumSum", "directions")
                .opset(14)
                .tol_f32({1e-5, 1e-5})
                .tol_f16({1e-2, 1e-3})
                .sweep("exclusive", {int64_t(0), int64_t(1)})
                .sweep("reverse", {int64_t(0), int64_t(1)})
                .variants(std::move(cumsum)));

  // TopK moves values (exact) and picks indices (exact); many ties among the integers.
  cases.add(OpCase("TopK", "axes")
                .opset(11)
                .outputs(2)
                .in(f32({4, 9, 5}))
                .in(i64s({3}).constant())
                .tol_f32({0, 0})
                .tol_f16({0, 0})
                .sweep("axis", {int64_t(-1), int64_t(0), int64_t(1)})
                .sweep("largest", {int64_t(1), int64_t(0)})
                .variants({{"float", [](OpCase&) {}},
                           inputs_variant("int32", {ints({4, 9, 5}, -2, 2), i64s({3}).constant()})}));
  cases.add(OpCase("TopK", "long_and_whole")
                .outputs(2)
                .tol_f32({0, 0})
                .tol_f16({0, 0})
                .variants({{"opset1_k5_of_1000", [](OpCase& v) { v.opset(1).in(f32({2, 1000})).attr("k", int64_t(5)); }},
                           {"all_of_rank_1", [](OpCase& v) { v.opset(11).in(f32({7})).in(i64s({7}).constant()); }}}));
}

}  // namespace vx::optable

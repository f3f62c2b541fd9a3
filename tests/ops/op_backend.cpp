#include "ops/op_backend.h"

#include <cmath>
#include <memory>

#include "backends/cpu/cpu_executable.h"
#include "common/test_util.h"

namespace vx::optable {
namespace {

Shape scaled_shape(Shape shape, const std::vector<int>& axes, int scale) {
  if (scale <= 1) return shape;
  for (int axis : axes) {
    const int rank = int(shape.rank());
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank || shape[size_t(a)] <= 1) continue;  // absent, or broadcast
    shape[size_t(a)] *= scale;
  }
  return shape;
}

std::map<std::string, Shape> input_shapes(const test::SingleNodeCase& sc) {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < sc.inputs.size(); ++i) shapes[sc.graph.value(sc.graph.inputs[i]).name] = sc.inputs[i].shape();
  return shapes;
}

CheckOutcome failed(std::string why) { return {CheckOutcome::Status::failed, std::move(why)}; }
CheckOutcome skipped(std::string why) { return {CheckOutcome::Status::skipped, std::move(why)}; }

// The oracle twice (determinism), its outputs against shape inference and the hand-computed values.
CheckOutcome check_reference(const OpCase& c, const test::SingleNodeCase& sc) {
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(sc.graph, input_shapes(sc), true), options);
  const std::vector<Tensor> first = exe.run(sc.inputs), second = exe.run(sc.inputs);
  if (first.size() != c.num_outputs()) return failed(cat(first.size(), " outputs, the case declares ", c.num_outputs()));
  const Plan& plan = exe.plan();
  for (size_t k = 0; k < first.size(); ++k) {
    const ValueId id = plan.graph.outputs.at(k);
    if (plan.shape_known.at(size_t(id)) && plan.graph.value(id).shape != first[k].shape())
      return failed(cat("output ", k, " has shape ", first[k].shape().str(), ", shape inference says ",
                        plan.graph.value(id).shape.str()));
  }
  if (std::string d = compare_outputs(first, second, {}); !d.empty()) return failed("two runs differ: " + d);
  if (!c.expected().empty())
    if (std::string d = compare_outputs(c.expected(), first, c.tolerance(Backend::cpu_reference)); !d.empty())
      return failed("against the hand-computed values: " + d);
  return {};
}

CheckOutcome check_cpu(const OpCase& c, const test::SingleNodeCase& sc) {
  cpu::CpuExecutable exe(cpu::make_cpu_plan(sc.graph, input_shapes(sc), false));
  const Plan& plan = exe.plan();
  const Node& node = plan.graph.nodes.at(size_t(plan.steps.at(0).node));
  const cpu::KernelEntry* kernel = cpu::choose_kernel(node, plan.graph, false);
  const std::string variant = kernel ? kernel->variant : "none";
  std::string note;
  if (!kernel || kernel->priority == 0) {
    note = cat("no fast CPU kernel accepted the node (", variant, ")");
    if (!c.may_fall_back_on(Backend::cpu)) return failed(note + "; the case requires a fast kernel");
  }
  if (auto want = c.expected_variant(Backend::cpu); want && variant.rfind(*want, 0) != 0)
    return failed(cat("CPU kernel variant ", variant, ", expected ", *want));
  const std::vector<Tensor> got = exe.run(sc.inputs);
  if (std::string d = compare_outputs(run_reference(sc), got, c.tolerance(Backend::cpu)); !d.empty())
    return failed(cat("cpu (", variant, ") against the reference: ", d));
  return {CheckOutcome::Status::passed, note};
}

CheckOutcome check_vulkan(const OpCase& c, const test::SingleNodeCase& sc, Backend b) {
  std::string reason;
  const vk::VulkanContext* ctx = test::vulkan_test_context(&reason);
  if (!ctx) return skipped("no Vulkan device: " + reason);
  const Precision precision = b == Backend::vulkan_f16 ? Precision::fp16 : Precision::fp32;
  if (precision == Precision::fp16 && !ctx->fp16_enabled())
    return skipped(cat("the device (", ctx->info().name, ") has no fp16 storage"));
  const size_t seen_messages = ctx->validation_messages().size();
  const std::vector<Tensor> expected =
      run_reference(precision == Precision::fp16 ? rounded_to_fp16(sc) : sc);
  const test::VulkanRun run = test::run_on_vulkan(*ctx, sc.graph, sc.inputs, precision);
  std::string note, variant;
  for (const auto& p : run.placements) {
    if (p.op == c.op()) variant = p.on_host ? "cpu" : p.variant;
    if (!p.on_host) continue;
    const std::string where = cat("node '", p.node, "' (", p.op, ") ran on the CPU: ", p.reason);
    if (!c.may_fall_back_on(b)) return failed(where + "; the case requires " + backend_name(b));
    note += (note.empty() ? "" : "; ") + where;
  }
  if (auto want = c.expected_variant(b); want && variant.rfind(*want, 0) != 0)
    return failed(cat("Vulkan variant ", variant, ", expected ", *want));
  std::string failure;
  if (std::string d = compare_outputs(expected, run.outputs, c.tolerance(b)); !d.empty())
    failure = cat(backend_name(b), " (", variant, ") against the reference: ", d);
  const std::vector<std::string> messages = ctx->validation_messages();
  for (size_t i = seen_messages; i < messages.size(); ++i) failure += "\nvalidation: " + messages[i];
  if (!failure.empty()) return failed(failure);
  return {CheckOutcome::Status::passed, note};
}

}  // namespace

test::SingleNodeCase build_case(const OpCase& c, int scale) {
  std::vector<test::NodeInput> inputs;
  const uint64_t seed = c.case_seed();
  for (size_t i = 0; i < c.inputs().size(); ++i) {
    const InputSpec& in = c.inputs()[i];
    if (in.kind == InputSpec::Kind::omitted) {
      inputs.push_back(test::omitted());
      continue;
    }
    Tensor value = in.generate(scaled_shape(in.shape, c.scaled_axes(i), scale), in.dtype, seed * 100 + i);
    inputs.push_back(in.kind == InputSpec::Kind::constant ? test::constant(value) : test::input(value));
  }
  test::SingleNodeCase sc =
      test::single_node(c.op(), inputs, c.num_outputs(), c.attrs(), c.op_opset(), c.op_domain());
  for (size_t k = 0; k < c.declared_outputs().size() && k < sc.graph.outputs.size(); ++k) {
    const OpCase::DeclaredOutput& d = c.declared_outputs()[k];
    if (!d.set) continue;
    sc.graph.value(sc.graph.outputs[k]).shape = d.shape;
    sc.graph.value(sc.graph.outputs[k]).dtype = d.dtype;
  }
  return sc;
}

test::SingleNodeCase rounded_to_fp16(const test::SingleNodeCase& sc) {
  test::SingleNodeCase r = sc;
  r.inputs = test::round_to_fp16(sc.inputs);
  for (Value& v : r.graph.values)
    if (v.is_constant() && v.constant.dtype() == DType::f32) v.constant = test::round_to_fp16({v.constant})[0];
  return r;
}

std::vector<Tensor> run_reference(const test::SingleNodeCase& sc) {
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(sc.graph, input_shapes(sc), true), options);
  return exe.run(sc.inputs);
}

std::string compare_outputs(const std::vector<Tensor>& expected, const std::vector<Tensor>& got, CaseTolerance tol) {
  if (expected.size() != got.size()) return cat(got.size(), " outputs, expected ", expected.size());
  for (size_t k = 0; k < expected.size(); ++k) {
    double peak = 0;
    if (tol.peak > 0)
      for (int64_t i = 0; i < expected[k].numel(); ++i)
        if (std::isfinite(expected[k].get(i))) peak = std::max(peak, std::abs(expected[k].get(i)));
    const test::Tolerance t{tol.rtol, tol.atol + tol.peak * peak};
    const ::testing::AssertionResult r = test::outputs_match({expected[k]}, {got[k]}, t);
    if (!r) {
      std::string m = r.message();
      if (m.rfind("output 0 ", 0) == 0) m = m.substr(9);  // outputs_match saw one output: name the real one
      return cat("output ", k, " ", m, tol.peak > 0 ? cat(" (atol includes ", tol.peak, " x peak ", peak, ")") : "");
    }
  }
  return "";
}

CheckOutcome check_concrete_case(const OpCase& c, Backend b) {
  try {
    std::vector<std::unique_ptr<test::ScopedEnv>> env;
    for (const auto& [name, value] : c.environment())
      env.push_back(std::make_unique<test::ScopedEnv>(name.c_str(), value.c_str()));
    const test::SingleNodeCase sc = build_case(c);
    switch (b) {
      case Backend::cpu_reference:
        return check_reference(c, sc);
      case Backend::cpu:
        return check_cpu(c, sc);
      case Backend::vulkan_f32:
      case Backend::vulkan_f16:
        return check_vulkan(c, sc, b);
    }
  } catch (const std::exception& e) {
    return failed(cat(backend_name(b), ": ", e.what()));
  }
  return failed("unknown backend");
}

CheckOutcome check_case(const OpCase& c, Backend b) {
  const std::vector<OpCase> variants = c.expand();
  CheckOutcome all;
  size_t failures = 0;
  for (const OpCase& v : variants) {
    if (v.skips(b)) continue;  // a variant may leave out a backend (say why where it does)
    CheckOutcome one = check_concrete_case(v, b);
    if (one.status == CheckOutcome::Status::skipped) return one;  // no device: every variant alike
    if (one.message.empty()) continue;
    const std::string where = v.variant_label().empty() ? "" : "[" + v.variant_label() + "] ";
    if (one.status == CheckOutcome::Status::failed) {
      if (!failures++) all.message.clear();  // notes of passing variants would bury the failures
      all.status = CheckOutcome::Status::failed;
    } else if (all.status == CheckOutcome::Status::failed) {
      continue;
    }
    all.message += (all.message.empty() ? "" : "\n") + where + one.message;
  }
  if (failures && variants.size() > 1) all.message = cat(failures, " of ", variants.size(), " variants failed:\n", all.message);
  return all;
}

}  // namespace vx::optable

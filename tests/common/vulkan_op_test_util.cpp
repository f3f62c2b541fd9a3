#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"
#include "common/vulkan_op_test_util.h"

#include <cmath>
#include <memory>

#include "core/half.h"
#include "backends/cpu/eager_runner.h"

namespace vx::test {

SingleNodeCase single_node(const std::string& op, const std::vector<NodeInput>& inputs, size_t num_outputs,
                           Attributes attrs, int64_t opset, const std::string& domain) {
  SingleNodeCase c;
  Graph& g = c.graph;
  g.name = op + "_test";
  g.opsets[""] = opset;
  if (!domain.empty()) g.opsets[domain] = 1;
  std::vector<ValueId> ins;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const NodeInput& in = inputs[i];
    if (!in.value.defined()) {
      ins.push_back(kNoValue);
    } else if (in.constant) {
      ins.push_back(g.add_constant(cat("c", i), in.value));
    } else {
      ValueId id = g.add_value(cat("x", i), in.value.dtype(), in.value.shape());
      g.inputs.push_back(id);
      c.inputs.push_back(in.value);
      ins.push_back(id);
    }
  }
  std::vector<ValueId> outs;
  for (size_t i = 0; i < num_outputs; ++i) outs.push_back(g.add_value(cat("y", i), DType::f32, Shape{}));
  Node& node = g.add_node(op, op + "_node", ins, outs, std::move(attrs));
  node.domain = domain;
  g.outputs = outs;
  return c;
}

std::vector<Tensor> run_cpu_reference(const Graph& graph, const std::vector<Tensor>& inputs) {
  return run_graph_eager(graph, inputs);
}

VulkanRun run_on_vulkan(const vk::VulkanContext& ctx, const Graph& graph, const std::vector<Tensor>& inputs,
                        Precision precision, const std::vector<Tensor>* first_inputs) {
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < inputs.size() && i < graph.inputs.size(); ++i)
    shapes[graph.value(graph.inputs[i]).name] = inputs[i].shape();
  runtime::ExecutableOptions options;
  options.precision = precision;
  // The op factories' kernels: a one-node 3x3 vx.FusedConv graph would otherwise be compiled as a
  // fused conv network (graph_executable.h, tested on its own).
  options.kernels = "ops";
  auto exe = make_executable(vk::compute_device(ctx), graph, shapes, options, &inputs);
  VulkanRun r;
  if (first_inputs) exe->run(*first_inputs);
  r.outputs = exe->run(inputs);
  r.placements = exe->placements();
  r.all_on_gpu = true;
  for (const auto& p : r.placements)
    if (p.on_host) r.all_on_gpu = false;
  return r;
}

Tolerance default_tolerance(Precision precision) {
  return precision == Precision::fp16 ? Tolerance{1e-2, 1e-3} : Tolerance{1e-5, 1e-6};
}

::testing::AssertionResult outputs_match(const std::vector<Tensor>& expected, const std::vector<Tensor>& got,
                                         Tolerance tol) {
  if (expected.size() != got.size())
    return ::testing::AssertionFailure() << got.size() << " outputs, expected " << expected.size();
  for (size_t k = 0; k < expected.size(); ++k) {
    const Tensor &e = expected[k], &a = got[k];
    if (e.dtype() != a.dtype())
      return ::testing::AssertionFailure()
             << "output " << k << " is " << dtype_name(a.dtype()) << ", expected " << dtype_name(e.dtype());
    if (!(e.shape() == a.shape()))
      return ::testing::AssertionFailure()
             << "output " << k << " has shape " << a.shape().str() << ", expected " << e.shape().str();
    const bool exact = e.dtype() != DType::f32 && e.dtype() != DType::f16;
    for (int64_t i = 0; i < e.numel(); ++i) {
      const double x = e.get(i), y = a.get(i);
      bool ok;
      if (exact)
        ok = x == y;
      else if (std::isnan(x) || std::isnan(y))
        ok = std::isnan(x) && std::isnan(y);
      else if (std::isinf(x) || std::isinf(y))
        ok = x == y;
      else
        ok = std::fabs(x - y) <= tol.atol + tol.rtol * std::fabs(x);
      if (!ok)
        return ::testing::AssertionFailure() << "output " << k << " element " << i << " is " << y << ", expected " << x
                                             << " (rtol " << tol.rtol << ", atol " << tol.atol << ")";
    }
  }
  return ::testing::AssertionSuccess();
}

std::vector<Tensor> round_to_fp16(const std::vector<Tensor>& inputs) {
  std::vector<Tensor> out;
  for (const Tensor& t : inputs) {
    if (t.dtype() != DType::f32) {
      out.push_back(t);
      continue;
    }
    Tensor r = t.clone();
    float* p = r.data<float>();
    for (int64_t i = 0; i < r.numel(); ++i) p[i] = half_to_float(float_to_half(p[i]));
    out.push_back(r);
  }
  return out;
}

namespace {

std::unique_ptr<vk::VulkanContext>& shared_test_context() {
  static std::unique_ptr<vk::VulkanContext> ctx;
  return ctx;
}

// Destroys the shared context when the tests end, before static destruction: by then a driver's
// own globals may be gone (NVIDIA's driver crashed in vkDestroyDevice at exit).
class ReleaseSharedTestContext : public ::testing::Environment {
 public:
  void TearDown() override { shared_test_context().reset(); }
};
[[maybe_unused]] ::testing::Environment* const release_shared_test_context =
    ::testing::AddGlobalTestEnvironment(new ReleaseSharedTestContext);

}  // namespace

const vk::VulkanContext* vulkan_test_context(std::string* skip_reason) {
  std::unique_ptr<vk::VulkanContext>& ctx = shared_test_context();
  static std::string reason;
  static bool tried = false;
  if (!tried) {
    tried = true;
    try {
      vk::ContextOptions o;
      o.validation = true;
      o.pipeline_cache_dir = "none";
      ctx = std::make_unique<vk::VulkanContext>(o);
    } catch (const Error& e) {
      reason = e.what();
    }
  }
  if (skip_reason) *skip_reason = reason;
  return ctx.get();
}

void VulkanOpTest::SetUp() {
  std::string reason;
  ctx_ = vulkan_test_context(&reason);
  if (!ctx_) {
    GTEST_SKIP() << "no Vulkan device: " << reason;
  }
  seen_messages_ = ctx_->validation_messages().size();
}

void VulkanOpTest::TearDown() {
  if (!ctx_) return;
  auto messages = ctx_->validation_messages();
  for (size_t i = seen_messages_; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
}

void VulkanOpTest::expect_matches_cpu(const SingleNodeCase& c, Precision precision, Tolerance tolerance,
                                      bool allow_cpu, const std::string& what) {
  if (tolerance.rtol < 0) tolerance = default_tolerance(precision);
  const std::string label = cat(what.empty() ? c.graph.nodes.at(0).op : what, " at ", precision_name(precision));
  std::vector<Tensor> ref_inputs = precision == Precision::fp16 ? round_to_fp16(c.inputs) : c.inputs;
  // Constants are rounded by the upload too.
  Graph ref_graph = c.graph;
  if (precision == Precision::fp16)
    for (Value& v : ref_graph.values)
      if (v.is_constant() && v.constant.dtype() == DType::f32) v.constant = round_to_fp16({v.constant})[0];
  std::vector<Tensor> expected;
  try {
    expected = run_cpu_reference(ref_graph, ref_inputs);
  } catch (const Error& e) {
    FAIL() << label << ": CPU reference failed: " << e.what();
  }
  VulkanRun run;
  try {
    run = run_on_vulkan(*ctx_, c.graph, c.inputs, precision);
  } catch (const Error& e) {
    FAIL() << label << ": Vulkan run failed: " << e.what();
  }
  if (!allow_cpu) {
    for (const auto& p : run.placements)
      EXPECT_FALSE(p.on_host) << label << ": node '" << p.node << "' (" << p.op << ") ran on the CPU: " << p.reason;
  }
  EXPECT_TRUE(outputs_match(expected, run.outputs, tolerance)) << label;
}

}  // namespace vx::test

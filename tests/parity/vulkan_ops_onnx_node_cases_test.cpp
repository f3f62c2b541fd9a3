// The ONNX backend suite's node cases (Debian's libonnx-testdata) of the Vulkan data-movement and
// reduction ops, run through the Vulkan model executor on lavapipe at fp32 with the validation layer
// on, against the suite's expected outputs: Transpose, Slice, Concat, Split, Expand, Tile, Pad,
// Gather, GatherElements, DepthToSpace, SpaceToDepth, Resize, Upsample, the aliases, Reduce*,
// ArgMax/ArgMin, Softmax/LogSoftmax/Hardmax, CumSum, TopK, GatherND, ScatterElements, ScatterND,
// NegativeLogLikelihoodLoss, SoftmaxCrossEntropyLoss, ReverseSequence.
// Every case must match (|d| <= 1e-5 + 1e-4 |ref|; integers exact). Nodes may fall back to the CPU
// only for the documented reasons: an operand that decides which elements move (Resize scales/roi;
// Reduce axes when the shapes do not tell them) given as a
// run-time graph input, or a Scatter reduction (add/mul/max/min).
// (fp16 storage is covered by the per-op tests; the suite's "large_number" Softmax cases and
// ReduceProd's 12! exceed fp16's range by design.)
// VulkanOnnxNodeCasesByPrecision: the same for the GEMM, Conv, pooling and normalisation ops, at fp32
// and fp16, with the tolerances of tests/common/vulkan_precision_test.h.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <string>

#include "backends/vulkan/vulkan_compute_device.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "session/device_model_runner.h"
#include "common/vulkan_precision_test.h"
#include "formats/onnx_import.h"

namespace vx::test {
namespace {

const char* kCasePrefixes[] = {
    "test_transpose", "test_slice",     "test_concat",       "test_split",        "test_expand",
    "test_tile",      "test_pad",       "test_constant_pad", "test_edge_pad",     "test_reflect_pad",
    "test_wrap_pad",  "test_gather_",   "test_depthtospace", "test_spacetodepth", "test_resize",
    "test_upsample",  "test_reshape",   "test_squeeze",      "test_unsqueeze",    "test_flatten",
    "test_identity",  "test_dropout",   "test_reduce",       "test_argmax",       "test_argmin",
    "test_softmax",   "test_logsoftmax", "test_hardmax",     "test_cumsum",       "test_top_k",
    "test_gathernd",  "test_scatter",   "test_scatternd",    "test_nllloss",      "test_sce",
    "test_reversesequence"};

// Cases whose models Volvox cannot import at all (optional and sequence values).
const char* kNotImportable[] = {"test_identity_opt", "test_identity_sequence"};

bool allowed_cpu_reason(const std::string& reason) {
  return reason.find("computed at run time") != std::string::npos ||
         reason.find("needs atomics") != std::string::npos;
}

class VulkanOnnxNodeCases : public VulkanOpTest {};

TEST_F(VulkanOnnxNodeCases, MovementAndReductionCasesMatch) {
  const std::filesystem::path root = "/usr/share/libonnx-testdata/data/node";
  if (!std::filesystem::is_directory(root))
    GTEST_SKIP() << root << " is absent: install the libonnx-testdata package";
  std::vector<std::filesystem::path> cases;
  for (const auto& e : std::filesystem::directory_iterator(root)) {
    const std::string n = e.path().filename().string();
    bool ours = std::any_of(std::begin(kCasePrefixes), std::end(kCasePrefixes),
                            [&](const char* p) { return n.rfind(p, 0) == 0; });
    bool skipped = std::any_of(std::begin(kNotImportable), std::end(kNotImportable), [&](const char* p) { return n == p; });
    if (ours && !skipped) cases.push_back(e.path());
  }
  std::sort(cases.begin(), cases.end());
  ASSERT_GT(cases.size(), 300u);
  size_t on_gpu = 0;
  for (const auto& dir : cases) {
    const std::string name = dir.filename().string();
    SCOPED_TRACE(name);
    Graph g = import_onnx(dir / "model.onnx");
    const std::filesystem::path set = dir / "test_data_set_0";
    std::vector<Tensor> inputs, expected;
    for (int i = 0; std::filesystem::exists(set / cat("input_", i, ".pb")); ++i)
      inputs.push_back(read_onnx_tensor_file(set / cat("input_", i, ".pb")));
    for (int i = 0; std::filesystem::exists(set / cat("output_", i, ".pb")); ++i)
      expected.push_back(read_onnx_tensor_file(set / cat("output_", i, ".pb")));
    VulkanRun run;
    try {
      run = run_on_vulkan(ctx(), g, inputs, Precision::fp32);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    for (const auto& p : run.placements)
      EXPECT_TRUE(p.preferred || p.by_design || allowed_cpu_reason(p.reason))
          << name << ": node " << p.node << " (" << p.op << ") ran on the CPU: " << p.reason;
    if (run.all_on_gpu) ++on_gpu;
    EXPECT_TRUE(outputs_match(expected, run.outputs, Tolerance{1e-4, 1e-5})) << name;
  }
  // Most cases give their operands as constants or attributes and run entirely on the GPU.
  EXPECT_GT(on_gpu, cases.size() * 3 / 4) << on_gpu << " of " << cases.size() << " cases ran entirely on the GPU";
}

// ---------------- the GEMM, Conv, pooling and normalisation ops, at fp32 and fp16 ----------------

class VulkanOnnxNodeCasesByPrecision : public VulkanPrecisionTest {};

// The ONNX backend suite's node cases of these ops, run by the executor against the expected
// outputs stored with them (float inputs rounded to fp16 for the fp16 run are not re-derived: the
// fp16 run compares with the stored fp32 outputs at the fp16 tolerance). The op's node must be
// placed on the GPU, except where a case needs an output the GPU does not compute (training-mode
// BatchNormalization, MaxPool's Indices): then it must fall back to the CPU and still match.
TEST_P(VulkanOnnxNodeCasesByPrecision, GemmConvPoolNormCasesMatch) {
  const char* env = std::getenv("VOLVOX_ONNX_TESTDATA");
  const std::filesystem::path root = std::filesystem::path(env ? env : "/usr/share/libonnx-testdata/data") / "node";
  if (!std::filesystem::exists(root)) GTEST_SKIP() << root << " is absent: install libonnx-testdata";
  const std::vector<std::string> prefixes = {
      "test_matmul_", "test_gemm_", "test_conv_", "test_basic_conv_", "test_convtranspose", "test_maxpool_",
      "test_averagepool_", "test_lppool", "test_globalaveragepool", "test_globalmaxpool", "test_batchnorm_",
      "test_instancenorm_", "test_layer_normalization_", "test_lrn"};
  const std::vector<std::string> cpu_expected = {"training_mode", "uint8"};
  int cases = 0;
  for (const auto& entry : std::filesystem::directory_iterator(root)) {
    const std::string name = entry.path().filename().string();
    bool wanted = false;
    for (const std::string& p : prefixes) wanted = wanted || name.rfind(p, 0) == 0;
    if (!wanted || name.find("_expanded") != std::string::npos) continue;
    bool on_cpu = false;
    for (const std::string& c : cpu_expected) on_cpu = on_cpu || name.find(c) != std::string::npos;
    if (name.find("uint8") != std::string::npos) continue;  // integer pooling: not a float op
    SCOPED_TRACE(name);
    Graph graph = import_onnx(entry.path() / "model.onnx");
    std::vector<Tensor> inputs, expected;
    std::map<std::string, Shape> shapes;
    const std::filesystem::path set = entry.path() / "test_data_set_0";
    for (size_t i = 0; std::filesystem::exists(set / cat("input_", i, ".pb")); ++i) {
      inputs.push_back(read_onnx_tensor_file(set / cat("input_", i, ".pb")));
      if (GetParam() == Precision::fp16 && inputs.back().dtype() == DType::f32)
        inputs.back() = inputs.back().to(DType::f16).to(DType::f32);
    }
    for (size_t i = 0; std::filesystem::exists(set / cat("output_", i, ".pb")); ++i)
      expected.push_back(read_onnx_tensor_file(set / cat("output_", i, ".pb")));
    ASSERT_EQ(inputs.size(), graph.inputs.size());
    for (size_t i = 0; i < inputs.size(); ++i) shapes[graph.value(graph.inputs[i]).name] = inputs[i].shape();
    runtime::ExecutableOptions options;
    options.precision = GetParam();
    std::vector<Tensor> got;
    std::string placement;
    try {
      auto exe = make_executable(vk::compute_device(ctx()), graph, shapes, options, &inputs);
      placement = exe->placement_report();
      if (on_cpu) {
        EXPECT_FALSE(exe->floats_all_preferred()) << name << ": expected a CPU fallback\n" << placement;
      } else {
        EXPECT_TRUE(exe->floats_all_preferred()) << name << "\n" << placement;
      }
      got = exe->run(inputs);
    } catch (const Error& e) {
      ADD_FAILURE() << name << ": " << e.what();
      continue;
    }
    ++cases;
    ASSERT_EQ(got.size(), expected.size()) << name;
    for (size_t i = 0; i < expected.size(); ++i) {
      ASSERT_EQ(got[i].shape(), expected[i].shape()) << name << " output " << i;
      double peak = 1.0;
      for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
      const bool exact = expected[i].dtype() != DType::f32;  // MaxPool's indices
      const double tol = exact ? 0.0 : (GetParam() == Precision::fp16 ? 1e-2 : 1e-4) * peak;
      EXPECT_LE(test::max_abs_diff(got[i].to(DType::f32), expected[i]), tol) << name << " output " << i << "\n" << placement;
    }
  }
  EXPECT_GT(cases, 80) << "fewer ONNX node cases than expected under " << root;
}

INSTANTIATE_TEST_SUITE_P(All, VulkanOnnxNodeCasesByPrecision, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::test

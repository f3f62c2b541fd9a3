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
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "common/vulkan_op_test_util.h"
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
      run = run_on_vulkan(ctx(), g, inputs, vk::Precision::fp32);
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

}  // namespace
}  // namespace vx::test

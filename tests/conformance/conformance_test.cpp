// ONNX backend test suite on the CPU. Writes build/<preset>/conformance/report.{json,md} and fails
// when the pass rate over the cases run (not excluded) drops below kMinPassRate.
// Environment: VOLVOX_CONFORMANCE_FILTER=substring runs only matching cases (no threshold check);
// VOLVOX_ONNX_TESTDATA overrides the data folder; VOLVOX_CONFORMANCE_ENGINE=eager runs the eager
// runner alone (default: the planned executor with its eager fallback, as `volvox run` does).
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>

#include "backends/vulkan/context.h"
#include "common/test_util.h"
#include "conformance/onnx_suite.h"

namespace vx::conformance {
namespace {

// Just under what the suite reaches (see the report); raise them as kernels are added. With Conv,
// Concat and Relu merged and ConvInteger, QLinearConv, Unique, RNN, GRU, LSTM, GridSample, DFT,
// STFT, TfIdfVectorizer and RoiAlign added: 990 of 1,072 cases pass (92.4% of all cases, 99.9% of
// the 991 run, every one on the planned executor); the one failure is MelWeightMatrix (no kernel).
constexpr double kMinPassRate = 0.99;       // of the cases run (not excluded)
constexpr double kMinPassRateOfAll = 0.92;  // of all cases, excluded ones included
constexpr double kCaseTimeLimitS = 60;

std::filesystem::path data_root() {
  if (const char* env = std::getenv("VOLVOX_ONNX_TESTDATA")) return env;
  return "/usr/share/libonnx-testdata/data";
}

TEST(OnnxConformance, CpuPassRate) {
  const std::filesystem::path root = data_root();
  if (!std::filesystem::is_directory(root / "node"))
    GTEST_SKIP() << root << " is absent: install the libonnx-testdata package to run the ONNX suite";
  const char* filter_env = std::getenv("VOLVOX_CONFORMANCE_FILTER");
  const std::string filter = filter_env ? filter_env : "";

  auto excluded = read_exclusions(std::filesystem::path(VOLVOX_SOURCE_DIR) / "tests/conformance/excluded.txt");
  const char* engine_env = std::getenv("VOLVOX_CONFORMANCE_ENGINE");
  const Engine engine = engine_env && std::string(engine_env) == "eager" ? Engine::eager : Engine::planned;
  std::vector<CaseResult> results = run_suite(root, excluded, kCaseTimeLimitS, filter, engine);
  const std::filesystem::path report_dir = std::filesystem::path(VOLVOX_BINARY_DIR) / "conformance";
  write_report(results, report_dir);

  int passed = 0, failed = 0, excluded_count = 0;
  for (const CaseResult& r : results) {
    if (r.status == Status::passed) ++passed;
    if (r.status == Status::failed) {
      ++failed;
      std::cout << "FAILED " << r.suite << "/" << r.name << ": " << r.reason << "\n";
    }
    if (r.status == Status::excluded) ++excluded_count;
  }
  const double rate = passed + failed ? double(passed) / double(passed + failed) : 0.0;
  std::cout << "ONNX conformance (CPU): " << passed << " passed, " << failed << " failed, " << excluded_count
            << " excluded of " << results.size() << " cases; pass rate of cases run " << rate * 100
            << "%, of all cases " << (results.empty() ? 0.0 : 100.0 * passed / double(results.size()))
            << "%. Report: " << (report_dir / "report.md").string() << "\n";
  if (filter.empty()) {
    EXPECT_GE(results.size(), 1000u) << "the test data looks incomplete";
    EXPECT_GE(rate, kMinPassRate) << "pass rate over non-excluded cases fell below the threshold; see the report";
    EXPECT_GE(double(passed) / double(results.size()), kMinPassRateOfAll)
        << "pass rate over all cases fell below the threshold; see the report";
  }
}

// The same suite on Vulkan (lavapipe in CI) at fp32 with the same tolerance. A case counts toward
// the Vulkan pass rate only when it passes and no node touching a float tensor fell back to the
// CPU (shape computations on the CPU are allowed). Writes report_vulkan.{json,md} beside the CPU
// report. VOLVOX_CONFORMANCE_FILTER applies here too; VOLVOX_CONFORMANCE_PRECISION=fp16 runs at fp16
// storage instead (rtol = atol = 1e-2, report_vulkan_fp16.*, no floor).
// Measured on lavapipe with the element-wise, movement, reduction and math families: 873 of 1,072
// cases pass with every float node on the GPU (81.4%: 865 with no fallback at all, 8 with only
// integer nodes on the CPU), 117 more pass with float nodes on the CPU (data-dependent shapes,
// RNNs, quantised ops, ...), 1 fails
// (MelWeightMatrix, no kernel anywhere), 81 excluded. The floor leaves a margin of about 1%.
// With the remaining families (h-vkmore: RNN/GRU/LSTM, quantised ops, Einsum, DFT/STFT, GridSample,
// RoiAlign, TfIdfVectorizer, MaxUnpool, generators, ordered scatters with reductions, ...): 951
// (88.7%; 950 with no fallback at all). What still falls back: Resize/Upsample/ReduceSum with
// run-time scales/axes, data-dependent shapes (NonMaxSuppression, Unique, Compress), training-mode
// BatchNormalization / Dropout.
constexpr double kMinVulkanGpuPassRateOfAll = 0.87;

TEST(OnnxConformance, VulkanPassRate) {
  const std::filesystem::path root = data_root();
  if (!std::filesystem::is_directory(root / "node"))
    GTEST_SKIP() << root << " is absent: install the libonnx-testdata package to run the ONNX suite";
  std::unique_ptr<vk::VulkanContext> ctx;
  try {
    vk::ContextOptions o;
    o.pipeline_cache_dir = "none";
    ctx = std::make_unique<vk::VulkanContext>(o);
  } catch (const Error& e) {
    GTEST_SKIP() << "no Vulkan device: " << e.what();
  }
  const char* filter_env = std::getenv("VOLVOX_CONFORMANCE_FILTER");
  const std::string filter = filter_env ? filter_env : "";
  auto excluded = read_exclusions(std::filesystem::path(VOLVOX_SOURCE_DIR) / "tests/conformance/excluded.txt");
  const char* precision_env = std::getenv("VOLVOX_CONFORMANCE_PRECISION");
  const bool fp16 = precision_env && std::string(precision_env) == "fp16";
  if (fp16 && !ctx->fp16_enabled()) GTEST_SKIP() << ctx->info().name << " lacks fp16 storage or arithmetic";
  std::vector<CaseResult> results =
      run_suite(root, excluded, kCaseTimeLimitS, filter, Engine::vulkan, ctx.get(), fp16);
  const std::filesystem::path report_dir = std::filesystem::path(VOLVOX_BINARY_DIR) / "conformance";
  write_report(results, report_dir, fp16 ? "vulkan-fp16" : "vulkan");

  std::map<std::string, int> counts;
  int counted = 0;
  for (const CaseResult& r : results) {
    const std::string status = vulkan_status(r);
    ++counts[status];
    if (counts_for_vulkan(r)) ++counted;
    if (status == "fail") std::cout << "FAILED (vulkan) " << r.suite << "/" << r.name << ": " << r.reason << "\n";
  }
  const double rate_all = results.empty() ? 0.0 : double(counted) / double(results.size());
  std::cout << "ONNX conformance (Vulkan " << (fp16 ? "fp16" : "fp32") << ", " << ctx->info().name << "): " << counts["pass (all on GPU)"] << " pass (all on GPU), "
            << counts["pass with CPU fallback nodes"] << " pass with CPU fallback nodes, " << counts["fail"]
            << " fail, " << counts["excluded"] << " excluded of " << results.size() << " cases; " << counted
            << " count toward the Vulkan pass rate (no float node on the CPU): "
            << rate_all * 100 << "% of all cases. Report: "
            << (report_dir / (fp16 ? "report_vulkan_fp16.md" : "report_vulkan.md")).string() << "\n";
  if (filter.empty() && !fp16) {
    EXPECT_GE(results.size(), 1000u) << "the test data looks incomplete";
    EXPECT_GE(rate_all, kMinVulkanGpuPassRateOfAll) << "Vulkan pass rate fell below the floor; see the report";
  }
}

}  // namespace
}  // namespace vx::conformance

// The ONNX backend test suite (Debian's libonnx-testdata) run on the CPU: each case is a model.onnx
// with test_data_set_*/input_*.pb and output_*.pb. Cases listed in excluded.txt (with a reason)
// are not run. Results feed a JSON + Markdown report.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

namespace vx::vk {
class VulkanContext;
}

namespace vx::conformance {

enum class Status { passed, failed, excluded };

struct CaseResult {
  std::string suite;  // "node", "pytorch-converted", ...
  std::string name;   // "test_add_bcast"
  std::vector<std::string> ops;
  Status status = Status::failed;
  std::string reason;  // failure or exclusion reason
  double seconds = 0;
  bool planned = false;  // ran on the planned executor, not the eager fallback
  // Vulkan runs: nodes that fell back to the CPU ("node (op): reason"), and whether every node
  // touching a float tensor ran on the GPU (shape computations on the CPU allowed).
  std::vector<std::string> cpu_nodes;
  bool floats_on_gpu = false;
};

// Planned: ModelRunner (optimize_onnx, planned executor, eager fallback when planning fails).
// Eager: the eager runner on the graph as imported.
// Vulkan: DeviceModelRunner (session/device_model_runner.h) on the given context, at fp32 (or at
// fp16 storage with vulkan_fp16, compared with rtol = atol = 1e-2).
enum class Engine { planned, eager, vulkan };

struct Exclusion {
  std::string pattern;  // a case name, or a prefix ending in '*'
  std::string reason;
};

// Parses excluded.txt: "pattern  reason" per line; '#' starts a comment line.
std::vector<Exclusion> read_exclusions(const std::filesystem::path& file);

// Runs every case under root/{node,pytorch-converted,pytorch-operator,simple}. Cases over
// `time_limit_s` count as failed (they are abandoned, not waited for). `filter`: substring of
// case names to run (empty: all).
std::vector<CaseResult> run_suite(const std::filesystem::path& root, const std::vector<Exclusion>& excluded,
                                  double time_limit_s, const std::string& filter = "",
                                  Engine engine = Engine::planned, const vk::VulkanContext* vulkan = nullptr,
                                  bool vulkan_fp16 = false);

// Writes report.json and report.md into `dir` (device "cpu"), or report_vulkan.{json,md} (device
// "vulkan"; "vulkan-fp16": report_vulkan_fp16.*) with the GPU / CPU-fallback split per case and op.
void write_report(const std::vector<CaseResult>& results, const std::filesystem::path& dir,
                  const std::string& device = "cpu");

// Vulkan statuses: "pass (all on GPU)" (no fallback; shape computations on the CPU by design are
// not fallbacks), "pass with CPU fallback nodes", "fail", "excluded".
std::string vulkan_status(const CaseResult& r);
// Whether a case counts toward the Vulkan pass rate: passed, and no node touching a float tensor
// fell back to the CPU (integer-only fallbacks are allowed).
bool counts_for_vulkan(const CaseResult& r);

}  // namespace vx::conformance

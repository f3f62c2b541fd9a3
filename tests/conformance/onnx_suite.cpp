#include "conformance/onnx_suite.h"

#include <onnx/onnx_pb.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <fstream>
#include <future>
#include <map>
#include <mutex>
#include <memory>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <thread>

#include "core/error.h"
#include "formats/onnx_import.h"
#include "backends/cpu/eager_runner.h"
#include "session/model_runner.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::conformance {
namespace {

constexpr double kTolerance = 1e-3;  // rtol = atol for floats; integers and bools are exact
constexpr double kFp16Tolerance = 1e-2;  // Vulkan at fp16 storage

const char* status_name(Status s) {
  switch (s) {
    case Status::passed: return "passed";
    case Status::failed: return "failed";
    case Status::excluded: return "excluded";
  }
  return "?";
}

// The op types of a model, read straight from the protobuf (works even when import fails).
std::vector<std::string> model_ops(const std::filesystem::path& model) {
  std::ifstream in(model, std::ios::binary);
  onnx::ModelProto proto;
  if (!proto.ParseFromIstream(&in)) return {};
  std::set<std::string> ops;
  for (const auto& n : proto.graph().node()) ops.insert(n.op_type());
  return {ops.begin(), ops.end()};
}

// input_0.pb, input_1.pb, ... in numeric order.
std::vector<std::filesystem::path> numbered_files(const std::filesystem::path& dir, const std::string& prefix) {
  std::vector<std::filesystem::path> files;
  for (int i = 0;; ++i) {
    std::filesystem::path p = dir / (prefix + std::to_string(i) + ".pb");
    if (!std::filesystem::exists(p)) break;
    files.push_back(p);
  }
  return files;
}

// Empty when equal within tolerance, else why not.
std::string compare(const Tensor& expected, const Tensor& actual, const std::string& name,
                    double tolerance = kTolerance) {
  if (actual.dtype() != expected.dtype())
    return cat("output '", name, "' has type ", dtype_name(actual.dtype()), ", expected ", dtype_name(expected.dtype()));
  if (!(actual.shape() == expected.shape()))
    return cat("output '", name, "' has shape ", actual.shape().str(), ", expected ", expected.shape().str());
  const bool exact = expected.dtype() != DType::f32 && expected.dtype() != DType::f16;
  for (int64_t i = 0; i < expected.numel(); ++i) {
    double e = expected.get(i), a = actual.get(i);
    if (exact) {
      bool same = expected.dtype() == DType::i64
                      ? static_cast<const int64_t*>(expected.raw())[i] == static_cast<const int64_t*>(actual.raw())[i]
                      : e == a;
      if (!same) return cat("output '", name, "' element ", i, " is ", a, ", expected ", e);
      continue;
    }
    if (std::isnan(e) && std::isnan(a)) continue;
    if (std::isinf(e) && a == e) continue;
    if (!(std::fabs(a - e) <= tolerance + tolerance * std::fabs(e)))
      return cat("output '", name, "' element ", i, " is ", a, ", expected ", e, " (rtol = atol = ", tolerance, ")");
  }
  return {};
}

// Runs one case; throws vx::Error or returns a failure reason (empty on success). `planned` tells
// whether every data set ran on the planned executor (not the eager fallback).
// Lists the test_data_set_* folders of a case, sorted.
std::vector<std::filesystem::path> data_sets(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> sets;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    if (entry.is_directory() && entry.path().filename().string().rfind("test_data_set_", 0) == 0)
      sets.push_back(entry.path());
  std::sort(sets.begin(), sets.end());
  return sets;
}

// The Vulkan run of one case: like run_case, and records which nodes fell back to the CPU.
std::string run_case_vulkan(const std::filesystem::path& dir, const vk::VulkanContext& ctx, bool fp16,
                            CaseResult* result) {
  Graph graph = import_onnx(dir / "model.onnx");
  DeviceRunnerOptions options;
  options.precision = fp16 ? Precision::fp16 : Precision::fp32;
  DeviceModelRunner runner(vk::compute_device(ctx), graph, options);
  std::vector<std::filesystem::path> sets = data_sets(dir);
  if (sets.empty()) return "no test_data_set_* folder";
  result->floats_on_gpu = true;
  std::set<std::string> cpu_nodes;
  for (const auto& set : sets) {
    std::vector<Tensor> inputs;
    for (const auto& f : numbered_files(set, "input_")) inputs.push_back(read_onnx_tensor_file(f));
    std::vector<Tensor> expected;
    for (const auto& f : numbered_files(set, "output_")) expected.push_back(read_onnx_tensor_file(f));
    std::vector<Tensor> outputs = runner.run(inputs);
    auto exe = runner.last_executable();
    if (!exe->floats_all_preferred()) result->floats_on_gpu = false;
    for (const auto& p : exe->fallbacks()) cpu_nodes.insert(cat(p.node, " (", p.op, "): ", p.reason));
    result->cpu_nodes.assign(cpu_nodes.begin(), cpu_nodes.end());
    if (outputs.size() != expected.size())
      return cat(set.filename().string(), ": ", outputs.size(), " outputs, expected ", expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string diff =
          compare(expected[i], outputs[i], graph.value(graph.outputs[i]).name, fp16 ? kFp16Tolerance : kTolerance);
      if (!diff.empty()) return cat(set.filename().string(), ": ", diff);
    }
  }
  return {};
}

std::string run_case(const std::filesystem::path& dir, Engine engine, bool* planned) {
  Graph graph = import_onnx(dir / "model.onnx");
  ModelRunnerOptions runner_options;
  runner_options.planned = engine == Engine::planned;
  runner_options.optimize = engine == Engine::planned;
  ModelRunner runner(graph, runner_options);
  *planned = engine == Engine::planned;
  std::vector<std::filesystem::path> sets = data_sets(dir);
  if (sets.empty()) return "no test_data_set_* folder";
  for (const auto& set : sets) {
    std::vector<Tensor> inputs;
    for (const auto& f : numbered_files(set, "input_")) inputs.push_back(read_onnx_tensor_file(f));
    std::vector<Tensor> expected;
    for (const auto& f : numbered_files(set, "output_")) expected.push_back(read_onnx_tensor_file(f));
    std::vector<Tensor> outputs = runner.run(inputs);
    if (!runner.last_run_planned()) *planned = false;
    if (outputs.size() != expected.size())
      return cat(set.filename().string(), ": ", outputs.size(), " outputs, expected ", expected.size());
    for (size_t i = 0; i < outputs.size(); ++i) {
      std::string diff = compare(expected[i], outputs[i], graph.value(graph.outputs[i]).name);
      if (!diff.empty()) return cat(set.filename().string(), ": ", diff);
    }
  }
  return {};
}

std::string one_line(std::string s) {
  std::replace(s.begin(), s.end(), '\n', ' ');
  if (s.size() > 400) s = s.substr(0, 400) + "...";
  return s;
}

}  // namespace

std::vector<Exclusion> read_exclusions(const std::filesystem::path& file) {
  std::vector<Exclusion> result;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    size_t end = line.find_first_of(" \t", start);
    Exclusion e;
    e.pattern = line.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (end != std::string::npos) {
      size_t r = line.find_first_not_of(" \t", end);
      if (r != std::string::npos) e.reason = line.substr(r);
    }
    result.push_back(e);
  }
  return result;
}

std::vector<CaseResult> run_suite(const std::filesystem::path& root, const std::vector<Exclusion>& excluded,
                                  double time_limit_s, const std::string& filter, Engine engine,
                                  const vk::VulkanContext* vulkan, bool vulkan_fp16) {
  VX_CHECK(engine != Engine::vulkan || vulkan != nullptr, InvalidArgument, "the Vulkan engine needs a context");
  // Vulkan cases share one context, whose queue takes one submission at a time: a case abandoned
  // at the time limit keeps this lock, and later cases wait for it (then fail) instead of racing.
  static std::timed_mutex vulkan_busy;
  std::vector<CaseResult> results;
  for (const char* suite : {"node", "pytorch-converted", "pytorch-operator", "simple"}) {
    std::filesystem::path suite_dir = root / suite;
    if (!std::filesystem::is_directory(suite_dir)) continue;
    std::vector<std::filesystem::path> cases;
    for (const auto& entry : std::filesystem::directory_iterator(suite_dir))
      if (entry.is_directory()) cases.push_back(entry.path());
    std::sort(cases.begin(), cases.end());
    for (const auto& dir : cases) {
      CaseResult r;
      r.suite = suite;
      r.name = dir.filename().string();
      if (!filter.empty() && r.name.find(filter) == std::string::npos) continue;
      r.ops = model_ops(dir / "model.onnx");
      for (const Exclusion& e : excluded) {
        bool prefix = !e.pattern.empty() && e.pattern.back() == '*';
        std::string p = prefix ? e.pattern.substr(0, e.pattern.size() - 1) : e.pattern;
        if (prefix ? r.name.rfind(p, 0) == 0 : r.name == p) {
          r.status = Status::excluded;
          r.reason = e.reason;
          break;
        }
      }
      if (r.status == Status::excluded) {
        results.push_back(r);
        continue;
      }
      auto start = std::chrono::steady_clock::now();
      // A worker thread so that a runaway case can be abandoned at the time limit.
      auto promise = std::make_shared<std::promise<std::string>>();
      std::future<std::string> future = promise->get_future();
      auto planned = std::make_shared<bool>(false);
      auto vulkan_result = std::make_shared<CaseResult>();
      std::thread([promise, dir, engine, planned, vulkan, vulkan_fp16, vulkan_result, time_limit_s] {
        try {
          if (engine == Engine::vulkan) {
            std::unique_lock<std::timed_mutex> lock(vulkan_busy, std::defer_lock);
            if (!lock.try_lock_for(std::chrono::duration<double>(time_limit_s)))
              promise->set_value("an earlier case abandoned at the time limit still holds the Vulkan device");
            else
              promise->set_value(run_case_vulkan(dir, *vulkan, vulkan_fp16, vulkan_result.get()));
          } else {
            promise->set_value(run_case(dir, engine, planned.get()));
          }
        } catch (const Error& e) {
          promise->set_value(cat(error_code_name(e.code()), ": ", e.what()));
        } catch (const std::exception& e) {
          promise->set_value(cat("exception: ", e.what()));
        }
      }).detach();
      if (future.wait_for(std::chrono::duration<double>(time_limit_s)) == std::future_status::timeout) {
        r.reason = cat("time limit: still running after ", time_limit_s, " s (abandoned)");
      } else {
        r.reason = one_line(future.get());
        r.status = r.reason.empty() ? Status::passed : Status::failed;
        r.planned = *planned;
        r.cpu_nodes = vulkan_result->cpu_nodes;
        r.floats_on_gpu = vulkan_result->floats_on_gpu;
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      results.push_back(r);
    }
  }
  return results;
}

std::string vulkan_status(const CaseResult& r) {
  if (r.status == Status::excluded) return "excluded";
  if (r.status == Status::failed) return "fail";
  return r.cpu_nodes.empty() ? "pass (all on GPU)" : "pass with CPU fallback nodes";
}

bool counts_for_vulkan(const CaseResult& r) { return r.status == Status::passed && r.floats_on_gpu; }

namespace {

void write_vulkan_report(const std::vector<CaseResult>& results, const std::filesystem::path& dir, bool fp16) {
  struct OpCount {
    int gpu = 0, fallback = 0, failed = 0, excluded = 0, counted = 0;
  };
  std::map<std::string, OpCount> per_op;
  std::map<std::string, int> fallback_ops;  // op -> cases where it fell back
  int gpu = 0, fallback = 0, failed = 0, excluded = 0, counted = 0;
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& r : results) {
    const std::string status = vulkan_status(r);
    int OpCount::*field = status == "excluded"            ? &OpCount::excluded
                          : status == "fail"              ? &OpCount::failed
                          : status == "pass (all on GPU)" ? &OpCount::gpu
                                                          : &OpCount::fallback;
    (status == "excluded" ? excluded : status == "fail" ? failed : status == "pass (all on GPU)" ? gpu : fallback)++;
    if (counts_for_vulkan(r)) ++counted;
    for (const auto& op : r.ops) ++(per_op[op].*field);
    std::set<std::string> ops_fell_back;
    for (const std::string& n : r.cpu_nodes) {
      size_t open = n.find(" ("), close = n.find("): ");
      if (open != std::string::npos && close != std::string::npos) ops_fell_back.insert(n.substr(open + 2, close - open - 2));
    }
    for (const auto& op : ops_fell_back) ++fallback_ops[op];
    cases.push_back({{"suite", r.suite}, {"name", r.name}, {"status", status}, {"counted", counts_for_vulkan(r)},
                     {"reason", r.reason}, {"ops", r.ops}, {"cpu_nodes", r.cpu_nodes}, {"seconds", r.seconds}});
  }
  const int total = gpu + fallback + failed + excluded;
  const double rate_all = total ? double(counted) / double(total) : 0.0;
  const double rate_run = gpu + fallback + failed ? double(counted) / double(gpu + fallback + failed) : 0.0;
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [op, c] : per_op)
    ops[op] = {{"pass_gpu", c.gpu}, {"pass_cpu_fallback", c.fallback}, {"failed", c.failed}, {"excluded", c.excluded}};
  const double tolerance = fp16 ? kFp16Tolerance : kTolerance;
  const std::string stem = fp16 ? "report_vulkan_fp16" : "report_vulkan";
  nlohmann::json report = {{"device", "vulkan"},
                           {"precision", fp16 ? "fp16" : "fp32"},
                           {"tolerance", {{"rtol", tolerance}, {"atol", tolerance}}},
                           {"totals",
                            {{"cases", total},
                             {"pass_gpu", gpu},
                             {"pass_cpu_fallback", fallback},
                             {"failed", failed},
                             {"excluded", excluded},
                             {"counted_toward_rate", counted},
                             {"gpu_pass_rate_of_all", rate_all},
                             {"gpu_pass_rate_of_run", rate_run}}},
                           {"ops", ops},
                           {"fallback_ops", fallback_ops},
                           {"cases", cases}};
  std::ofstream(dir / (stem + ".json")) << report.dump(2) << "\n";

  std::ostringstream md;
  md << "# ONNX conformance (Vulkan, " << (fp16 ? "fp16 storage" : "fp32") << ")\n\n";
  md << "Cases: " << total << " | pass (all on GPU): " << gpu << " | pass with CPU fallback nodes: " << fallback
     << " | fail: " << failed << " | excluded: " << excluded << "\n\nShape computations (int64 results from host "
     << "values) run on the CPU by design and are not fallbacks. Vulkan pass rate (a passing case counts only when "
     << "no node touching a float tensor fell back to the CPU; " << counted << " cases): "
     << std::round(rate_all * 1000) / 10 << "% of all cases, " << std::round(rate_run * 1000) / 10
     << "% of the cases run. Tolerance: rtol = atol = " << tolerance << " for floats, exact for integers and bools.\n\n";
  md << "## Ops that fell back to the CPU (cases)\n\n| op | cases |\n|---|---:|\n";
  std::vector<std::pair<int, std::string>> by_count;
  for (const auto& [op, n] : fallback_ops) by_count.push_back({-n, op});
  std::sort(by_count.begin(), by_count.end());
  for (const auto& [n, op] : by_count) md << "| " << op << " | " << -n << " |\n";
  md << "\n## Per op\n\n| op | pass (GPU) | pass (CPU fallback) | fail | excluded |\n|---|---:|---:|---:|---:|\n";
  for (const auto& [op, c] : per_op)
    md << "| " << op << " | " << c.gpu << " | " << c.fallback << " | " << c.failed << " | " << c.excluded << " |\n";
  md << "\n## Cases\n\n| suite | case | status | detail |\n|---|---|---|---|\n";
  for (const CaseResult& r : results) {
    std::string status = vulkan_status(r);
    if (status == "excluded") continue;
    std::string detail = r.reason;
    if (detail.empty() && !r.cpu_nodes.empty()) {
      for (const auto& n : r.cpu_nodes) detail += (detail.empty() ? "" : "; ") + n;
      detail = one_line(detail);
    }
    std::replace(detail.begin(), detail.end(), '|', '/');
    if (r.status == Status::passed && !r.cpu_nodes.empty()) status += counts_for_vulkan(r) ? " (counted)" : " (not counted)";
    md << "| " << r.suite << " | " << r.name << " | " << status << " | " << detail << " |\n";
  }
  std::ofstream(dir / (stem + ".md")) << md.str();
}

}  // namespace

void write_report(const std::vector<CaseResult>& results, const std::filesystem::path& dir, const std::string& device) {
  std::filesystem::create_directories(dir);
  if (device == "vulkan" || device == "vulkan-fp16") {
    write_vulkan_report(results, dir, device == "vulkan-fp16");
    return;
  }
  std::map<Status, int> totals;
  struct OpCount {
    int passed = 0, failed = 0, excluded = 0;
  };
  std::map<std::string, OpCount> per_op;
  int planned_passes = 0;
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseResult& r : results) {
    ++totals[r.status];
    if (r.status == Status::passed && r.planned) ++planned_passes;
    for (const auto& op : r.ops) {
      OpCount& c = per_op[op];
      (r.status == Status::passed ? c.passed : r.status == Status::failed ? c.failed : c.excluded)++;
    }
    cases.push_back({{"suite", r.suite}, {"name", r.name}, {"status", status_name(r.status)}, {"reason", r.reason},
                     {"ops", r.ops}, {"seconds", r.seconds}, {"planned", r.planned}});
  }
  const int passed = totals[Status::passed], failed = totals[Status::failed], excluded = totals[Status::excluded];
  const int total = passed + failed + excluded;
  const double rate_run = passed + failed ? double(passed) / double(passed + failed) : 0.0;
  const double rate_all = total ? double(passed) / double(total) : 0.0;

  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [op, c] : per_op) ops[op] = {{"passed", c.passed}, {"failed", c.failed}, {"excluded", c.excluded}};
  nlohmann::json report = {{"device", "cpu"},
                           {"tolerance", {{"rtol", kTolerance}, {"atol", kTolerance}}},
                           {"totals",
                            {{"cases", total},
                             {"passed", passed},
                             {"failed", failed},
                             {"excluded", excluded},
                             {"pass_rate_of_run", rate_run},
                             {"pass_rate_of_all", rate_all},
                             {"passed_planned", planned_passes}}},
                           {"ops", ops},
                           {"cases", cases}};
  std::ofstream(dir / "report.json") << report.dump(2) << "\n";

  std::ostringstream md;
  md << "# ONNX conformance (CPU)\n\n";
  md << "Cases: " << total << " | passed: " << passed << " | failed: " << failed << " | excluded: " << excluded
     << "\n\nPass rate: " << std::round(rate_run * 1000) / 10 << "% of the cases run, "
     << std::round(rate_all * 1000) / 10 << "% of all cases. Tolerance: rtol = atol = " << kTolerance
     << " for floats, exact for integers and bools.\n\nOf the passed cases, " << planned_passes
     << " ran on the planned executor, the rest on the eager fallback.\n\n";
  md << "## Per op\n\n| op | passed | failed | excluded |\n|---|---:|---:|---:|\n";
  for (const auto& [op, c] : per_op) md << "| " << op << " | " << c.passed << " | " << c.failed << " | " << c.excluded << " |\n";
  md << "\n## Failed cases\n\n| suite | case | reason |\n|---|---|---|\n";
  for (const CaseResult& r : results)
    if (r.status == Status::failed) {
      std::string reason = r.reason;
      std::replace(reason.begin(), reason.end(), '|', '/');
      md << "| " << r.suite << " | " << r.name << " | " << reason << " |\n";
    }
  md << "\n## Excluded cases\n\n| suite | case | reason |\n|---|---|---|\n";
  for (const CaseResult& r : results)
    if (r.status == Status::excluded) md << "| " << r.suite << " | " << r.name << " | " << r.reason << " |\n";
  std::ofstream(dir / "report.md") << md.str();
}

}  // namespace vx::conformance

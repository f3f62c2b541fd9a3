// `volvox bench model.onnx [--shape NAME=1x3x224x224 ...] [--input NAME=FILE.npy ...] [--runs N] [--warmup W]
// [--warmup-seconds S] [--json] [--device cpu|vulkan[:N]] [--precision fp32|fp16]`: times an ONNX model on the
// CPU or a Vulkan GPU (the same paths as `volvox run`) on random inputs (or the files given) and prints the
// median and minimum milliseconds per run (with --json also one JSON line). Inputs whose declared shape is
// fully known need no --shape.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "command.h"
#include "core/error.h"
#include "flags.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "backends/vulkan/context.h"
#include "backends/vulkan/segment_executable.h"
#include "session/model_runner.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::cli {
namespace {

struct BenchOptions {
  std::string model;
  std::vector<std::string> shapes;
  std::vector<std::string> inputs;  // NAME=FILE.npy
  int runs = 10;
  int warmup = 2;
  double warmup_seconds = 0;
  int threads = 0;
  bool json = false;
  bool eager = false;
  bool profile = false;
  bool io_binding = false;
  std::string device = "cpu";
  std::string precision = "fp32";
  int max_memory_mb = 0;  // 0: no limit
};

// "1x3x224x224" -> [1, 3, 224, 224]
Shape parse_shape(const std::string& name, const std::string& text) {
  std::vector<int64_t> dims;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t x = text.find('x', pos);
    std::string part = text.substr(pos, x == std::string::npos ? std::string::npos : x - pos);
    VX_CHECK(!part.empty() && part.find_first_not_of("0123456789") == std::string::npos && part.size() < 10,
             InvalidArgument, "--shape ", name, "=", text, ": extents must be positive integers joined by 'x'");
    dims.push_back(std::stoll(part));
    VX_CHECK(dims.back() > 0, InvalidArgument, "--shape ", name, "=", text, ": extents must be positive");
    if (x == std::string::npos) break;
    pos = x + 1;
  }
  return Shape(dims);
}

// Uniform in [-1, 1) for floats; small non-negative integers (valid token ids, indices) otherwise.
Tensor random_input(DType dtype, const Shape& shape, std::mt19937& rng) {
  Tensor t(dtype, shape);
  std::uniform_real_distribution<float> real(-1.0f, 1.0f);
  std::uniform_int_distribution<int> integer(0, 9);
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (dtype == DType::f32 || dtype == DType::f16) t.set(i, real(rng));
    else if (dtype == DType::boolean) t.set(i, integer(rng) & 1);
    else t.set(i, integer(rng));
  }
  return t;
}

double median_of(const std::vector<double>& sorted) {
  if (sorted.empty()) return 0;
  return sorted.size() % 2 ? sorted[sorted.size() / 2] : 0.5 * (sorted[sorted.size() / 2 - 1] + sorted[sorted.size() / 2]);
}

void validate(const BenchOptions& opt) {
  check_range("--runs", opt.runs, 1, 1000000);
  check_range("--warmup", opt.warmup, 0, 1000000);
  VX_CHECK(std::isfinite(opt.warmup_seconds) && opt.warmup_seconds >= 0 && opt.warmup_seconds <= 3600,
           InvalidArgument, "--warmup-seconds ", opt.warmup_seconds, " must be between 0 and 3600");
  check_threads(opt.threads);
  check_range("--max-memory-mb", opt.max_memory_mb, 0, 1 << 24);
  check_device(opt.device, /*allow_auto=*/false);
  VX_CHECK(opt.precision == "fp32" || opt.precision == "fp16", InvalidArgument, "unknown precision '", opt.precision,
           "' (use fp32 or fp16)");
  VX_CHECK(opt.precision == "fp32" || opt.device != "cpu", Unsupported, "precision '", opt.precision,
           "' is not supported on the CPU (use fp32)");
  VX_CHECK(opt.device == "cpu" || !opt.eager, InvalidArgument, "--eager runs on the CPU only");
  VX_CHECK(opt.device != "cpu" || !opt.io_binding, InvalidArgument, "--io-binding needs a Vulkan device");
  for (const std::string& spec : opt.shapes) {
    const size_t eq = spec.find('=');
    VX_CHECK(eq != std::string::npos && eq > 0, InvalidArgument, "--shape '", spec, "' must look like NAME=1x3x224x224");
    parse_shape(spec.substr(0, eq), spec.substr(eq + 1));
  }
  for (const std::string& spec : opt.inputs) {
    const size_t eq = spec.find('=');
    VX_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), InvalidArgument, "--input '", spec,
             "' must look like NAME=FILE.npy");
  }
}

void bench_command(const BenchOptions& opt) {
  const bool vulkan = opt.device != "cpu";
  std::unique_ptr<vk::VulkanContext> ctx;
  if (vulkan) {
    vk::ContextOptions context_options;
    context_options.device_index = vk::parse_vulkan_device(opt.device);
    ctx = std::make_unique<vk::VulkanContext>(context_options);
  }
  Graph graph = import_onnx(opt.model);
  std::map<std::string, Shape> given;
  for (const std::string& spec : opt.shapes) {
    const size_t eq = spec.find('=');
    given[spec.substr(0, eq)] = parse_shape(spec.substr(0, eq), spec.substr(eq + 1));
  }
  std::map<std::string, Tensor> files;
  for (const std::string& spec : opt.inputs) {
    const size_t eq = spec.find('=');
    const std::string name = spec.substr(0, eq);
    VX_CHECK(!files.count(name) && !given.count(name), InvalidArgument, "input '", name, "' is given twice");
    files[name] = read_npy(spec.substr(eq + 1));
  }
  std::mt19937 rng(1234);
  std::vector<Tensor> inputs;
  nlohmann::json shapes_json = nlohmann::json::object();
  for (ValueId id : graph.inputs) {
    const Value& v = graph.value(id);
    if (auto file = files.find(v.name); file != files.end()) {  // checked against the graph when it runs
      inputs.push_back(file->second);
      shapes_json[v.name] = file->second.shape().dims();
      files.erase(file);
      continue;
    }
    auto it = given.find(v.name);
    Shape shape = it != given.end() ? it->second : v.shape;
    VX_CHECK(shape.is_known() && (it != given.end() || shape.rank() > 0 || v.dim_params.empty()), InvalidArgument,
             "input '", v.name, "' has shape ", v.shape.str(), ": pass --shape ", v.name, "=AxBx...");
    if (it != given.end()) given.erase(it);
    inputs.push_back(random_input(v.dtype, shape, rng));
    shapes_json[v.name] = shape.dims();
  }
  VX_CHECK(given.empty(), InvalidArgument, "the model has no input named '", given.begin()->first, "'");
  VX_CHECK(files.empty(), InvalidArgument, "the model has no input named '", files.begin()->first, "'");

  std::unique_ptr<ModelRunner> cpu_runner;
  std::unique_ptr<DeviceModelRunner> vulkan_runner;
  if (vulkan) {
    DeviceRunnerOptions runner_options;
    runner_options.precision = opt.precision == "fp16" ? Precision::fp16 : Precision::fp32;
    // Device time per run, as GPU peers measure it; per-node timestamps (which cost time) only for
    // a profile.
    runner_options.timestamps = opt.profile ? runtime::Timestamps::per_node : runtime::Timestamps::per_segment;
    runner_options.max_memory_mb = uint64_t(opt.max_memory_mb);
    vulkan_runner = std::make_unique<DeviceModelRunner>(vk::compute_device(*ctx), std::move(graph), runner_options);
  } else {
    ModelRunnerOptions runner_options;
    runner_options.planned = !opt.eager;
    runner_options.threads = opt.threads;
    runner_options.max_memory_mb = uint64_t(opt.max_memory_mb);
    cpu_runner = std::make_unique<ModelRunner>(std::move(graph), runner_options);
  }
  // Device time of a Vulkan run: the GPU timestamps of every dispatch plus the time of nodes on the
  // CPU, without the input upload and output readback (what CUDA-event timings of a GPU peer cover).
  std::vector<double> device_times;
  const bool device_timing = vulkan && ctx->info().timestamps;
  Profile summed;  // --profile: per node, summed over the timed runs
  bool timing = false;
  // --io-binding (after the first run, which plans): every float32 input and output in a
  // device-local buffer (inputs uploaded once), as a caller whose tensors stay on the GPU has them.
  std::vector<std::shared_ptr<runtime::Buffer>> device_buffers;
  std::vector<runtime::ScheduledExecutable::NamedDeviceValue> bound;
  std::vector<Tensor> run_inputs = inputs;
  auto run_once = [&] {
    Profile profile;
    if (vulkan) {
      // The device time without a profile unless one is asked for: building its per-node entries
      // is host work a caller without --profile does not pay.
      vulkan_runner->run(run_inputs, opt.profile ? &profile : nullptr, bound);
      if (device_timing) device_times.push_back(vulkan_runner->last_executable()->last_run_device_ms());
    } else {
      cpu_runner->run(inputs, opt.profile ? &profile : nullptr);
    }
    if (!opt.profile || !timing) return;
    if (summed.entries.empty()) summed = profile;
    else
      for (size_t i = 0; i < summed.entries.size() && i < profile.entries.size(); ++i)
        summed.entries[i].milliseconds += profile.entries[i].milliseconds;
  };
  using clock = std::chrono::steady_clock;
  const auto first_start = clock::now();
  run_once();  // plans (and faults in the arena) once
  const double first_ms = std::chrono::duration<double, std::milli>(clock::now() - first_start).count();
  if (opt.io_binding) {
    const Graph& g = vulkan_runner->graph();
    const std::vector<Tensor> outputs = vulkan_runner->run(inputs);  // their shapes
    const auto device = vk::compute_device(*ctx);
    auto bind = [&](const std::string& name, const Tensor& value, bool upload) {
      if (value.dtype() != DType::f32 || value.nbytes() == 0) return false;
      device_buffers.push_back(device->make_buffer(value.nbytes(), runtime::BufferStorage::device));
      if (upload) device_buffers.back()->write(0, value.nbytes(), value.raw());
      bound.push_back({name, device_buffers.back()->native_handle(), 0});
      return true;
    };
    for (size_t i = 0; i < g.inputs.size(); ++i)
      if (bind(g.value(g.inputs[i]).name, inputs[i], true))
        run_inputs[i] = Tensor::wrap(inputs[i].dtype(), inputs[i].shape(), nullptr);
    for (size_t i = 0; i < g.outputs.size(); ++i) bind(g.value(g.outputs[i]).name, outputs[i], false);
  }
  for (int i = 1; i < opt.warmup; ++i) run_once();
  // A power-managed GPU ramps its clock only under sustained load: timed cold, it reads slow.
  while (std::chrono::duration<double>(clock::now() - first_start).count() < opt.warmup_seconds) run_once();
  device_times.clear();
  timing = true;
  std::vector<double> times;
  for (int i = 0; i < opt.runs; ++i) {
    const auto start = clock::now();
    run_once();
    times.push_back(std::chrono::duration<double, std::milli>(clock::now() - start).count());
  }
  std::vector<double> sorted = times;
  std::sort(sorted.begin(), sorted.end());
  const double median = median_of(sorted);
  std::sort(device_times.begin(), device_times.end());
  std::string engine, detail;
  size_t cpu_nodes = 0;
  if (vulkan) {
    engine = "vulkan";
    cpu_nodes = vulkan_runner->last_executable()->fallbacks().size();
    detail = cat(" on ", ctx->info().name, ", ", opt.precision, cpu_nodes ? cat(", ", cpu_nodes, " node(s) on the CPU") : "");
  } else {
    const bool planned = cpu_runner->last_run_planned();
    engine = planned ? "planned" : "eager";
    if (!planned) detail = ": " + cpu_runner->fallback_reason();
  }
  const MemoryNeeds needs = vulkan ? vulkan_runner->last_memory_needs() : MemoryNeeds{cpu_runner->last_arena_bytes(), 0};
  std::printf("%s: %d runs, median %.3f ms, min %.3f ms (first run %.3f ms, %s executor%s)\n", opt.model.c_str(),
              opt.runs, median, sorted.front(), first_ms, engine.c_str(), detail.c_str());
  if (!device_times.empty())
    std::printf("device time (GPU timestamps + CPU nodes, no transfers): median %.3f ms, min %.3f ms\n",
                median_of(device_times), device_times.front());
  // What a run records on the GPU (the op executor's; the denoiser's fused-network one records its own).
  const auto* recorded =
      vulkan ? dynamic_cast<const vk::SegmentExecutable*>(vulkan_runner->last_executable()->compiled(0)) : nullptr;
  const vk::SegmentExecutable::DispatchCounts counts =
      recorded ? recorded->dispatch_counts() : vk::SegmentExecutable::DispatchCounts{};
  if (recorded) std::printf("recorded: %zu dispatches, %zu barriers between them\n", counts.dispatches, counts.barriers);
  if (opt.profile && !summed.entries.empty()) {
    for (ProfileEntry& e : summed.entries) e.milliseconds /= opt.runs;
    std::printf("\nper node, mean of the %d timed runs:\n%s", opt.runs, summed.str().c_str());
  }
  if (opt.json) {
    nlohmann::json j = {{"model", opt.model},  {"engine", engine},          {"runs", opt.runs},
                        {"median_ms", median},  {"min_ms", sorted.front()},  {"first_run_ms", first_ms},
                        {"times_ms", times},    {"input_shapes", shapes_json}, {"device", opt.device},
                        {"precision", opt.precision}, {"cpu_fallback_nodes", cpu_nodes},
                        {"arena_bytes", needs.arena_bytes}, {"other_device_bytes", needs.other_bytes},
                        {"io_binding", opt.io_binding}};
    if (recorded) {
      j["dispatches"] = counts.dispatches;
      j["barriers"] = counts.barriers;
    }
    if (!device_times.empty()) {
      j["gpu_median_ms"] = median_of(device_times);
      j["gpu_min_ms"] = device_times.front();
    }
    std::printf("%s\n", j.dump().c_str());
  }
}

void setup_bench(CLI::App& app) {
  auto opt = std::make_shared<BenchOptions>();
  CLI::App* cmd = app.add_subcommand("bench", "Time an ONNX model on the CPU or a Vulkan GPU on random inputs");
  cmd->add_option("model", opt->model, "the .onnx model")->required()->check(CLI::ExistingFile);
  cmd->add_option("--shape,-s", opt->shapes, "NAME=1x3x224x224 for an input whose shape is not fully declared");
  cmd->add_option("--input,-i", opt->inputs,
                  "NAME=FILE.npy: time on this input instead of a random one (a value that must be right, e.g. a "
                  "sample rate)");
  cmd->add_option("--runs,-n", opt->runs, "timed runs (default 10)");
  cmd->add_option("--warmup", opt->warmup, "untimed runs first, the planning run included (default 2)");
  cmd->add_option("--warmup-seconds", opt->warmup_seconds,
                  "then more untimed runs until this many seconds have passed (GPU clocks ramp under load)");
  cmd->add_option("--threads", opt->threads, "CPU threads (default: all)");
  cmd->add_flag("--json", opt->json, "also print one JSON line");
  cmd->add_flag("--eager", opt->eager, "skip planning: time the eager runner (CPU)");
  cmd->add_flag("--profile", opt->profile, "also print per-node milliseconds (mean of the timed runs) and kernel variants");
  cmd->add_flag("--io-binding", opt->io_binding,
                "Vulkan: float32 inputs and outputs stay in device buffers (uploaded once), as with ONNX Runtime's IO binding");
  cmd->add_option("--device", opt->device, "cpu (default), vulkan or vulkan:N");
  cmd->add_option("--precision", opt->precision, "fp32 (default) or fp16 (Vulkan)");
  cmd->add_option("--max-memory-mb", opt->max_memory_mb,
                  "refuse a plan whose activation arena (and, on Vulkan, device buffers) exceeds this (0: no limit)");
  cmd->callback([opt] {
    validate(*opt);
    if (!validate_only()) bench_command(*opt);
  });
}

}  // namespace

VX_REGISTER_COMMAND(bench, setup_bench);

}  // namespace vx::cli

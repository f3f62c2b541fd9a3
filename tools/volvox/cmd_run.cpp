// `volvox run model.onnx --input NAME=FILE.npy ... [--output-dir D] [--device cpu|vulkan[:N]]
// [--precision fp32|fp16]`: imports an ONNX model, runs it on the CPU (planned executor, eager
// fallback: session/model_runner.h) or on a Vulkan GPU (session/device_model_runner.h; nodes no
// Vulkan op runs fall back to the CPU, listed on stderr) and writes each output as NAME.npy,
// printing its shape. --profile prints per-node times (GPU timestamps on Vulkan) and where each
// node ran.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "core/error.h"
#include "core/file_io.h"
#include "flags.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "backends/vulkan/context.h"
#include "session/model_runner.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::cli {
namespace {

struct RunOptions {
  std::string model;
  std::vector<std::string> inputs;
  std::string output_dir = ".";
  std::string device = "cpu";
  std::string precision = "fp32";
  bool profile = false;
  bool eager = false;
  int max_memory_mb = 0;  // 0: no limit
};

// Output names may hold characters that are not safe in file names ("/" in exported graphs).
std::string file_safe(const std::string& name) {
  std::string s = name.empty() ? std::string("output") : name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  if (s == "." || s == "..") s = "_";
  return s;
}

void validate(const RunOptions& opt) {
  check_device(opt.device, /*allow_auto=*/false);
  const bool vulkan = opt.device != "cpu";
  VX_CHECK(opt.precision == "fp32" || opt.precision == "fp16", InvalidArgument, "unknown precision '", opt.precision,
           "' (use fp32 or fp16)");
  VX_CHECK(opt.precision == "fp32" || vulkan, Unsupported, "precision '", opt.precision,
           "' is not supported on the CPU (use fp32)");
  VX_CHECK(!vulkan || !opt.eager, InvalidArgument, "--eager runs on the CPU only");
  VX_CHECK(!opt.output_dir.empty(), InvalidArgument, "--output-dir is empty");
  check_range("--max-memory-mb", opt.max_memory_mb, 0, 1 << 24);
  for (const std::string& spec : opt.inputs) {
    const size_t eq = spec.find('=');
    VX_CHECK(eq != std::string::npos && eq > 0 && eq + 1 < spec.size(), InvalidArgument, "--input '", spec,
             "' must look like NAME=FILE.npy");
  }
}

// Each output's file, checked before the model runs: two names that sanitise alike, or a file that
// is also an input or the model, would lose data.
std::vector<std::filesystem::path> output_files(const Graph& graph, const RunOptions& opt) {
  std::vector<std::filesystem::path> files;
  std::map<std::string, std::string> taken;  // file name -> output name
  for (ValueId id : graph.outputs) {
    const std::string& name = graph.value(id).name;
    const std::string file = file_safe(name) + ".npy";
    auto [it, fresh] = taken.emplace(file, name);
    VX_CHECK(fresh, InvalidArgument, "outputs '", it->second, "' and '", name, "' would both be written to ", file,
             " in ", opt.output_dir);
    files.push_back(std::filesystem::path(opt.output_dir) / file);
    VX_CHECK(!same_file(files.back(), opt.model), InvalidArgument, "output '", name, "' would overwrite the model ",
             opt.model);
    for (const std::string& spec : opt.inputs)
      VX_CHECK(!same_file(files.back(), spec.substr(spec.find('=') + 1)), InvalidArgument, "output '", name,
               "' would overwrite the input file ", spec.substr(spec.find('=') + 1));
  }
  return files;
}

void run_command(const RunOptions& opt) {
  const bool vulkan = opt.device != "cpu";
  std::unique_ptr<vk::VulkanContext> ctx;
  if (vulkan) {
    vk::ContextOptions context_options;
    context_options.device_index = vk::parse_vulkan_device(opt.device);
    ctx = std::make_unique<vk::VulkanContext>(context_options);
  }
  Graph graph = import_onnx(opt.model);
  const std::vector<std::filesystem::path> files = output_files(graph, opt);

  std::map<std::string, Tensor> given;
  for (const std::string& spec : opt.inputs) {
    const size_t eq = spec.find('=');
    std::string name = spec.substr(0, eq);
    VX_CHECK(!given.count(name), InvalidArgument, "input '", name, "' is given twice");
    given[name] = read_npy(spec.substr(eq + 1));
  }
  std::vector<Tensor> inputs;
  for (ValueId id : graph.inputs) {
    const Value& v = graph.value(id);
    auto it = given.find(v.name);
    VX_CHECK(it != given.end(), InvalidArgument, "the model needs input '", v.name, "' (", dtype_name(v.dtype), " ",
             v.shape.str(), "): pass --input ", v.name, "=FILE.npy");
    inputs.push_back(it->second);
    given.erase(it);
  }
  VX_CHECK(given.empty(), InvalidArgument, "the model has no input named '", given.begin()->first, "'");

  Profile profile;
  std::vector<Tensor> outputs;
  std::unique_ptr<ModelRunner> cpu_runner;
  std::unique_ptr<DeviceModelRunner> vulkan_runner;
  std::string placements;
  if (vulkan) {
    DeviceRunnerOptions runner_options;
    runner_options.precision = opt.precision == "fp16" ? Precision::fp16 : Precision::fp32;
    runner_options.timestamps = opt.profile ? runtime::Timestamps::per_node : runtime::Timestamps::none;
    runner_options.max_memory_mb = uint64_t(opt.max_memory_mb);
    vulkan_runner = std::make_unique<DeviceModelRunner>(vk::compute_device(*ctx), std::move(graph), runner_options);
    outputs = vulkan_runner->run(inputs, opt.profile ? &profile : nullptr);
    auto exe = vulkan_runner->last_executable();
    for (const auto& p : exe->fallbacks())
      std::fprintf(stderr, "note: node '%s' (%s) ran on the CPU: %s\n", p.node.c_str(), p.op.c_str(), p.reason.c_str());
    placements = exe->placement_report();
  } else {
    ModelRunnerOptions runner_options;
    runner_options.planned = !opt.eager;
    runner_options.max_memory_mb = uint64_t(opt.max_memory_mb);
    cpu_runner = std::make_unique<ModelRunner>(std::move(graph), runner_options);
    outputs = cpu_runner->run(inputs, opt.profile ? &profile : nullptr);
    if (!cpu_runner->last_run_planned())
      std::fprintf(stderr, "note: ran on the eager runner (%s)\n", cpu_runner->fallback_reason().c_str());
  }
  const Graph& ran = vulkan ? vulkan_runner->graph() : cpu_runner->graph();
  std::filesystem::create_directories(opt.output_dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = ran.value(ran.outputs[i]).name;
    const std::filesystem::path& file = files.at(i);
    write_npy(file, outputs[i]);
    std::printf("%s: %s %s -> %s\n", name.c_str(), std::string(dtype_name(outputs[i].dtype())).c_str(),
                outputs[i].shape().str().c_str(), file.string().c_str());
  }
  if (opt.profile) {
    const MemoryNeeds needs = vulkan ? vulkan_runner->last_memory_needs() : MemoryNeeds{cpu_runner->last_arena_bytes(), 0};
    std::printf("\nmemory: %.1f MB activation arena, %.1f MB other device buffers\n", needs.arena_bytes / 1048576.0,
                needs.other_bytes / 1048576.0);
    std::printf("\n%s", profile.str().c_str());
    if (vulkan) std::printf("\nplacement (device %s):\n%s", ctx->info().name.c_str(), placements.c_str());
  }
}

void setup_run(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run an ONNX model on .npy inputs and write .npy outputs");
  cmd->add_option("model", opt->model, "the .onnx model")->required()->check(CLI::ExistingFile);
  cmd->add_option("--input,-i", opt->inputs, "NAME=FILE.npy, once per model input");
  cmd->add_option("--output-dir,-o", opt->output_dir, "folder for NAME.npy per output (default: .)");
  cmd->add_option("--device", opt->device, "cpu (default), vulkan or vulkan:N");
  cmd->add_option("--precision", opt->precision, "fp32 (default) or fp16 (Vulkan: fp16 storage, fp32 arithmetic)");
  cmd->add_flag("--profile", opt->profile, "print per-node milliseconds and kernel variants");
  cmd->add_flag("--eager", opt->eager, "skip planning: run node by node on the eager runner");
  cmd->add_option("--max-memory-mb", opt->max_memory_mb,
                  "refuse a plan whose activation arena (and, on Vulkan, device buffers) exceeds this (0: no limit)");
  cmd->callback([opt] {
    validate(*opt);
    if (!validate_only()) run_command(*opt);
  });
}

}  // namespace

VX_REGISTER_COMMAND(run, setup_run);

}  // namespace vx::cli

// `volvox run model.onnx --input NAME=FILE.npy ... [--output-dir D] [--device cpu] [--precision fp32]`:
// imports an ONNX model, runs it on the CPU (planned executor, eager fallback: runtime/model_runner.h)
// and writes each output as NAME.npy, printing its shape. --profile prints per-node times and
// kernel variants.
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "core/error.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "runtime/model_runner.h"

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
};

// Output names may hold characters that are not safe in file names ("/" in exported graphs).
std::string file_safe(const std::string& name) {
  std::string s = name.empty() ? std::string("output") : name;
  for (char& c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.')) c = '_';
  if (s == "." || s == "..") s = "_";
  return s;
}

void run_command(const RunOptions& opt) {
  VX_CHECK(opt.device == "cpu", Unsupported, "device '", opt.device, "' is not available for ONNX models yet (use --device cpu)");
  VX_CHECK(opt.precision == "fp32", Unsupported, "precision '", opt.precision, "' is not supported on the CPU (use fp32)");
  Graph graph = import_onnx(opt.model);

  std::map<std::string, Tensor> given;
  for (const std::string& spec : opt.inputs) {
    size_t eq = spec.find('=');
    VX_CHECK(eq != std::string::npos && eq > 0, InvalidArgument, "--input '", spec, "' must look like NAME=FILE.npy");
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

  ModelRunnerOptions runner_options;
  runner_options.planned = !opt.eager;
  ModelRunner runner(std::move(graph), runner_options);
  Profile profile;
  std::vector<Tensor> outputs = runner.run(inputs, opt.profile ? &profile : nullptr);
  if (!runner.last_run_planned())
    std::fprintf(stderr, "note: ran on the eager runner (%s)\n", runner.fallback_reason().c_str());
  const Graph& ran = runner.graph();
  std::filesystem::create_directories(opt.output_dir);
  for (size_t i = 0; i < outputs.size(); ++i) {
    const std::string& name = ran.value(ran.outputs[i]).name;
    std::filesystem::path file = std::filesystem::path(opt.output_dir) / (file_safe(name) + ".npy");
    write_npy(file, outputs[i]);
    std::printf("%s: %s %s -> %s\n", name.c_str(), std::string(dtype_name(outputs[i].dtype())).c_str(),
                outputs[i].shape().str().c_str(), file.string().c_str());
  }
  if (opt.profile) std::printf("\n%s", profile.str().c_str());
}

void setup(CLI::App& app) {
  auto opt = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand("run", "Run an ONNX model on .npy inputs and write .npy outputs");
  cmd->add_option("model", opt->model, "the .onnx model")->required()->check(CLI::ExistingFile);
  cmd->add_option("--input,-i", opt->inputs, "NAME=FILE.npy, once per model input");
  cmd->add_option("--output-dir,-o", opt->output_dir, "folder for NAME.npy per output (default: .)");
  cmd->add_option("--device", opt->device, "cpu (default)");
  cmd->add_option("--precision", opt->precision, "fp32 (default)");
  cmd->add_flag("--profile", opt->profile, "print per-node milliseconds and kernel variants");
  cmd->add_flag("--eager", opt->eager, "skip planning: run node by node on the eager runner");
  cmd->callback([opt] { run_command(*opt); });
}

}  // namespace

VX_REGISTER_COMMAND(run, setup);

}  // namespace vx::cli

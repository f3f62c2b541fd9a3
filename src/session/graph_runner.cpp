#include "session/graph_runner.h"

#include "core/error.h"
#include "passes/optimize.h"

namespace vx {

GraphRunner::GraphRunner(Graph graph, RunnerOptions options)
    : graph_(std::move(graph)), options_(options), cache_(options.plan_cache_capacity) {
  graph_.validate();
  if (options_.optimize) optimize_for_inference(graph_);
  if (options_.threads > 0) pool_ = std::make_unique<ThreadPool>(options_.threads);
}

std::shared_ptr<cpu::CpuExecutable> GraphRunner::executable(const std::map<std::string, Shape>& input_shapes) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  last_needs_ = {};
  std::shared_ptr<cpu::CpuExecutable> exe = cache_.get_or_create(input_shapes, [&] {
    Plan plan = cpu::make_cpu_plan(graph_, input_shapes, options_.reference_only);
    last_needs_ = {uint64_t(plan.arena_bytes), 0};
    check_memory_limit(last_needs_, options_.max_memory_mb, input_shapes);  // before the arena exists
    cpu::CpuOptions cpu_options;
    cpu_options.reference_only = options_.reference_only;
    cpu_options.pool = pool_.get();
    return std::make_shared<cpu::CpuExecutable>(std::move(plan), cpu_options);
  });
  // A plan cached under a higher limit (or none).
  last_needs_ = {uint64_t(exe->arena_bytes()), 0};
  check_memory_limit(last_needs_, options_.max_memory_mb, input_shapes);
  return exe;
}

void GraphRunner::set_max_memory_mb(uint64_t mb) {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  options_.max_memory_mb = mb;
}

uint64_t GraphRunner::max_memory_mb() const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  return options_.max_memory_mb;
}

MemoryNeeds GraphRunner::last_memory_needs() const {
  std::lock_guard<std::mutex> lock(cache_mutex_);
  return last_needs_;
}

std::vector<Tensor> GraphRunner::run(const std::vector<Tensor>& inputs, Profile* profile) {
  std::vector<Tensor> outputs;
  run(inputs, outputs, profile);
  return outputs;
}

void GraphRunner::run(const std::vector<Tensor>& inputs, std::vector<Tensor>& outputs, Profile* profile) {
  VX_CHECK(inputs.size() == graph_.inputs.size(), InvalidArgument, "graph '", graph_.name, "' takes ",
           graph_.inputs.size(), " inputs, got ", inputs.size());
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) {
    VX_CHECK(inputs[i].defined(), InvalidArgument, "input ", i, " ('", graph_.value(graph_.inputs[i]).name,
             "') is empty");
    shapes[graph_.value(graph_.inputs[i]).name] = inputs[i].shape();
  }
  executable(shapes)->run(inputs, outputs, profile);
}

}  // namespace vx

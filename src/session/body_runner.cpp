#include "session/body_runner.h"

#include <cstring>

#include "backends/cpu/kernel_registry.h"
#include "core/error.h"

namespace vx {

BodyRunner::BodyRunner(GraphAttribute body, const Node& owner)
    : body_(std::move(body)), owner_(cat("node '", owner.name, "' (", owner.op, ")")) {
  VX_CHECK(body_ != nullptr, InvalidFile, owner_, " has no body graph");
}

std::vector<Tensor> BodyRunner::run(const std::vector<Tensor>& inputs) {
  VX_CHECK(inputs.size() == body_->inputs.size(), InvalidArgument, owner_, ": its body takes ", body_->inputs.size(),
           " inputs, not ", inputs.size());
  std::lock_guard<std::mutex> lock(mutex_);
  // The inputs' types and shapes compared in place (a streaming model calls this per chunk).
  auto same_as_last = [&] {
    if (!executable_ || inputs.size() != shapes_.size() || inputs.size() != dtypes_.size()) return false;
    for (size_t i = 0; i < inputs.size(); ++i)
      if (inputs[i].dtype() != dtypes_[i] || inputs[i].shape() != shapes_[i]) return false;
    return true;
  };
  if (same_as_last()) return executable_->run(inputs);
  executable_ = nullptr;
  std::vector<DType> dtypes;
  std::vector<Shape> shapes;
  for (const Tensor& t : inputs) dtypes.push_back(t.dtype()), shapes.push_back(t.shape());
  if (!runner_ || dtypes != dtypes_) {
    Graph g = *body_;
    for (size_t i = 0; i < inputs.size(); ++i) {
      Value& v = g.value(g.inputs[i]);
      if (v.dtype != dtypes[i]) {  // the declared type was a guess: take the shape from the run too
        v.dtype = dtypes[i];
        v.shape = Shape();
        v.dim_params.clear();
      }
    }
    runner_ = std::make_unique<ModelRunner>(std::move(g));
    dtypes_ = std::move(dtypes);
  }
  std::vector<Tensor> outputs = runner_->run(inputs);
  if (runner_->last_run_planned()) executable_ = runner_->last_executable(), shapes_ = std::move(shapes);
  return outputs;
}

void copy_to_output(cpu::KernelContext& ctx, size_t i, const Tensor& t) {
  Tensor& out = ctx.output(i, t.dtype(), t.shape());
  if (t.nbytes() > 0) std::memcpy(out.raw(), t.raw(), t.nbytes());
}

}  // namespace vx

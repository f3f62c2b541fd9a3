// Runs the body of a control-flow node (If's branches, Loop's and Scan's body: ops/control_flow.h)
// on the CPU as a model of its own (ModelRunner: optimised once, planned per set of input shapes,
// the eager runner where it cannot be planned), so that a body holding a whole network (Silero VAD
// keeps its two networks in an If) runs on the fast kernels like any model. The kernels of If, Loop
// and Scan register at priority 0 (constant folding may run them) as variant "body": in a profile
// their time is their body's, on whatever kernels the body's nodes get.
#pragma once
#include <memory>
#include <mutex>
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "session/model_runner.h"

namespace vx {

class BodyRunner {
 public:
  // `owner`: the node, for errors.
  BodyRunner(GraphAttribute body, const Node& owner);

  // Inputs in the body's input order; returns its outputs (never views of a run's arena, so they
  // may be kept across runs and fed back as inputs).
  std::vector<Tensor> run(const std::vector<Tensor>& inputs);
  size_t num_inputs() const { return body_->inputs.size(); }
  size_t num_outputs() const { return body_->outputs.size(); }

 private:
  GraphAttribute body_;
  std::string owner_;
  std::mutex mutex_;
  // Made at the first run: a body's input types are those of the values the node reads, which the
  // importer cannot always tell (a value without type information); a run with other types makes
  // a new one.
  std::vector<DType> dtypes_;
  std::unique_ptr<ModelRunner> runner_;
  // The last planned run's executable and input shapes: a run with the same shapes (every step of a
  // Loop, every call of a streaming model) goes to it directly, past the runner's plan lookup.
  std::shared_ptr<runtime::ScheduledExecutable> executable_;
  std::vector<Shape> shapes_;
};

// Writes `t` into the kernel's output i (a copy: the output may be arena memory).
void copy_to_output(cpu::KernelContext& ctx, size_t i, const Tensor& t);

}  // namespace vx

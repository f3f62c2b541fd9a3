// A bound graph split between backends (scheduler.h) and compiled by each: runs the segments in
// order, the backends copying values across their borders, and reports where every node ran.
#pragma once
#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "runtime/backend.h"
#include "runtime/profile.h"
#include "runtime/scheduler.h"
#include "runtime/value_table.h"

namespace vx::runtime {

// Thrown by run() when a node on the host made a value of another shape than the one the other
// backends were compiled for (an op whose output shape depends on data, observed on earlier
// inputs): the caller rebinds the graph to these inputs (session/device_model_runner.cpp does).
class ShapeChanged : public Error {
 public:
  explicit ShapeChanged(const std::string& message) : Error(ErrorCode::Unsupported, message) {}
};

class ScheduledExecutable {
 public:
  // `backends` in order of preference (the host backend last); they are kept for the
  // executable's lifetime.
  ScheduledExecutable(BoundGraph bound, std::vector<std::unique_ptr<Backend>> backends);

  // Inputs in graph input order with the bound shapes and the graph's dtypes; returns the outputs
  // in graph output order. Runs are serialised.
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile = nullptr);
  // The same with IO binding: `device_values` names graph inputs and outputs (float32) that live in
  // buffers of the preferred backend's device, whose readers (an input) or producer (an output) all
  // run there; InvalidArgument names one that does not. A bound input's entry of `inputs` is a
  // placeholder of its shape (Tensor::wrap(dtype, shape, nullptr)); a bound output comes back as one.
  struct NamedDeviceValue {
    std::string name;
    uint64_t buffer = 0, offset = 0;
  };
  std::vector<Tensor> run(const std::vector<Tensor>& inputs, Profile* profile,
                          const std::vector<NamedDeviceValue>& device_values);

  // The last run's device time in ms (GPU timestamps where the backend records them, else its wall
  // clock, plus the nodes on the CPU): Profile::total_ms() without building a profile, whose
  // per-node entries cost ~0.2 us a node (a 150-node model: ~30 us a run).
  double last_run_device_ms() const { return last_run_device_ms_.load(); }

  // Every node in execution order and where it runs.
  const std::vector<NodePlacement>& placements() const { return schedule_.placements; }
  // The nodes that are not on the preferred backend for lack of a kernel (shape computations
  // are there by design and not listed).
  std::vector<NodePlacement> fallbacks() const;
  // True when every node that touches a float tensor runs on the preferred backend.
  bool floats_all_preferred() const;
  // One line per node: "node (op): vulkan variant" / "node (op): cpu variant (reason)".
  std::string placement_report() const;

  const Graph& bound_graph() const { return bound_.graph; }
  // Per value of bound_graph(): its shape is final (false: it depends on data).
  const std::vector<bool>& shape_known() const { return bound_.shape_known; }
  size_t segment_count() const { return schedule_.segments.size(); }
  // What the backends allocated (the device arena, constants and staging buffers).
  MemoryNeeds memory_needs() const;
  // What backend `b` (index into the constructor's list) compiled; null when it got no segment.
  // For callers that drive one backend's compiled form directly (the denoiser's whole-image path
  // on Vulkan records the network into its own command buffer).
  CompiledSegments* compiled(size_t b) const { return b < compiled_.size() ? compiled_[b].get() : nullptr; }

 private:
  void check_shapes_of_sends(const Segment& seg, const HostValues& host) const;
  // Resolves and checks the bindings, hands each backend its own (when they changed); returns the
  // bound value ids.
  std::vector<bool> bind_device_values(const std::vector<NamedDeviceValue>& device_values);

  BoundGraph bound_;
  std::vector<std::unique_ptr<Backend>> backends_;
  Schedule schedule_;
  std::vector<std::unique_ptr<CompiledSegments>> compiled_;  // per backend (null when it got none)
  std::vector<size_t> index_in_backend_;                     // per segment: its index among its backend's
  std::vector<bool> read_off_host_;                          // per value: a non-host backend reads it
  std::vector<std::vector<DeviceValue>> device_values_;      // per backend: the bindings it was given
  ValueTable host_;              // the runs' host values (value_table.h)
  std::vector<double> node_ms_;  // per node: its time in the last run
  std::mutex run_mutex_;
  std::atomic<double> last_run_device_ms_{0.0};
};

}  // namespace vx::runtime

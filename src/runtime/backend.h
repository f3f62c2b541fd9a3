// The backend interface: what the scheduler (scheduler.h) asks of a device that runs nodes.
//
// One Backend object plans one executable: the scheduler calls supports() for every node it
// offers the backend, in execution order (a backend may keep what it worked out, e.g. a Vulkan
// op's dispatches, for compile()), then compile() once with the segments it was given. Segments of
// one backend share its memory: a value one of them makes and a later one reads stays on the
// device. Values cross between backends as host tensors (HostValues), copied by the backend at
// its segments' borders (Segment::receives / sends).
//
// A new backend is a folder under src/backends/ implementing this interface (and a
// runtime::ComputeDevice that makes it, device.h); nothing else in the engine names it.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/error.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "runtime/memory_limit.h"

namespace vx::runtime {

// A graph bound to one set of input shapes (bind_graph.h).
struct BoundGraph {
  Graph graph;
  std::vector<bool> shape_known;  // per value: its shape is final (false: it depends on data)
};

// A backend's answer for one node.
struct NodeSupport {
  bool supported = false;
  std::string variant;  // the kernel variant that runs it, when supported
  std::string reason;   // why not, when not supported
};

// Consecutive nodes (in execution order) on one backend, and the values that cross its border.
struct Segment {
  size_t backend = 0;             // index into the schedule's backends
  std::vector<size_t> nodes;      // node indices into BoundGraph::graph.nodes
  std::vector<ValueId> receives;  // non-constant values read here that this backend does not hold yet
                                  // (graph inputs, values made by another backend): in HostValues
  std::vector<ValueId> sends;     // values made here that another backend or the caller reads:
                                  // written to HostValues
};

// Host tensors indexed by ValueId: graph inputs and constants, and every value a segment sends.
using HostValues = std::vector<Tensor>;

// IO binding (as ONNX Runtime's): a graph input or output that lives in a buffer of the backend's
// own device (Vulkan: a VkBuffer, as runtime::Buffer::native_handle() gives it), read or written
// there in place of HostValues. The buffer holds the value as the graph's dtype, row-major.
struct DeviceValue {
  ValueId value = kNoValue;
  uint64_t buffer = 0;  // the device's handle
  uint64_t offset = 0;  // bytes
};

// What compile() returns: runs the backend's segments of one executable.
class CompiledSegments {
 public:
  virtual ~CompiledSegments() = default;
  // Runs the k-th segment given to compile(): reads its receives from `host`, writes its sends
  // there. node_ms (per graph node) gets the time of each node it ran.
  virtual void run(size_t k, HostValues& host, std::vector<double>& node_ms) = 0;
  // What this backend allocated for the executable (the user's memory limit counts it).
  virtual MemoryNeeds memory_needs() const { return {}; }
  // Binds values its segments receive (graph inputs) or send (graph outputs) to device buffers for
  // the following runs, replacing earlier bindings (empty: none). A bound input's HostValues entry
  // is then a placeholder without data; a bound output's is left empty. Throws Unsupported when the
  // backend has no such buffers.
  virtual void bind_device_values(const std::vector<DeviceValue>& values) {
    VX_CHECK(values.empty(), Unsupported, "this backend cannot read or write device buffers");
  }
};

class Backend {
 public:
  virtual ~Backend() = default;
  virtual std::string name() const = 0;  // "cpu", "vulkan": the prefix of the profile's variants
  // True for a backend that computes on host tensors (no copies at its borders): the scheduler
  // keeps shape computations and nodes of data-dependent shape there.
  virtual bool on_host() const = 0;
  virtual NodeSupport supports(const BoundGraph& bound, size_t node) = 0;
  // `segments` in execution order; they outlive the returned object.
  virtual std::unique_ptr<CompiledSegments> compile(const BoundGraph& bound,
                                                    const std::vector<const Segment*>& segments) = 0;
};

}  // namespace vx::runtime

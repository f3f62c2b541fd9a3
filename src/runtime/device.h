// A compute device: what executables run on (the CPU, one Vulkan GPU). It lives long (a Vulkan
// device keeps its context: queue, memory, pipeline cache), makes buffers in its memory
// (buffer.h), and makes, per executable, the backend that plans nodes on it (backend.h). The session layer schedules that backend first and the CPU,
// the host backend, after it for whatever the device does not run.
//
// The filter's denoise::Device and the model API reach the engine through this interface; a new
// backend provides one (see docs/ARCHITECTURE.md, "Where to add things").
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/precision.h"
#include "runtime/backend.h"
#include "runtime/buffer.h"
#include "runtime/memory_limit.h"
#include "runtime/physical_device.h"
#include "runtime/timestamps.h"

namespace vx::runtime {

struct ExecutableOptions {
  Precision precision = Precision::fp32;  // fp16: devices with fp16_available() only
  Timestamps timestamps = Timestamps::none;  // GPU timestamps in runs (per_node: per-node device times in profiles)
  uint64_t max_memory_mb = 0;     // > 0: refuse (OutOfMemory) an executable above it, before allocating
  MemoryNeeds* needs = nullptr;   // filled with what the executable needs, also when refused
  // The device's kernel choice: "auto" lets it pick; other values are the device's own (CPU:
  // "reference", cpu_device.h; Vulkan: "ops", or a conv variant for the layers of a fused conv
  // network, vulkan_backend.h). Unsupported for a value the device does not know.
  std::string kernels = "auto";
  // OIDN's fastMath (its filters' quality below HIGH): the device may trade accuracy for speed
  // (Vulkan: fp16 accumulators in the fp16 tensor-core convolutions); devices without such a
  // trade ignore it.
  bool fast_math = false;
};

class ComputeDevice {
 public:
  virtual ~ComputeDevice() = default;
  virtual std::string name() const = 0;  // "cpu", "vulkan:0 (NVIDIA H200)"
  // The CPU: its backend is the host backend itself.
  virtual bool on_host() const = 0;
  virtual bool fp16_available() const = 0;
  // The graph passes this device's kernels want (fusions it runs fused), applied once per model.
  virtual void optimize(Graph& graph) const = 0;
  // Throws Unsupported when `options` ask what the device lacks (fp16).
  virtual std::unique_ptr<Backend> make_backend(const ExecutableOptions& options) const = 0;
  // A buffer of `bytes` bytes (> 0) in the device's memory (buffer.h), zero-filled; throws
  // OutOfMemory when the device cannot hold it, Unsupported for a storage it cannot provide.
  virtual std::shared_ptr<Buffer> make_buffer(uint64_t bytes, BufferStorage storage) const = 0;
  // The ExternalMemoryType bits import_buffer() takes (0: none).
  virtual uint32_t external_memory_types() const { return 0; }
  // A buffer over `bytes` bytes of memory another API exported as the file descriptor `fd` (of
  // one of external_memory_types()); on success the device owns fd (closes it with the buffer),
  // on failure the caller still does. Unsupported for a type the device cannot import.
  virtual std::shared_ptr<Buffer> import_buffer(ExternalMemoryType type, int fd, uint64_t bytes) const;
  // The device's one submission queue, locked: every submit of the engine takes this lock, and so
  // must anyone else submitting to the same queue. Devices without a queue return an empty lock.
  virtual std::unique_lock<std::mutex> lock_queue() const { return {}; }
};

// Compute devices by name, for callers that must not depend on a backend (the filter's
// Device::create): a backend's folder registers its kind at static initialisation. `make` gets
// "name" or "name:..." and returns nullptr when no such device is present. A program linking the
// static library links it whole, or the registrations are dropped.
struct ComputeDeviceKind {
  std::string name;
  std::function<std::shared_ptr<const ComputeDevice>(const std::string& kind)> make;
};
bool register_compute_device_kind(ComputeDeviceKind kind);
// Whether the device string `kind` ("vulkan", "vulkan:1") names the kind `name` ("vulkan").
bool names_device_kind(const std::string& kind, const std::string& name);
// The registered kind `kind` names ("name" or "name:..."); nullptr when none does.
const ComputeDeviceKind* find_compute_device_kind(const std::string& kind);
std::vector<std::string> compute_device_kind_names();

}  // namespace vx::runtime

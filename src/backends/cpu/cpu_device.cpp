#include "backends/cpu/cpu_device.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/host_buffer.h"
#include "core/error.h"
#include "passes/optimize_onnx.h"

namespace vx::cpu {
namespace {

class CpuComputeDevice final : public runtime::ComputeDevice {
 public:
  std::string name() const override { return "cpu"; }
  bool on_host() const override { return true; }
  bool fp16_available() const override { return false; }
  void optimize(Graph& graph) const override { optimize_onnx(graph); }
  std::shared_ptr<runtime::Buffer> make_buffer(uint64_t bytes, runtime::BufferStorage storage) const override {
    return make_host_buffer(bytes, storage);
  }
  std::unique_ptr<runtime::Backend> make_backend(const runtime::ExecutableOptions& options) const override {
    VX_CHECK(!options.fp16, Unsupported, "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
    VX_CHECK(options.kernels.empty() || options.kernels == "auto", Unsupported, "kernel choice '", options.kernels,
             "' is for the vulkan device; the cpu device picks its kernels itself (use auto)");
    CpuBackendOptions o;
    o.max_memory_mb = options.max_memory_mb;
    o.needs = options.needs;
    return std::make_unique<CpuBackend>(o);
  }
};

}  // namespace

std::shared_ptr<const runtime::ComputeDevice> cpu_compute_device() {
  static const auto device = std::make_shared<const CpuComputeDevice>();
  return device;
}

}  // namespace vx::cpu

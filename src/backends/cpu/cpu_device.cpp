#include "backends/cpu/cpu_device.h"

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/host_buffer.h"
#include "core/error.h"
#include "core/thread_pool.h"
#include "passes/optimize_onnx.h"

namespace vx::cpu {
namespace {

class CpuComputeDevice final : public runtime::ComputeDevice {
 public:
  explicit CpuComputeDevice(std::unique_ptr<ThreadPool> pool) : pool_(std::move(pool)) {}
  std::string name() const override { return "cpu"; }
  bool on_host() const override { return true; }
  bool fp16_available() const override { return false; }
  void optimize(Graph& graph) const override { optimize_onnx(graph); }
  std::shared_ptr<runtime::Buffer> make_buffer(uint64_t bytes, runtime::BufferStorage storage) const override {
    return make_host_buffer(bytes, storage);
  }
  std::unique_ptr<runtime::Backend> make_backend(const runtime::ExecutableOptions& options) const override {
    VX_CHECK(options.precision == Precision::fp32, Unsupported,
             "fp16 is supported on the vulkan device only; the cpu device computes in fp32");
    const bool reference = options.kernels == "reference";
    VX_CHECK(options.kernels.empty() || options.kernels == "auto" || reference, Unsupported, "kernel choice '",
             options.kernels, "' is not one of the cpu device's (auto, reference)");
    CpuBackendOptions o;
    o.reference_only = reference;
    o.pool = pool_.get();
    o.max_memory_mb = options.max_memory_mb;
    o.needs = options.needs;
    return std::make_unique<CpuBackend>(o);
  }

 private:
  std::unique_ptr<ThreadPool> pool_;  // null: the global pool
};

}  // namespace

std::shared_ptr<const runtime::ComputeDevice> cpu_compute_device() {
  static const auto device = std::make_shared<const CpuComputeDevice>(nullptr);
  return device;
}

std::shared_ptr<const runtime::ComputeDevice> make_cpu_compute_device(int threads) {
  VX_CHECK(threads > 0, InvalidArgument, "a CPU device needs at least one thread, not ", threads);
  return std::make_shared<const CpuComputeDevice>(std::make_unique<ThreadPool>(threads));
}

}  // namespace vx::cpu

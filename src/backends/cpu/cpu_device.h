// The CPU as a compute device (runtime/device.h): its backend is CpuBackend, its graph passes
// the ONNX pipeline (passes/optimize_onnx.h). Kernel choices (ExecutableOptions::kernels):
// "auto" (the fast kernels where they apply) or "reference" (only the reference kernels: the
// oracle, for tests and debugging).
#pragma once
#include <memory>

#include "runtime/device.h"

namespace vx::cpu {

// The CPU on the global thread pool (ThreadPool::global()).
std::shared_ptr<const runtime::ComputeDevice> cpu_compute_device();
// The CPU on a private pool of `threads` threads (> 0), owned by the device: executables made on it
// run their kernels, oneDNN's included, on that many threads.
std::shared_ptr<const runtime::ComputeDevice> make_cpu_compute_device(int threads);

}  // namespace vx::cpu

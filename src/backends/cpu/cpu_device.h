// The CPU as a compute device (runtime/device.h): its backend is CpuBackend, its graph passes
// the ONNX pipeline (passes/optimize_onnx.h).
#pragma once
#include <memory>

#include "runtime/device.h"

namespace vx::cpu {

std::shared_ptr<const runtime::ComputeDevice> cpu_compute_device();

}  // namespace vx::cpu

// Which GPU timestamps an executable records in its runs (where the device has them).
#pragma once

namespace vx::runtime {

enum class Timestamps {
  none,
  // One before and one after each GPU segment: the run's device time; a profile gives the nodes of a
  // segment equal shares of it.
  per_segment,
  // One after every node as well: per-node device times. Each waits for the work before it, which
  // costs time: on the H200 6-20% of a small model's GPU time (bench/onnx/results/
  // vulkan_gemm_h200_2026-12-04/), so benchmarks without a profile take per_segment.
  per_node,
};

}  // namespace vx::runtime

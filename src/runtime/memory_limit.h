// The user's memory limit for a model (max_memory_mb; the C API's "maxMemoryMB"): what a plan for
// one set of input shapes needs, checked before anything is allocated.
#pragma once
#include <cstdint>
#include <map>
#include <string>

#include "core/shape.h"

namespace vx {

struct MemoryNeeds {
  uint64_t arena_bytes = 0;  // the activation arena (with per-node scratch)
  uint64_t other_bytes = 0;  // Vulkan: the device buffers besides the arena (constants, staging); CPU: 0
  // Every activation's size added up: what the arena would hold if no two values shared memory
  // (reports; 0 where the backend does not say).
  uint64_t sum_activation_bytes = 0;
  uint64_t total() const { return arena_bytes + other_bytes; }
};

// Throws vx::Error(OutOfMemory) with one line when needs.total() exceeds max_mb MiB (0: no limit):
//   model needs a 3512 MB activation arena for input shapes x=1x3x4096x4096, above the limit of
//   1024 MB (maxMemoryMB)
// (with ", plus N MB of other device buffers," on Vulkan). Sizes are MiB, rounded up.
void check_memory_limit(const MemoryNeeds& needs, uint64_t max_mb, const std::map<std::string, Shape>& input_shapes);

}  // namespace vx

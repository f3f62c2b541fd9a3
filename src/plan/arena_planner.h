// The activation arena planner: given buffers with sizes and lifetimes (first and last step that
// touches them), gives each an offset in one arena so that buffers alive at the same time never
// share bytes. Greedy by size with best fit (as TFLite's and OIDN's arena planners): the largest
// buffers are placed first, each in the smallest gap between already placed, time-overlapping
// buffers that holds it, else above them all.
#pragma once
#include <cstddef>
#include <vector>

namespace vx::plan {

inline constexpr size_t kArenaAlignment = 64;

struct BufferRequest {
  size_t bytes = 0;
  int first_step = 0;  // inclusive
  int last_step = 0;   // inclusive
};

struct ArenaLayout {
  std::vector<size_t> offsets;  // one per request, multiples of the alignment
  size_t arena_bytes = 0;
};

// Every buffer takes its size rounded up to `alignment` (at least one alignment unit), so that
// every offset is a multiple of it (a device's storage-buffer offset alignment, for one).
ArenaLayout plan_arena(const std::vector<BufferRequest>& requests, size_t alignment = kArenaAlignment);

inline size_t align_up(size_t bytes, size_t alignment = kArenaAlignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace vx::plan

#include "plan/arena_planner.h"

#include <algorithm>
#include <limits>
#include <numeric>

namespace vx::plan {

ArenaLayout plan_arena(const std::vector<BufferRequest>& requests, size_t alignment) {
  ArenaLayout layout;
  layout.offsets.assign(requests.size(), 0);
  std::vector<size_t> order(requests.size());
  std::iota(order.begin(), order.end(), size_t(0));
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return requests[a].bytes > requests[b].bytes; });

  struct Placed {
    size_t offset, bytes;
    int first, last;
  };
  std::vector<Placed> placed;  // kept sorted by offset
  for (size_t index : order) {
    const BufferRequest& r = requests[index];
    const size_t bytes = align_up(std::max<size_t>(r.bytes, 1), alignment);
    size_t best_offset = 0, best_gap = std::numeric_limits<size_t>::max();
    bool found_gap = false;
    size_t cursor = 0;  // lowest free byte above the overlapping buffers seen so far
    for (const Placed& p : placed) {
      if (p.last < r.first_step || r.last_step < p.first) continue;  // never alive together
      if (p.offset >= cursor + bytes) {
        const size_t gap = p.offset - cursor;
        if (gap < best_gap) {
          best_gap = gap;
          best_offset = cursor;
          found_gap = true;
        }
      }
      cursor = std::max(cursor, p.offset + p.bytes);
    }
    const size_t offset = found_gap ? best_offset : cursor;
    layout.offsets[index] = offset;
    layout.arena_bytes = std::max(layout.arena_bytes, offset + bytes);
    Placed entry{offset, bytes, r.first_step, r.last_step};
    placed.insert(std::upper_bound(placed.begin(), placed.end(), entry,
                                   [](const Placed& a, const Placed& b) { return a.offset < b.offset; }),
                  entry);
  }
  return layout;
}

}  // namespace vx::plan

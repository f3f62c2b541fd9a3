// Which dispatches of a recording need a barrier before them. A pipeline barrier between two
// dependent dispatches costs an H200 ~5 us however little they do
// (bench/onnx/results/dispatch_floor_h200_2026-12-04/); between independent ones (a detector's
// pyramid branches, SSDLite's heads) it only serialises them. The executor records one where a
// dispatch reads bytes that a dispatch since the last barrier wrote, or writes bytes that one read
// or wrote; dispatches in between run concurrently. A dispatch's bytes are its bindings' whole
// ranges, as the validation layer's synchronization checks see them.
#pragma once
#include <cstdint>
#include <vector>

namespace vx::vk {

// Bytes [begin, end) of one of the executor's buffers (its own numbering: arena, staging, ...).
struct ByteRange {
  int buffer = 0;
  uint64_t begin = 0, end = 0;
  bool overlaps(const ByteRange& o) const { return buffer == o.buffer && begin < o.end && o.begin < end; }
};

// What one dispatch may read and write (read-only buffers such as constants need no entry; a range
// both read and written goes in `writes`, which conflict with both).
struct DispatchAccess {
  std::vector<ByteRange> reads, writes;
};

class DispatchHazards {
 public:
  // Whether `next` must wait for the dispatches recorded since the last barrier; it is then counted
  // among them (after the barrier the caller records, when true).
  bool needs_barrier(const DispatchAccess& next);
  // Something other than a tracked dispatch (a copy, an upload) was recorded or a barrier was: the
  // next dispatch barriers, and nothing before it is pending.
  void reset() {
    pending_reads_.clear();
    pending_writes_.clear();
    unknown_ = true;
  }

 private:
  std::vector<ByteRange> pending_reads_, pending_writes_;
  bool unknown_ = true;  // work of unknown extent since the last barrier
};

}  // namespace vx::vk

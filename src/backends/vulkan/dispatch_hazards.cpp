#include "backends/vulkan/dispatch_hazards.h"

#include <algorithm>

namespace vx::vk {
namespace {

bool any_overlap(const std::vector<ByteRange>& a, const std::vector<ByteRange>& b) {
  return std::any_of(a.begin(), a.end(), [&](const ByteRange& r) {
    return std::any_of(b.begin(), b.end(), [&](const ByteRange& s) { return r.overlaps(s); });
  });
}

}  // namespace

bool DispatchHazards::needs_barrier(const DispatchAccess& next) {
  const bool barrier = unknown_ || any_overlap(next.reads, pending_writes_) || any_overlap(next.writes, pending_writes_) ||
                       any_overlap(next.writes, pending_reads_);
  if (barrier) {
    pending_reads_.clear();
    pending_writes_.clear();
    unknown_ = false;
  }
  pending_reads_.insert(pending_reads_.end(), next.reads.begin(), next.reads.end());
  pending_writes_.insert(pending_writes_.end(), next.writes.begin(), next.writes.end());
  return barrier;
}

}  // namespace vx::vk

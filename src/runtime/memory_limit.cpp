#include "runtime/memory_limit.h"

#include "core/error.h"
#include "plan/plan.h"

namespace vx {
namespace {

uint64_t mib_rounded_up(uint64_t bytes) { return (bytes + (uint64_t(1) << 20) - 1) >> 20; }

}  // namespace

void check_memory_limit(const MemoryNeeds& needs, uint64_t max_mb, const std::map<std::string, Shape>& input_shapes) {
  if (max_mb == 0 || needs.total() <= max_mb << 20) return;
  const std::string other =
      needs.other_bytes ? cat(", plus ", mib_rounded_up(needs.other_bytes), " MB of other device buffers,") : "";
  fail(ErrorCode::OutOfMemory, cat("model needs a ", mib_rounded_up(needs.arena_bytes), " MB activation arena", other,
                                   " for input shapes ", shape_key(input_shapes), ", above the limit of ",
                                   max_mb, " MB (maxMemoryMB)"));
}

}  // namespace vx

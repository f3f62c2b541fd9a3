#include "runtime/memory_limit.h"

#include "core/error.h"

namespace vx {
namespace {

uint64_t mib_rounded_up(uint64_t bytes) { return (bytes + (uint64_t(1) << 20) - 1) >> 20; }

}  // namespace

std::string input_shapes_str(const std::map<std::string, Shape>& input_shapes) {
  std::string out;
  for (const auto& [name, shape] : input_shapes) {
    if (!out.empty()) out += ", ";
    out += name + "=";
    if (shape.rank() == 0) out += "scalar";
    for (size_t d = 0; d < shape.rank(); ++d) out += cat(d ? "x" : "", shape[d]);
  }
  return out;
}

void check_memory_limit(const MemoryNeeds& needs, uint64_t max_mb, const std::map<std::string, Shape>& input_shapes) {
  if (max_mb == 0 || needs.total() <= max_mb << 20) return;
  const std::string other =
      needs.other_bytes ? cat(", plus ", mib_rounded_up(needs.other_bytes), " MB of other device buffers,") : "";
  fail(ErrorCode::OutOfMemory, cat("model needs a ", mib_rounded_up(needs.arena_bytes), " MB activation arena", other,
                                   " for input shapes ", input_shapes_str(input_shapes), ", above the limit of ",
                                   max_mb, " MB (maxMemoryMB)"));
}

}  // namespace vx

#include "runtime/profile.h"

#include <cstdio>

namespace vx {

double Profile::total_ms() const {
  double total = 0;
  for (const ProfileEntry& e : entries) total += e.milliseconds;
  return total;
}

std::string Profile::str() const {
  const double total = total_ms();
  std::string out;
  char line[512];
  std::snprintf(line, sizeof line, "%-28s %-16s %-12s %10s %7s\n", "node", "op", "variant", "ms", "share");
  out += line;
  for (const ProfileEntry& e : entries) {
    std::snprintf(line, sizeof line, "%-28s %-16s %-12s %10.3f %6.1f%%\n", e.node.c_str(), e.op.c_str(),
                  e.variant.c_str(), e.milliseconds, total > 0 ? 100.0 * e.milliseconds / total : 0.0);
    out += line;
  }
  std::snprintf(line, sizeof line, "%-58s %10.3f\n", "total", total);
  out += line;
  return out;
}

}  // namespace vx

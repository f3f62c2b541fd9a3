// Per-node timings of one run: which kernel ran each node and how long it took.
#pragma once
#include <string>
#include <vector>

namespace vx {

struct ProfileEntry {
  std::string node;
  std::string op;
  std::string variant;
  double milliseconds = 0;
};

struct Profile {
  std::vector<ProfileEntry> entries;  // in execution order
  double total_ms() const;
  // A table: node, op, variant, ms, share of the total.
  std::string str() const;
};

}  // namespace vx

// VOLVOX_VK_DISPATCH_PROFILE=1 (a measurement aid beside the per-node profile): with per-node
// timestamps, the executable also writes one after every dispatch, and when it goes prints each
// dispatch's mean GPU time over its runs but the first, a line per dispatch in recording order:
//   dispatch profile: NODE #I SHADER US
// where the per-node profile has only the node's sum (a split-K GEMM and its reduce pass, an
// im2col pass and the GEMM after it).
#pragma once
#include <cstddef>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace vx::vk {

class DispatchProfile {
 public:
  static std::unique_ptr<DispatchProfile> from_env();  // null unless the variable is "1"
  ~DispatchProfile();                                  // prints
  // One run's time of a dispatch, `label` naming it ("NODE #I SHADER"); a label's first run is not counted.
  void add(const std::string& label, double us);

 private:
  struct Entry {
    std::string label;
    double sum_us = 0;  // of the runs after the first
    size_t seen = 0;    // runs, the first included
  };
  std::vector<Entry> entries_;  // in the order first seen
  std::unordered_map<std::string, size_t> index_;
};

}  // namespace vx::vk

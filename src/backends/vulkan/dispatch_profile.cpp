#include "backends/vulkan/dispatch_profile.h"

#include <cstdio>

#include "backends/vulkan/knobs.h"

namespace vx::vk {

std::unique_ptr<DispatchProfile> DispatchProfile::from_env() {
  return knob_on("VOLVOX_VK_DISPATCH_PROFILE") ? std::make_unique<DispatchProfile>() : nullptr;
}

DispatchProfile::~DispatchProfile() {
  std::fflush(stdout);  // after what the program printed so far, where both go to one file
  for (const Entry& e : entries_)
    if (e.seen > 1) std::fprintf(stderr, "dispatch profile: %s %.2f\n", e.label.c_str(), e.sum_us / double(e.seen - 1));
}

void DispatchProfile::add(const std::string& label, double us) {
  auto [it, inserted] = index_.try_emplace(label, entries_.size());
  if (inserted) entries_.push_back({label});
  Entry& e = entries_[it->second];
  if (e.seen++ > 0) e.sum_us += us;  // the first run pays one-time costs (the pipelines' first use)
}

}  // namespace vx::vk

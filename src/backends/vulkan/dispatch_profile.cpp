#include "backends/vulkan/dispatch_profile.h"

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace vx::vk {

std::unique_ptr<DispatchProfile> DispatchProfile::from_env() {
  const char* env = std::getenv("VOLVOX_VK_DISPATCH_PROFILE");
  if (!env || std::string_view(env) != "1") return nullptr;
  return std::make_unique<DispatchProfile>();
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

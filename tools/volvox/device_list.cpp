#include "device_list.h"

#include <algorithm>

#include "backends/vulkan/context.h"
#include "core/error.h"
#include "flags.h"

namespace vx::cli {
namespace {

constexpr size_t kMaxDevices = 16;
const std::string kVulkan = "vulkan:";

// The elements after "vulkan:", empty ones kept ("0,,1" -> "0", "", "1").
std::vector<std::string> elements(const std::string& spec) {
  std::vector<std::string> out;
  for (size_t at = kVulkan.size();;) {
    const size_t comma = spec.find(',', at);
    out.push_back(spec.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
    if (comma == std::string::npos) return out;
    at = comma + 1;
  }
}

}  // namespace

bool is_device_list(const std::string& spec) { return spec == "vulkan:all" || spec.find(',') != std::string::npos; }

void check_device_list(const std::string& spec) {
  if (!is_device_list(spec)) return check_device(spec, /*allow_auto=*/true);
  if (spec == "vulkan:all") return;
  const std::string expected = " (expected vulkan:all or Vulkan device indices, e.g. vulkan:0,1)";
  const bool mixed = spec.find("cpu") != std::string::npos || spec.find("auto") != std::string::npos;
  VX_CHECK(!mixed, InvalidArgument, "--device '", spec,
           "': cpu and auto stand alone; a list names Vulkan devices only", expected);
  VX_CHECK(spec.rfind(kVulkan, 0) == 0, InvalidArgument, "--device '", spec, "' is not a device list", expected);
  const std::vector<std::string> list = elements(spec);
  VX_CHECK(list.size() <= kMaxDevices, InvalidArgument, "--device '", spec, "' names ", list.size(),
           " devices; at most ", kMaxDevices);
  for (size_t i = 0; i < list.size(); ++i) {
    const std::string& e = list[i];
    VX_CHECK(!e.empty(), InvalidArgument, "--device '", spec, "': element ", i + 1, " of the list is empty", expected);
    VX_CHECK(e != "all", InvalidArgument, "--device '", spec, "': vulkan:all stands alone");
    VX_CHECK(e.size() <= 4 && std::all_of(e.begin(), e.end(), [](char c) { return c >= '0' && c <= '9'; }),
             InvalidArgument, "--device '", spec, "': '", e, "' is not a device index", expected);
  }
}

std::vector<std::string> resolve_device_list(const std::string& spec) {
  if (!is_device_list(spec)) return {spec};
  std::vector<vk::DeviceInfo> found;
  VX_WITH_CONTEXT(cat("--device ", spec), found = vk::VulkanContext::list_devices());
  std::vector<std::string> kinds;
  if (spec == "vulkan:all") {
    const bool any_gpu =
        std::any_of(found.begin(), found.end(), [](const vk::DeviceInfo& d) { return d.type != "cpu"; });
    for (const vk::DeviceInfo& d : found)
      if (!any_gpu || d.type != "cpu") kinds.push_back(cat(kVulkan, d.index));
    VX_CHECK(!kinds.empty(), Unsupported, "--device vulkan:all: the Vulkan loader lists no device");
    return kinds;
  }
  for (const std::string& e : elements(spec)) {
    const int index = std::stoi(e);
    VX_CHECK(index < int(found.size()), InvalidArgument, "--device ", spec, ": there is no Vulkan device ", index, " (",
             found.size(), " found; `volvox devices` lists them)");
    kinds.push_back(cat(kVulkan, index));
  }
  return kinds;
}

}  // namespace vx::cli

#include "backends/vulkan/knobs.h"

#include <cstdlib>
#include <string_view>

namespace vx::vk {

bool knob_off(const char* name) {
  const char* env = std::getenv(name);
  return env && std::string_view(env) == "0";
}

bool knob_on(const char* name) {
  const char* env = std::getenv(name);
  return env && std::string_view(env) == "1";
}

}  // namespace vx::vk

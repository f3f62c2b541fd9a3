// The Vulkan backend's measurement knobs: environment variables that turn a default choice off
// (VOLVOX_VK_GEMV=0, VOLVOX_VK_INTERLEAVE=0, ...), so that one binary runs both arms of a measurement.
#pragma once

namespace vx::vk {

// Whether environment variable `name` is "0".
bool knob_off(const char* name);

}  // namespace vx::vk

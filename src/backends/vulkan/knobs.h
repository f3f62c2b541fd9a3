// The Vulkan backend's measurement knobs: environment variables that turn a default choice off
// (VOLVOX_VK_GEMV=0, VOLVOX_VK_INTERLEAVE=0, ...), so that one binary runs both arms of a measurement,
// or a measurement aid on (VOLVOX_VK_CALL_TRACE=1, VOLVOX_VK_DISPATCH_PROFILE=1).
#pragma once

namespace vx::vk {

// Whether environment variable `name` is "0".
bool knob_off(const char* name);
// Whether environment variable `name` is "1" (a measurement aid turned on: VOLVOX_VK_CALL_TRACE, ...).
bool knob_on(const char* name);

}  // namespace vx::vk

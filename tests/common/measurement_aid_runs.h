// Runs a graph under a Vulkan measurement aid: an environment knob (VOLVOX_VK_CALL_TRACE,
// VOLVOX_VK_DISPATCH_PROFILE) whose executable prints to stderr when it goes.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "backends/vulkan/context.h"
#include "core/graph.h"
#include "core/tensor.h"
#include "session/device_model_runner.h"

namespace vx::test {

// Runs `g` once plainly, its outputs checked against the CPU reference (1e-4), then `runs` times in a
// new runner with `knob` set to "1", each run's outputs bit-identical to the plain run's (the aid
// changes no result). Returns what was printed to stderr while the second runner lived, its end
// included; `each_run` sees each run's index and profile.
std::string stderr_under_measurement_aid(const vk::VulkanContext& ctx, const char* knob, const Graph& g,
                                         const std::vector<Tensor>& feeds, const DeviceRunnerOptions& options, int runs,
                                         const std::function<void(int, const Profile&)>& each_run = {});

}  // namespace vx::test

// --device of `volvox denoise --sequence` (issue 14): one device (cpu, auto, vulkan, vulkan:N) or
// several Vulkan devices, each with its own queue and filters: vulkan:all, or vulkan:N,M,... where
// a repeated index opens that physical device again (another logical device with its own queue;
// the tests get two devices from lavapipe's one so).
#pragma once
#include <string>
#include <vector>

namespace vx::cli {

// Whether `spec` names several devices (vulkan:all or a list with a comma).
bool is_device_list(const std::string& spec);
// Every --device a sequence takes, checked without opening a device: InvalidArgument naming
// --device for an empty element, an index that is not a small number, cpu or auto in a list.
void check_device_list(const std::string& spec);
// The devices `spec` names, each a kind for denoise::Device::create ("vulkan:1"); a list's indices
// must exist. vulkan:all: every hardware GPU the loader lists (discrete, integrated, virtual), or
// its software renderers (lavapipe) when it lists no GPU: beside GPUs a CPU renderer would only
// hold the others up.
std::vector<std::string> resolve_device_list(const std::string& spec);

}  // namespace vx::cli

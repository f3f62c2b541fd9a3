// `volvox devices`: the compute devices Volvox can use, with the Vulkan features its kernels care
// about (fp16, 16-bit storage, subgroups, cooperative matrices and their shapes, timestamps, memory).
#include <cstdio>
#include <string>

#include "backends/vulkan/context.h"
#include "command.h"
#include "flags.h"

namespace vx::cli {
namespace {

void setup_devices(CLI::App& app) {
  static std::string device;
  CLI::App* cmd = app.add_subcommand("devices", "List the CPU and Vulkan devices and their features");
  cmd->add_option("--device", device, "Show only this device: cpu, vulkan:N");
  cmd->callback([] {
    if (!device.empty()) check_device(device, /*allow_auto=*/false);
    if (validate_only()) return;
    const bool only_cpu = device == "cpu";
    const int only = device.empty() || only_cpu ? -1 : vk::parse_vulkan_device(device);
    if (device.empty() || only_cpu) std::printf("cpu  (reference and oneDNN kernels)\n");
    if (only_cpu) return;
    std::vector<vk::DeviceInfo> list;
    try {
      list = vk::VulkanContext::list_devices();
    } catch (const Error& e) {
      if (only >= 0) throw;  // asked for a Vulkan device: that is an error
      std::printf("vulkan: unavailable: %s\n", e.what());
      return;
    }
    VX_CHECK(only < int(list.size()), InvalidArgument, "device ", device, " does not exist (", list.size(),
             " Vulkan devices found)");
    if (list.empty()) std::printf("vulkan: no devices found\n");
    for (const auto& info : list)
      if (only < 0 || info.index == only) std::printf("%s", info.describe().c_str());
  });
}

VX_REGISTER_COMMAND(devices, setup_devices);

}  // namespace
}  // namespace vx::cli

#include "flags.h"

#include "backends/vulkan/context.h"
#include "core/error.h"
#include "core/thread_pool.h"

namespace vx::cli {

void check_threads(int threads) {
  VX_CHECK(threads >= 0 && threads <= ThreadPool::kMaxThreads, InvalidArgument, "--threads ", threads,
           " is out of range (0 for all hardware threads, or 1 to ", ThreadPool::kMaxThreads, ")");
}

void check_device(const std::string& device, bool allow_auto) {
  if (device == "cpu" || (allow_auto && device == "auto")) return;
  VX_CHECK(device.rfind("vulkan", 0) == 0, InvalidArgument, "--device '", device, "' is not a device (use cpu, ",
           allow_auto ? "auto, " : "", "vulkan or vulkan:N)");
  VX_WITH_CONTEXT("--device", vk::parse_vulkan_device(device));
}

void check_range(const char* flag, long long value, long long lo, long long hi) {
  VX_CHECK(value >= lo && value <= hi, InvalidArgument, flag, " ", value, " is out of range (", lo, " to ", hi, ")");
}

}  // namespace vx::cli

// The Vulkan device of the filter. Until the Vulkan backend is connected, there is none.
#include <memory>
#include <string>

#include "core/error.h"
#include "denoise/filter.h"

namespace vx::denoise {

std::shared_ptr<Device> make_vulkan_device(const std::string& kind) {
  if (kind == "auto") return nullptr;
  fail(ErrorCode::Unsupported, "the vulkan denoiser device is not connected in this build yet; use --device cpu");
}

}  // namespace vx::denoise

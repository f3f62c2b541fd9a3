#include "backends/vulkan/shader_registry.h"

#include <map>
#include <memory>
#include <mutex>

#include "backends/vulkan/vk_common.h"

namespace vx::vk {
namespace {

constexpr uint32_t kSpirvMagic = 0x07230203;

struct Registered {
  std::mutex mutex;
  // unique_ptr: the words never move, so spans handed out stay valid.
  std::map<std::string, std::unique_ptr<const std::vector<uint32_t>>, std::less<>> shaders;
};

Registered& registered() {
  static Registered r;
  return r;
}

}  // namespace

void register_shader(const std::string& name, std::vector<uint32_t> spirv) {
  VX_CHECK(!name.empty(), InvalidArgument, "shader registered without a name");
  VX_CHECK(spirv.size() >= 5 && spirv[0] == kSpirvMagic, InvalidArgument, "shader '", name,
           "' is not SPIR-V (", spirv.size() * 4, " bytes, expected the SPIR-V magic number first)");
  VX_CHECK(embedded_shader(name).empty(), InvalidArgument, "shader name '", name, "' is taken by a built-in shader");
  Registered& r = registered();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.shaders.find(name);
  if (it != r.shaders.end()) {
    VX_CHECK(*it->second == spirv, InvalidArgument, "shader '", name, "' is already registered with other code");
    return;
  }
  r.shaders.emplace(name, std::make_unique<const std::vector<uint32_t>>(std::move(spirv)));
}

std::span<const uint32_t> find_shader(std::string_view name) {
  if (auto builtin = embedded_shader(name); !builtin.empty()) return builtin;
  Registered& r = registered();
  std::lock_guard<std::mutex> lock(r.mutex);
  auto it = r.shaders.find(name);
  if (it == r.shaders.end()) return {};
  return {it->second->data(), it->second->size()};
}

}  // namespace vx::vk

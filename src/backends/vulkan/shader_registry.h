// Shaders by name: the SPIR-V embedded at build time (shaders/*.comp) and SPIR-V registered at run
// time (custom ops, see include/volvox/custom_op.hpp). Pipelines look shaders up here.
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace vx::vk {

// Registers SPIR-V words under `name` (not a name of an embedded shader; registering the same name
// twice replaces it only with identical words). Throws InvalidArgument for words that are not SPIR-V.
void register_shader(const std::string& name, std::vector<uint32_t> spirv);
// The embedded shader of that name, else a registered one; empty when neither exists. The span
// stays valid for the process's lifetime.
std::span<const uint32_t> find_shader(std::string_view name);

}  // namespace vx::vk

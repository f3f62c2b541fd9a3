// What a device kind reports about the hardware it can open, before opening any of it: for
// choosing a device (OIDN's physical devices, `volvox devices`) and for matching a renderer's own
// GPU by UUID, LUID or PCI address.
#pragma once
#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace vx::runtime {

// Kinds of memory another API exports that a device can import (ComputeDevice::import_buffer).
// Bits with the values of OIDN's OIDNExternalMemoryTypeFlag.
enum ExternalMemoryType : uint32_t {
  kExternalMemoryOpaqueFd = 1u << 0,
  kExternalMemoryDmaBuf = 1u << 1,
};

struct PciAddress {
  uint32_t domain = 0, bus = 0, device = 0, function = 0;
};

struct PhysicalDevice {
  enum class Type { discrete_gpu, integrated_gpu, virtual_gpu, software_gpu, cpu, other };
  std::string kind;  // what Device::create takes to open it: "vulkan:0", "cpu"
  std::string name;  // "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)"
  Type type = Type::other;
  std::optional<std::array<uint8_t, 16>> uuid;
  std::optional<std::array<uint8_t, 8>> luid;
  uint32_t node_mask = 0;  // with the LUID
  std::optional<PciAddress> pci;
  uint32_t external_memory_types = 0;  // ExternalMemoryType bits the device can import
};

}  // namespace vx::runtime

// Open Image Denoise's TZA weight container (version 2), read and written.
//
// Layout, little-endian:
//   header (12 bytes): u16 magic 0x41D7, u8 major (must be 2), u8 minor (ignored), u64 table offset
//   data blocks: each tensor's elements, row-major, each block 64-byte aligned (the first at 64)
//   table: u32 count, then per tensor: u16 name length, name bytes, u8 ndims, ndims x u32 dims,
//          ndims layout chars ("oihw" for weights, "x" for biases), one dtype char ('f' fp32,
//          'h' fp16), u64 absolute offset of its data block
//
// The reader trusts nothing: every field is bounds-checked, and a truncated or corrupt file gives a
// vx::Error(ErrorCode::InvalidFile) naming the field and the tensor. Each tensor's data must lie
// between the header and the table and no two may overlap, all checked before any tensor is
// allocated, so memory is bounded by the size of the input. read_tza refuses a path that is not a
// regular file (Io) or a file over kTzaMaxFileBytes, naming it; write_tza_file is atomic (a failed
// write is an Io error and leaves the previous file as it was).
#pragma once
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/tensor.h"

namespace vx {

inline constexpr uint16_t kTzaMagic = 0x41D7;
inline constexpr uint8_t kTzaMajorVersion = 2;
inline constexpr size_t kTzaHeaderSize = 12;
inline constexpr size_t kTzaAlignment = 64;
inline constexpr size_t kTzaMaxDims = 8;  // far above the 4 that any layout has; rejects garbage early
// The largest .tza file read_tza reads (1 GiB); OIDN's largest weights are a few tens of MB.
inline constexpr uint64_t kTzaMaxFileBytes = uint64_t(1) << 30;

struct TzaTensor {
  std::string name;    // "enc_conv0.weight"
  std::string layout;  // "oihw" (4-D) or "x" (1-D)
  Tensor data;         // DType::f32 or DType::f16, exactly as stored
};

struct TzaFile {
  std::vector<TzaTensor> tensors;  // in table order

  // nullptr when no tensor has that name.
  const TzaTensor* find(std::string_view name) const;
  // Throws InvalidFile naming the tensor when absent.
  const TzaTensor& at(std::string_view name) const;
};

// Parses a TZA blob held in memory; the result owns copies of the tensor data.
TzaFile parse_tza(std::span<const std::byte> bytes);
// Reads and parses a .tza file; errors are prefixed with the path. Io when it cannot be read.
TzaFile read_tza(const std::filesystem::path& path);

// Serialises `file` (data blocks 64-byte aligned, then the table). Throws InvalidArgument when a
// tensor could not be read back: empty or duplicate name, layout other than "x"/"oihw" or not
// matching the rank, dtype other than f32/f16.
std::vector<std::byte> write_tza(const TzaFile& file);
void write_tza_file(const std::filesystem::path& path, const TzaFile& file);

}  // namespace vx

// NumPy .npy files (format versions 1, 2 and 3; little-endian; C order).
// Reads float32, float16, int64, int32, int8, uint8 and bool; float64 is read as float32 (Volvox
// has no f64: values are rounded), int16 / uint16 as int32 and uint32 / uint64 as int64, as the
// ONNX importer does. Writes every Volvox dtype (version 1 header, 64-byte aligned data).
// Parsing is bounds-checked: a corrupt or truncated file is an InvalidFile error, never a crash, and
// a tensor is allocated only after its size was checked against the file and kMaxNpyBytes. A path
// that is not a regular file (a FIFO, a directory) is an Io error naming it. Writing is atomic: a
// failed write_npy is an Io error and leaves the previous file as it was.
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>

#include "core/tensor.h"

namespace vx {

// The largest tensor a .npy file may decode to (2 GiB): far above any model input we run, and it
// keeps a corrupt or hostile shape from allocating without bound. Larger is an InvalidFile error.
inline constexpr uint64_t kMaxNpyBytes = uint64_t(2) << 30;

Tensor read_npy(const std::filesystem::path& path);
Tensor parse_npy(const void* data, size_t size);

void write_npy(const std::filesystem::path& path, const Tensor& tensor);
std::string encode_npy(const Tensor& tensor);

}  // namespace vx

// Fuzzes the NumPy .npy reader. Any input must either parse or throw vx::Error (InvalidFile, or
// Unsupported for a format version or dtype we do not read); what parses must re-encode and parse
// back to the same dtype, shape and bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/error.h"
#include "formats/npy.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vx::Tensor tensor;
  try {
    tensor = vx::parse_npy(data, size);
  } catch (const vx::Error& e) {
    if (e.code() != vx::ErrorCode::InvalidFile && e.code() != vx::ErrorCode::Unsupported) std::abort();
    return 0;
  }
  if (!tensor.defined()) std::abort();
  // Any exception from here on is a bug: the writer must take every tensor the reader makes.
  const std::string again = vx::encode_npy(tensor);
  const vx::Tensor back = vx::parse_npy(again.data(), again.size());
  if (back.dtype() != tensor.dtype() || back.shape() != tensor.shape() || back.nbytes() != tensor.nbytes())
    std::abort();
  if (tensor.nbytes() > 0 && std::memcmp(back.raw(), tensor.raw(), tensor.nbytes()) != 0) std::abort();
  return 0;
}

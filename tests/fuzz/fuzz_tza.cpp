// Fuzzes the TZA reader and the U-Net spec detection. Any input must either parse or throw
// vx::Error(InvalidFile); what parses must write back and re-parse to the same tensors.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <span>

#include "denoise/unet_spec.h"
#include "formats/tza.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  vx::TzaFile file;
  try {
    file = vx::parse_tza(std::span(reinterpret_cast<const std::byte*>(data), size));
  } catch (const vx::Error& e) {
    if (e.code() != vx::ErrorCode::InvalidFile) std::abort();
    return 0;
  }

  try {
    vx::detect_unet_spec(file);
  } catch (const vx::Error& e) {
    if (e.code() != vx::ErrorCode::InvalidFile) std::abort();
  }

  // Everything the reader accepts, the writer must reproduce (any exception here is a bug).
  vx::TzaFile again = vx::parse_tza(vx::write_tza(file));
  if (again.tensors.size() != file.tensors.size()) std::abort();
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const vx::TzaTensor& a = file.tensors[i];
    const vx::TzaTensor& b = again.tensors[i];
    if (a.name != b.name || a.layout != b.layout || a.data.dtype() != b.data.dtype() ||
        a.data.shape() != b.data.shape() || std::memcmp(a.data.raw(), b.data.raw(), a.data.nbytes()) != 0)
      std::abort();
  }
  return 0;
}

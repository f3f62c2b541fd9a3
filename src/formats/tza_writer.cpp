// The TZA writer: what OIDN's training scripts produce (data blocks 64-byte aligned from offset 64,
// the table after the last block, also aligned). Used by tests and tools to make weight files.
#include <cstring>
#include <unordered_set>

#include "core/error.h"
#include "core/file_io.h"
#include "formats/tza.h"

namespace vx {

namespace {

uint64_t align_up(uint64_t n) { return (n + kTzaAlignment - 1) / kTzaAlignment * kTzaAlignment; }

template <class T>
void put(std::vector<std::byte>& out, T value) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  std::memcpy(out.data() + at, &value, sizeof(T));
}

void put_bytes(std::vector<std::byte>& out, const void* data, size_t n) {
  size_t at = out.size();
  out.resize(at + n);
  if (n) std::memcpy(out.data() + at, data, n);
}

void check_writable(const TzaTensor& t, std::unordered_set<std::string>& names) {
  VX_CHECK(!t.name.empty(), InvalidArgument, "write_tza: a tensor has an empty name");
  VX_CHECK(t.name.size() <= UINT16_MAX, InvalidArgument, "write_tza: the name of '", t.name.substr(0, 32),
           "...' is longer than 65535 bytes");
  VX_CHECK(t.name.find('\0') == std::string::npos, InvalidArgument, "write_tza: the name of '", t.name,
           "' contains a NUL byte");
  VX_CHECK(names.insert(t.name).second, InvalidArgument, "write_tza: duplicate tensor name '", t.name, "'");
  VX_CHECK(t.data.defined(), InvalidArgument, "write_tza: tensor '", t.name, "' has no data");
  VX_CHECK(t.data.dtype() == DType::f32 || t.data.dtype() == DType::f16, InvalidArgument, "write_tza: tensor '",
           t.name, "' has dtype ", dtype_name(t.data.dtype()), " (TZA holds f32 or f16)");
  VX_CHECK((t.layout == "x" || t.layout == "oihw") && t.layout.size() == t.data.rank(), InvalidArgument,
           "write_tza: tensor '", t.name, "' has layout '", t.layout, "' for shape ", t.data.shape().str(),
           " (expected 'x' for 1-D or 'oihw' for 4-D)");
  for (int64_t d : t.data.shape())
    VX_CHECK(d > 0 && d <= int64_t(UINT32_MAX), InvalidArgument, "write_tza: tensor '", t.name, "' has shape ",
             t.data.shape().str(), " (extents must be 1 .. 2^32-1)");
}

}  // namespace

std::vector<std::byte> write_tza(const TzaFile& file) {
  VX_CHECK(file.tensors.size() <= UINT32_MAX, InvalidArgument, "write_tza: too many tensors");
  std::unordered_set<std::string> names;
  for (const TzaTensor& t : file.tensors) check_writable(t, names);

  std::vector<std::byte> out(kTzaAlignment, std::byte{0});  // header, patched below, then padding
  std::vector<uint64_t> offsets;
  for (const TzaTensor& t : file.tensors) {
    offsets.push_back(out.size());
    put_bytes(out, t.data.raw(), t.data.nbytes());
    out.resize(align_up(out.size()), std::byte{0});
  }

  uint64_t table_offset = out.size();
  put<uint32_t>(out, uint32_t(file.tensors.size()));
  for (size_t i = 0; i < file.tensors.size(); ++i) {
    const TzaTensor& t = file.tensors[i];
    put<uint16_t>(out, uint16_t(t.name.size()));
    put_bytes(out, t.name.data(), t.name.size());
    put<uint8_t>(out, uint8_t(t.data.rank()));
    for (int64_t d : t.data.shape()) put<uint32_t>(out, uint32_t(d));
    put_bytes(out, t.layout.data(), t.layout.size());
    put<char>(out, t.data.dtype() == DType::f16 ? 'h' : 'f');
    put<uint64_t>(out, offsets[i]);
  }

  std::vector<std::byte> header;
  put<uint16_t>(header, kTzaMagic);
  put<uint8_t>(header, kTzaMajorVersion);
  put<uint8_t>(header, 0);
  put<uint64_t>(header, table_offset);
  std::memcpy(out.data(), header.data(), header.size());
  return out;
}

void write_tza_file(const std::filesystem::path& path, const TzaFile& file) {
  const std::vector<std::byte> bytes = write_tza(file);
  write_file_atomically(path, bytes.data(), bytes.size(), "TZA file");
}

}  // namespace vx

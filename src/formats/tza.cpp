#include "formats/tza.h"

#include <bit>
#include <cstring>
#include <fstream>
#include <unordered_set>

#include "core/error.h"

namespace vx {

static_assert(std::endian::native == std::endian::little, "the TZA reader copies little-endian data as is");

namespace {

// Smallest possible table entry: 1-byte name, 1 dim. Bounds the tensor count by the bytes left.
constexpr uint64_t kMinEntrySize = 2 + 1 + 1 + 4 + 1 + 1 + 8;

// A bounds-checked reading position in the blob. `what` names the field for error messages and
// `who` the tensor being read ("" for the header).
class Cursor {
 public:
  explicit Cursor(std::span<const std::byte> bytes) : bytes_(bytes) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return bytes_.size() - pos_; }
  void seek(uint64_t pos) { pos_ = pos; }

  std::span<const std::byte> take(uint64_t n, std::string_view what, std::string_view who) {
    VX_CHECK(n <= remaining(), InvalidFile, "TZA: truncated", who, ": ", what, " needs ", n, " bytes at offset ",
             pos_, " but the file ends at ", bytes_.size());
    auto span = bytes_.subspan(size_t(pos_), size_t(n));
    pos_ += n;
    return span;
  }

  template <class T>
  T read(std::string_view what, std::string_view who) {
    auto span = take(sizeof(T), what, who);
    T value;
    std::memcpy(&value, span.data(), sizeof(T));
    return value;
  }

 private:
  std::span<const std::byte> bytes_;
  uint64_t pos_ = 0;
};

std::string tensor_label(uint32_t index, std::string_view name) {
  return name.empty() ? cat(" in tensor #", index) : cat(" in tensor #", index, " '", name, "'");
}

bool is_layout_char(char c) { return c == 'o' || c == 'i' || c == 'h' || c == 'w' || c == 'x'; }

// `data_total` sums the data of the tensors read so far: data blocks may not overlap, so it cannot
// exceed the file size; checking that bounds the memory a crafted file can make us allocate.
TzaTensor read_entry(Cursor& in, std::span<const std::byte> bytes, uint32_t index, uint64_t& data_total) {
  std::string who = tensor_label(index, "");
  TzaTensor t;

  auto name_length = in.read<uint16_t>("the name length", who);
  VX_CHECK(name_length > 0, InvalidFile, "TZA: tensor #", index, " has an empty name");
  auto name_bytes = in.take(name_length, "the name", who);
  t.name.assign(reinterpret_cast<const char*>(name_bytes.data()), name_bytes.size());
  VX_CHECK(t.name.find('\0') == std::string::npos, InvalidFile, "TZA: the name of tensor #", index,
           " contains a NUL byte");
  who = tensor_label(index, t.name);

  auto ndims = in.read<uint8_t>("the number of dimensions", who);
  VX_CHECK(ndims > 0, InvalidFile, "TZA: tensor #", index, " '", t.name, "' has 0 dimensions");
  VX_CHECK(ndims <= kTzaMaxDims, InvalidFile, "TZA: tensor #", index, " '", t.name, "' has ", int(ndims),
           " dimensions (at most ", kTzaMaxDims, " are supported)");

  std::vector<int64_t> dims(ndims);
  uint64_t numel = 1;
  for (size_t d = 0; d < ndims; ++d) {
    uint32_t extent = in.read<uint32_t>(cat("dimension ", d), who);
    VX_CHECK(extent > 0, InvalidFile, "TZA: tensor #", index, " '", t.name, "' has a zero extent in dimension ", d);
    // Bound by the file size at every step so that the product can never overflow.
    VX_CHECK(numel <= bytes.size() / extent, InvalidFile, "TZA: tensor #", index, " '", t.name,
             "' has more elements than the file has bytes (dims overflow or are corrupt)");
    numel *= extent;
    dims[d] = extent;
  }

  auto layout_bytes = in.take(ndims, "the layout", who);
  t.layout.assign(reinterpret_cast<const char*>(layout_bytes.data()), layout_bytes.size());
  for (char c : t.layout)
    VX_CHECK(is_layout_char(c), InvalidFile, "TZA: tensor #", index, " '", t.name, "' has an unknown layout char 0x",
             std::hex, int(uint8_t(c)), std::dec, " (expected one of 'oihwx')");
  VX_CHECK(t.layout == "x" || t.layout == "oihw", InvalidFile, "TZA: tensor #", index, " '", t.name, "' has layout '",
           t.layout, "' for ", int(ndims), " dimensions (expected 'x' for 1-D or 'oihw' for 4-D)");

  char dtype_char = in.read<char>("the dtype", who);
  DType dtype;
  if (dtype_char == 'f') {
    dtype = DType::f32;
  } else if (dtype_char == 'h') {
    dtype = DType::f16;
  } else {
    fail(ErrorCode::InvalidFile, cat("TZA: tensor #", index, " '", t.name, "' has an unknown dtype char 0x", std::hex,
                                     int(uint8_t(dtype_char)), std::dec, " (expected 'f' or 'h')"));
  }

  auto offset = in.read<uint64_t>("the data offset", who);
  uint64_t nbytes = numel * dtype_size(dtype);  // numel <= file size, so no overflow
  VX_CHECK(offset >= kTzaHeaderSize, InvalidFile, "TZA: the data of tensor #", index, " '", t.name,
           "' starts at offset ", offset, ", inside the header");
  VX_CHECK(offset <= bytes.size() && nbytes <= bytes.size() - offset, InvalidFile, "TZA: the data of tensor #", index,
           " '", t.name, "' (", nbytes, " bytes at offset ", offset, ") lies past the end of the file (",
           bytes.size(), " bytes)");
  data_total += nbytes;  // both terms <= file size: no overflow
  VX_CHECK(data_total <= bytes.size(), InvalidFile, "TZA: with tensor #", index, " '", t.name, "' the tensors hold ",
           data_total, " bytes of data, more than the file's ", bytes.size(), " bytes (overlapping data blocks)");

  t.data = Tensor(dtype, Shape(std::move(dims)));
  std::memcpy(t.data.raw(), bytes.data() + offset, size_t(nbytes));
  return t;
}

}  // namespace

const TzaTensor* TzaFile::find(std::string_view name) const {
  for (const TzaTensor& t : tensors)
    if (t.name == name) return &t;
  return nullptr;
}

const TzaTensor& TzaFile::at(std::string_view name) const {
  const TzaTensor* t = find(name);
  VX_CHECK(t != nullptr, InvalidFile, "missing tensor '", name, "'");
  return *t;
}

TzaFile parse_tza(std::span<const std::byte> bytes) {
  Cursor in(bytes);
  const std::string header = " header";
  auto magic = in.read<uint16_t>("the magic", header);
  VX_CHECK(magic == kTzaMagic, InvalidFile, "TZA: bad magic 0x", std::hex, magic, " (expected 0x", kTzaMagic,
           "): not a TZA file");
  auto major = in.read<uint8_t>("the major version", header);
  VX_CHECK(major == kTzaMajorVersion, InvalidFile, "TZA: unsupported major version ", int(major), " (expected ",
           int(kTzaMajorVersion), ")");
  in.read<uint8_t>("the minor version", header);
  auto table_offset = in.read<uint64_t>("the table offset", header);
  VX_CHECK(table_offset >= kTzaHeaderSize, InvalidFile, "TZA: table offset ", table_offset,
           " lies inside the header");
  VX_CHECK(table_offset < bytes.size(), InvalidFile, "TZA: table offset ", table_offset,
           " lies past the end of the file (", bytes.size(), " bytes)");

  in.seek(table_offset);
  auto count = in.read<uint32_t>("the tensor count", " table");
  VX_CHECK(count <= in.remaining() / kMinEntrySize, InvalidFile, "TZA: tensor count ", count, " cannot fit in the ",
           in.remaining(), " bytes left in the table");

  TzaFile file;
  file.tensors.reserve(count);
  std::unordered_set<std::string> names;
  uint64_t data_total = 0;
  for (uint32_t i = 0; i < count; ++i) {
    TzaTensor t = read_entry(in, bytes, i, data_total);
    VX_CHECK(names.insert(t.name).second, InvalidFile, "TZA: duplicate tensor name '", t.name, "' (tensor #", i, ")");
    file.tensors.push_back(std::move(t));
  }
  return file;
}

TzaFile read_tza(const std::filesystem::path& path) {
  std::error_code ec;
  VX_CHECK(std::filesystem::is_regular_file(path, ec), Io, "cannot open '", path.string(), "': not a regular file");
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  VX_CHECK(in.good(), Io, "cannot open '", path.string(), "'");
  auto size = in.tellg();
  VX_CHECK(size >= 0, Io, "cannot read '", path.string(), "'");
  std::vector<std::byte> bytes(static_cast<size_t>(size));
  in.seekg(0);
  in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
  VX_CHECK(in.good() || bytes.empty(), Io, "cannot read '", path.string(), "'");
  TzaFile file;
  VX_WITH_CONTEXT(path.string(), file = parse_tza(bytes));
  return file;
}

}  // namespace vx

#include "formats/tza.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>
#include <unordered_set>

#include "core/error.h"
#include "core/file_io.h"

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

// One table entry before its data is read: where the data is and how many bytes it takes.
struct TzaEntry {
  std::string name;
  std::string layout;
  DType dtype = DType::f32;
  std::vector<int64_t> dims;
  uint64_t offset = 0;
  uint64_t nbytes = 0;
  uint32_t index = 0;
};

std::string region_label(const TzaEntry& e) {
  return cat("tensor #", e.index, " '", e.name, "' (", e.nbytes, " bytes at offset ", e.offset, ")");
}

TzaEntry read_entry(Cursor& in, uint64_t file_size, uint32_t index) {
  std::string who = tensor_label(index, "");
  TzaEntry t;
  t.index = index;

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

  t.dims.resize(ndims);
  uint64_t numel = 1;
  for (size_t d = 0; d < ndims; ++d) {
    uint32_t extent = in.read<uint32_t>(cat("dimension ", d), who);
    VX_CHECK(extent > 0, InvalidFile, "TZA: tensor #", index, " '", t.name, "' has a zero extent in dimension ", d);
    // Bound by the file size at every step so that the product can never overflow.
    VX_CHECK(numel <= file_size / extent, InvalidFile, "TZA: tensor #", index, " '", t.name,
             "' has more elements than the file has bytes (dims overflow or are corrupt)");
    numel *= extent;
    t.dims[d] = extent;
  }

  auto layout_bytes = in.take(ndims, "the layout", who);
  t.layout.assign(reinterpret_cast<const char*>(layout_bytes.data()), layout_bytes.size());
  for (char c : t.layout)
    VX_CHECK(is_layout_char(c), InvalidFile, "TZA: tensor #", index, " '", t.name, "' has an unknown layout char 0x",
             std::hex, int(uint8_t(c)), std::dec, " (expected one of 'oihwx')");
  VX_CHECK(t.layout == "x" || t.layout == "oihw", InvalidFile, "TZA: tensor #", index, " '", t.name, "' has layout '",
           t.layout, "' for ", int(ndims), " dimensions (expected 'x' for 1-D or 'oihw' for 4-D)");

  char dtype_char = in.read<char>("the dtype", who);
  if (dtype_char == 'f') {
    t.dtype = DType::f32;
  } else if (dtype_char == 'h') {
    t.dtype = DType::f16;
  } else {
    fail(ErrorCode::InvalidFile, cat("TZA: tensor #", index, " '", t.name, "' has an unknown dtype char 0x", std::hex,
                                     int(uint8_t(dtype_char)), std::dec, " (expected 'f' or 'h')"));
  }

  t.offset = in.read<uint64_t>("the data offset", who);
  t.nbytes = numel * dtype_size(t.dtype);  // numel <= file size, so no overflow
  return t;
}

// Every tensor's data must lie in the data area, between the header and the table, and no two may
// overlap: OIDN writes them one after another. This also bounds what the tensors allocate in all
// by the file size, before anything is allocated.
void check_regions(const std::vector<TzaEntry>& entries, uint64_t table_offset, uint64_t file_size) {
  for (const TzaEntry& e : entries) {
    VX_CHECK(e.offset >= kTzaHeaderSize, InvalidFile, "TZA: the data of tensor #", e.index, " '", e.name,
             "' starts at offset ", e.offset, ", inside the header");
    VX_CHECK(e.offset <= file_size && e.nbytes <= file_size - e.offset, InvalidFile, "TZA: the data of ",
             region_label(e), " lies past the end of the file (", file_size, " bytes)");
    VX_CHECK(e.offset + e.nbytes <= table_offset, InvalidFile, "TZA: the data of ", region_label(e),
             " runs into the table at offset ", table_offset);
  }
  std::vector<const TzaEntry*> by_offset;
  for (const TzaEntry& e : entries) by_offset.push_back(&e);
  std::sort(by_offset.begin(), by_offset.end(), [](const TzaEntry* a, const TzaEntry* b) {
    return a->offset != b->offset ? a->offset < b->offset : a->index < b->index;
  });
  for (size_t i = 1; i < by_offset.size(); ++i) {
    const TzaEntry& before = *by_offset[i - 1];
    const TzaEntry& after = *by_offset[i];
    VX_CHECK(before.offset + before.nbytes <= after.offset, InvalidFile, "TZA: the data of ", region_label(after),
             " overlaps the data of ", region_label(before));
  }
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
  VX_CHECK(!bytes.empty(), InvalidFile, "TZA: the file is empty, not a TZA file");
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

  std::vector<TzaEntry> entries;
  entries.reserve(count);
  std::unordered_set<std::string> names;
  for (uint32_t i = 0; i < count; ++i) {
    entries.push_back(read_entry(in, bytes.size(), i));
    const std::string& name = entries.back().name;
    VX_CHECK(names.insert(name).second, InvalidFile, "TZA: duplicate tensor name '", name, "' (tensor #", i, ")");
  }
  check_regions(entries, table_offset, bytes.size());

  TzaFile file;
  file.tensors.reserve(count);
  for (TzaEntry& e : entries) {
    TzaTensor t{std::move(e.name), std::move(e.layout), Tensor(e.dtype, Shape(std::move(e.dims)))};
    std::memcpy(t.data.raw(), bytes.data() + e.offset, size_t(e.nbytes));
    file.tensors.push_back(std::move(t));
  }
  return file;
}

TzaFile read_tza(const std::filesystem::path& path) {
  const std::vector<uint8_t> bytes = read_file_bytes(path, "TZA file", kTzaMaxFileBytes);
  TzaFile file;
  try {
    VX_WITH_CONTEXT(path.string(), file = parse_tza(std::as_bytes(std::span(bytes))));
  } catch (const std::bad_alloc&) {  // the regions were checked against the file: a machine short of memory
    fail(ErrorCode::OutOfMemory, cat(path.string(), ": out of memory while reading its tensors"));
  }
  return file;
}

}  // namespace vx

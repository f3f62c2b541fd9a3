#include "formats/npy.h"

#include <cstring>
#include <new>
#include <optional>
#include <string_view>

#include "core/error.h"
#include "core/file_io.h"
#include "core/printable.h"

namespace vx {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;
constexpr size_t kMaxRank = 32;

// The source element type of a descr such as "<f4".
struct NpyType {
  char kind = 0;  // 'f', 'i', 'u', 'b'
  size_t size = 0;
  DType dtype = DType::f32;
};

std::optional<NpyType> parse_descr(std::string_view d) {
  if (d.size() < 3) return std::nullopt;
  char order = d[0];
  char kind = d[1];
  std::string_view size_text = d.substr(2);
  if (size_text.size() != 1 || size_text[0] < '1' || size_text[0] > '8') return std::nullopt;
  size_t size = size_t(size_text[0] - '0');
  // Single-byte types may say '|' (no order); wider ones must be little-endian ('<', or '=' on x86).
  if (!(order == '<' || order == '=' || (order == '|' && size == 1))) return std::nullopt;
  NpyType t{kind, size, DType::f32};
  switch (kind) {
    case 'f':
      if (size == 4 || size == 8) t.dtype = DType::f32;
      else if (size == 2) t.dtype = DType::f16;
      else return std::nullopt;
      return t;
    case 'i':
      if (size == 1) t.dtype = DType::i8;
      else if (size == 2 || size == 4) t.dtype = DType::i32;
      else if (size == 8) t.dtype = DType::i64;
      else return std::nullopt;
      return t;
    case 'u':
      if (size == 1) t.dtype = DType::u8;
      else if (size == 2) t.dtype = DType::i32;
      else if (size == 4 || size == 8) t.dtype = DType::i64;
      else return std::nullopt;
      return t;
    case 'b':
      if (size != 1) return std::nullopt;
      t.dtype = DType::boolean;
      return t;
    default: return std::nullopt;
  }
}

// A tiny reader for the header's Python dict literal: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : s_(text) {}

  void parse(std::string& descr, bool& fortran, std::vector<int64_t>& shape) {
    bool has_descr = false, has_order = false, has_shape = false;
    expect('{');
    while (true) {
      skip_space();
      if (peek() == '}') break;
      std::string key = string_literal();
      expect(':');
      skip_space();
      if (key == "descr") {
        descr = string_literal();
        has_descr = true;
      } else if (key == "fortran_order") {
        fortran = boolean_literal();
        has_order = true;
      } else if (key == "shape") {
        shape = tuple_literal();
        has_shape = true;
      } else {
        fail(ErrorCode::InvalidFile, cat("npy header has an unknown key '", printable(key), "'"));
      }
      skip_space();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      skip_space();
      VX_CHECK(peek() == '}', InvalidFile, "npy header: expected ',' or '}' at offset ", pos_);
      break;
    }
    VX_CHECK(has_descr && has_order && has_shape, InvalidFile,
             "npy header lacks one of 'descr', 'fortran_order' and 'shape'");
  }

 private:
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  void skip_space() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
  }
  void expect(char c) {
    skip_space();
    VX_CHECK(peek() == c, InvalidFile, "npy header: expected '", c, "' at offset ", pos_);
    ++pos_;
  }
  std::string string_literal() {
    skip_space();
    char quote = peek();
    VX_CHECK(quote == '\'' || quote == '"', InvalidFile, "npy header: expected a string at offset ", pos_);
    size_t end = s_.find(quote, pos_ + 1);
    VX_CHECK(end != std::string_view::npos, InvalidFile, "npy header: unterminated string");
    std::string value(s_.substr(pos_ + 1, end - pos_ - 1));
    pos_ = end + 1;
    return value;
  }
  bool boolean_literal() {
    if (s_.substr(pos_, 4) == "True") {
      pos_ += 4;
      return true;
    }
    if (s_.substr(pos_, 5) == "False") {
      pos_ += 5;
      return false;
    }
    fail(ErrorCode::InvalidFile, cat("npy header: expected True or False at offset ", pos_));
  }
  std::vector<int64_t> tuple_literal() {
    expect('(');
    std::vector<int64_t> dims;
    while (true) {
      skip_space();
      if (peek() == ')') {
        ++pos_;
        return dims;
      }
      VX_CHECK(peek() >= '0' && peek() <= '9', InvalidFile, "npy header: expected an extent at offset ", pos_);
      int64_t v = 0;
      while (peek() >= '0' && peek() <= '9') {
        VX_CHECK(v <= (INT64_MAX - 9) / 10, InvalidFile, "npy header: extent too large");
        v = v * 10 + (peek() - '0');
        ++pos_;
      }
      // Python 2 files may write longs as 3L.
      if (peek() == 'L') ++pos_;
      dims.push_back(v);
      VX_CHECK(dims.size() <= kMaxRank, InvalidFile, "npy header: more than ", kMaxRank, " dimensions");
      skip_space();
      if (peek() == ',') ++pos_;
      else VX_CHECK(peek() == ')', InvalidFile, "npy header: expected ',' or ')' at offset ", pos_);
    }
  }

  std::string_view s_;
  size_t pos_ = 0;
};

template <class T>
T load(const unsigned char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

std::string descr_of(DType dtype) {
  switch (dtype) {
    case DType::f32: return "<f4";
    case DType::f16: return "<f2";
    case DType::i8: return "|i1";
    case DType::u8: return "|u1";
    case DType::i32: return "<i4";
    case DType::i64: return "<i8";
    case DType::boolean: return "|b1";
  }
  return "?";
}

}  // namespace

Tensor parse_npy(const void* data, size_t size) {
  const unsigned char* bytes = static_cast<const unsigned char*>(data);
  VX_CHECK(size >= kMagicSize + 4 && std::memcmp(bytes, kMagic, kMagicSize) == 0, InvalidFile,
           "not a .npy file (bad magic)");
  const unsigned major = bytes[6];
  VX_CHECK(major >= 1 && major <= 3, Unsupported, ".npy format version ", major, " is not supported");
  size_t header_len, header_start;
  if (major == 1) {
    header_len = load<uint16_t>(bytes + 8);
    header_start = 10;
  } else {
    VX_CHECK(size >= 12, InvalidFile, ".npy file truncated in its header");
    header_len = load<uint32_t>(bytes + 8);
    header_start = 12;
  }
  VX_CHECK(header_len <= size - header_start, InvalidFile, ".npy header of ", header_len,
           " bytes runs past the end of the file (", size, " bytes)");
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> dims;
  HeaderParser(std::string_view(reinterpret_cast<const char*>(bytes + header_start), header_len))
      .parse(descr, fortran, dims);
  VX_CHECK(!fortran, Unsupported, ".npy file in Fortran order is not supported (save it C-contiguous)");
  std::optional<NpyType> type = parse_descr(descr);
  VX_CHECK(type.has_value(), Unsupported, ".npy element type '", printable(descr), "' is not supported");

  // Element count and sizes with every product checked: a shape such as (2**62,) overflows
  // 64-bit byte counts, and must be refused before anything is allocated.
  Shape shape(dims);
  const uint64_t out_size = dtype_size(type->dtype);
  uint64_t numel = 1;
  for (int64_t d : dims) {
    VX_CHECK(d == 0 || numel <= kMaxNpyBytes / out_size / uint64_t(d), InvalidFile, ".npy shape ", shape.str(),
             " of '", descr, "' has too many elements: it decodes to more than the limit of ", kMaxNpyBytes,
             " bytes");
    numel *= uint64_t(d);
  }
  // numel * 8 <= 8 * kMaxNpyBytes: no overflow from here on.
  const size_t data_start = header_start + header_len;
  const size_t available = size - data_start;
  VX_CHECK(numel <= available / type->size, InvalidFile, ".npy data is truncated: shape ", shape.str(), " of '",
           descr, "' needs ", numel * type->size, " bytes, the file has ", available);
  Tensor t(type->dtype, shape);
  const unsigned char* p = bytes + data_start;
  if (type->size == dtype_size(type->dtype) && type->kind != 'b') {
    if (t.nbytes()) std::memcpy(t.raw(), p, t.nbytes());
    return t;
  }
  for (int64_t i = 0; i < int64_t(numel); ++i, p += type->size) {
    switch (type->kind) {
      case 'f': t.data<float>()[i] = float(load<double>(p)); break;  // only f8 takes this path
      case 'b': t.data<bool>()[i] = *p != 0; break;
      case 'i':
        if (type->size == 2) t.data<int32_t>()[i] = load<int16_t>(p);
        else t.data<int64_t>()[i] = load<int64_t>(p);
        break;
      case 'u':
        if (type->size == 2) t.data<int32_t>()[i] = load<uint16_t>(p);
        else if (type->size == 4) t.data<int64_t>()[i] = load<uint32_t>(p);
        else t.data<int64_t>()[i] = int64_t(load<uint64_t>(p));
        break;
    }
  }
  return t;
}

Tensor read_npy(const std::filesystem::path& path) {
  // The largest file holding kMaxNpyBytes of data (stored as f8 for f32), with its header.
  const std::vector<uint8_t> bytes = read_file_bytes(path, "npy file", 2 * kMaxNpyBytes + (uint64_t(1) << 20));
  try {
    return parse_npy(bytes.data(), bytes.size());
  } catch (const Error& e) {
    throw e.with_context(cat("npy file ", path));
  } catch (const std::bad_alloc&) {  // sizes are checked first; this is a machine short of memory
    fail(ErrorCode::OutOfMemory, cat("npy file ", path, ": out of memory while decoding"));
  }
}

std::string encode_npy(const Tensor& tensor) {
  VX_CHECK(tensor.defined(), InvalidArgument, "cannot write an empty tensor to .npy");
  std::string shape = "(";
  for (size_t i = 0; i < tensor.rank(); ++i) shape += std::to_string(tensor.dim(i)) + (tensor.rank() == 1 ? "," : i + 1 < tensor.rank() ? ", " : "");
  shape += ")";
  std::string header = "{'descr': '" + descr_of(tensor.dtype()) + "', 'fortran_order': False, 'shape': " + shape + ", }";
  // Pad with spaces and a newline so that the data starts at a multiple of 64 bytes.
  size_t total = kMagicSize + 4 + header.size() + 1;
  header.append((64 - total % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += char(1);
  out += char(0);
  uint16_t len = uint16_t(header.size());
  out.append(reinterpret_cast<const char*>(&len), 2);
  out += header;
  out.append(static_cast<const char*>(tensor.raw()), tensor.nbytes());
  return out;
}

void write_npy(const std::filesystem::path& path, const Tensor& tensor) {
  const std::string bytes = encode_npy(tensor);
  write_file_atomically(path, bytes.data(), bytes.size(), "npy file");
}

}  // namespace vx

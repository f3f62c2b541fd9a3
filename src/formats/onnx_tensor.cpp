// TensorProto -> Tensor.
#include "formats/onnx_tensor.h"

#include <cstring>
#include <limits>
#include <memory>
#include <string>

#include "core/error.h"
#include "core/file_io.h"
#include "core/half.h"
#include "formats/onnx_import.h"
#include "ops/onnx_dtype.h"

namespace vx {

using onnx::TensorProto;

// ops/onnx_dtype.h spells out the codes so that it needs no protobuf; they must be protobuf's.
static_assert(kOnnxFloat == TensorProto::FLOAT && kOnnxUint8 == TensorProto::UINT8 && kOnnxInt8 == TensorProto::INT8 &&
              kOnnxUint16 == TensorProto::UINT16 && kOnnxInt16 == TensorProto::INT16 &&
              kOnnxInt32 == TensorProto::INT32 && kOnnxInt64 == TensorProto::INT64 && kOnnxBool == TensorProto::BOOL &&
              kOnnxFloat16 == TensorProto::FLOAT16 && kOnnxDouble == TensorProto::DOUBLE &&
              kOnnxUint32 == TensorProto::UINT32 && kOnnxUint64 == TensorProto::UINT64 &&
              kOnnxBfloat16 == TensorProto::BFLOAT16 && kOnnxUndefined == TensorProto::UNDEFINED);

namespace onnx_detail {
namespace {

// Size in bytes of one element of an ONNX dtype in raw_data (0 when we cannot read it).
size_t onnx_element_size(int32_t type) {
  switch (type) {
    case TensorProto::FLOAT: case TensorProto::INT32: case TensorProto::UINT32: return 4;
    case TensorProto::DOUBLE: case TensorProto::INT64: case TensorProto::UINT64: return 8;
    case TensorProto::FLOAT16: case TensorProto::BFLOAT16: case TensorProto::INT16: case TensorProto::UINT16: return 2;
    case TensorProto::INT8: case TensorProto::UINT8: case TensorProto::BOOL: return 1;
    default: return 0;
  }
}

template <class T>
T load(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

float bfloat16_to_float(uint16_t bits) {
  uint32_t x = uint32_t(bits) << 16;
  float f;
  std::memcpy(&f, &x, 4);
  return f;
}

// Writes element i of `out` from the little-endian raw bytes of ONNX type `type`.
void store_raw(Tensor& out, int64_t i, int32_t type, const char* p) {
  void* dst = static_cast<char*>(out.raw()) + size_t(i) * dtype_size(out.dtype());
  switch (type) {
    case TensorProto::FLOAT: *static_cast<float*>(dst) = load<float>(p); break;
    case TensorProto::DOUBLE: *static_cast<float*>(dst) = float(load<double>(p)); break;
    case TensorProto::BFLOAT16: *static_cast<float*>(dst) = bfloat16_to_float(load<uint16_t>(p)); break;
    case TensorProto::FLOAT16: *static_cast<uint16_t*>(dst) = load<uint16_t>(p); break;
    case TensorProto::INT8: *static_cast<int8_t*>(dst) = load<int8_t>(p); break;
    case TensorProto::UINT8: *static_cast<uint8_t*>(dst) = load<uint8_t>(p); break;
    case TensorProto::BOOL: *static_cast<uint8_t*>(dst) = load<uint8_t>(p) != 0; break;
    case TensorProto::INT16: *static_cast<int32_t*>(dst) = load<int16_t>(p); break;
    case TensorProto::UINT16: *static_cast<int32_t*>(dst) = load<uint16_t>(p); break;
    case TensorProto::INT32: *static_cast<int32_t*>(dst) = load<int32_t>(p); break;
    case TensorProto::UINT32: *static_cast<int64_t*>(dst) = load<uint32_t>(p); break;
    case TensorProto::INT64: *static_cast<int64_t*>(dst) = load<int64_t>(p); break;
    case TensorProto::UINT64: *static_cast<int64_t*>(dst) = int64_t(load<uint64_t>(p)); break;
    default: fail(ErrorCode::Internal, "store_raw: unexpected type");
  }
}

void fill_from_raw(Tensor& out, int32_t type, const std::string& bytes, const std::string& what) {
  size_t elem = onnx_element_size(type);
  VX_CHECK(bytes.size() == size_t(out.numel()) * elem, InvalidFile, what, " holds ", bytes.size(),
           " bytes of data but its shape ", out.shape().str(), " needs ", size_t(out.numel()) * elem);
  for (int64_t i = 0; i < out.numel(); ++i) store_raw(out, i, type, bytes.data() + size_t(i) * elem);
}

// The `expected` bytes of a tensor's external data. The range is checked against the file and
// against `expected` before anything is allocated, and only that range is read.
std::string read_external_data(const TensorProto& proto, const std::filesystem::path& base_dir,
                               const std::string& what, uint64_t expected) {
  std::string location;
  uint64_t offset = 0, length = 0;
  bool has_length = false;
  for (const auto& entry : proto.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      else if (entry.key() == "offset") offset = std::stoull(entry.value());
      else if (entry.key() == "length") length = std::stoull(entry.value()), has_length = true;
    } catch (const std::exception&) {
      fail(ErrorCode::InvalidFile, cat(what, ": external data ", entry.key(), " '", entry.value(), "' is not a number"));
    }
  }
  VX_CHECK(!location.empty(), InvalidFile, what, " has external data without a location");
  VX_CHECK(!base_dir.empty(), InvalidArgument, what, " has external data '", location,
           "' but the model was loaded from memory without a folder to look in");
  std::filesystem::path rel(location);
  VX_CHECK(rel.is_relative(), InvalidFile, what, ": external data path '", location, "' must be relative");
  for (const auto& part : rel)
    VX_CHECK(part != "..", InvalidFile, what, ": external data path '", location,
             "' must stay inside the model's folder");
  const std::filesystem::path path = base_dir / rel;
  std::unique_ptr<InputFile> file;  // a FIFO or folder is refused here, never waited on
  VX_WITH_CONTEXT(what, file = std::make_unique<InputFile>(path, "external data file"));
  const uint64_t file_size = file->size();
  VX_CHECK(offset <= file_size, InvalidFile, what, ": external data offset ", offset, " is past the end of ",
           path, " (", file_size, " bytes)");
  if (!has_length) length = file_size - offset;
  VX_CHECK(length <= file_size - offset, InvalidFile, what, ": external data [", offset, ", ", offset, " + ", length,
           ") is past the end of ", path, " (", file_size, " bytes)");
  VX_CHECK(length == expected, InvalidFile, what, " has ", length, " bytes of external data in ", path,
           " but its shape needs ", expected);
  std::string bytes(size_t(length), '\0');
  file->read_at(offset, bytes.data(), bytes.size());
  return bytes;
}

}  // namespace

Tensor tensor_from_proto(const TensorProto& proto, const std::filesystem::path& base_dir) {
  const std::string what = cat("tensor '", proto.name(), "'");
  const int32_t type = proto.data_type();
  std::optional<DType> dtype = dtype_from_onnx(type);
  VX_CHECK(dtype.has_value(), Unsupported, what, " has data type ",
           TensorProto::DataType_IsValid(type) ? TensorProto::DataType_Name(type) : std::to_string(type),
           ", which Volvox does not support");
  VX_CHECK(!proto.has_segment(), Unsupported, what, " is segmented, which Volvox does not support");
  std::vector<int64_t> dims;
  for (int64_t d : proto.dims()) {
    VX_CHECK(d >= 0, InvalidFile, what, " has a negative dimension ", d);
    dims.push_back(d);
  }
  Shape shape(dims);
  int64_t numel = 0;
  try {
    numel = shape.numel();
  } catch (const Error&) {
    fail(ErrorCode::InvalidFile, cat(what, " has too many elements: ", shape.str()));
  }

  // Count the data first so a corrupt header cannot make us allocate more than the file holds.
  const bool external = proto.data_location() == TensorProto::EXTERNAL;
  int64_t available = 0;
  const size_t elem = onnx_element_size(type);
  if (external) {
    available = -1;  // checked after reading
  } else if (proto.has_raw_data()) {
    available = int64_t(proto.raw_data().size() / elem);
    VX_CHECK(proto.raw_data().size() % elem == 0, InvalidFile, what, " has ", proto.raw_data().size(),
             " bytes of raw data, not a multiple of its element size ", elem);
  } else {
    switch (type) {
      case TensorProto::FLOAT: available = proto.float_data_size(); break;
      case TensorProto::DOUBLE: available = proto.double_data_size(); break;
      case TensorProto::INT64: available = proto.int64_data_size(); break;
      case TensorProto::UINT32: case TensorProto::UINT64: available = proto.uint64_data_size(); break;
      default: available = proto.int32_data_size(); break;  // the narrow types and float16 / bfloat16 bits
    }
  }
  VX_CHECK(available < 0 || available == numel, InvalidFile, what, " has ", available,
           " elements of data but its shape ", shape.str(), " needs ", numel);

  if (external) {
    // Bound the size before it is multiplied out: external data may be large, but not past what
    // one file read may hold.
    VX_CHECK(uint64_t(numel) <= kMaxReadFileBytes / elem, InvalidFile, what, " has shape ", shape.str(),
             ": its external data would exceed the limit of ", kMaxReadFileBytes, " bytes");
    std::string bytes = read_external_data(proto, base_dir, what, uint64_t(numel) * elem);
    Tensor out(*dtype, shape);
    fill_from_raw(out, type, bytes, what);
    return out;
  }
  Tensor out(*dtype, shape);
  if (proto.has_raw_data()) {
    fill_from_raw(out, type, proto.raw_data(), what);
    return out;
  }
  for (int64_t i = 0; i < numel; ++i) {
    switch (type) {
      case TensorProto::FLOAT: out.data<float>()[i] = proto.float_data(int(i)); break;
      case TensorProto::DOUBLE: out.data<float>()[i] = float(proto.double_data(int(i))); break;
      case TensorProto::INT64: out.data<int64_t>()[i] = proto.int64_data(int(i)); break;
      case TensorProto::UINT32:
      case TensorProto::UINT64: out.data<int64_t>()[i] = int64_t(proto.uint64_data(int(i))); break;
      case TensorProto::FLOAT16: out.data<Half>()[i].bits = uint16_t(proto.int32_data(int(i))); break;
      case TensorProto::BFLOAT16: out.data<float>()[i] = bfloat16_to_float(uint16_t(proto.int32_data(int(i)))); break;
      case TensorProto::INT8: out.data<int8_t>()[i] = int8_t(proto.int32_data(int(i))); break;
      case TensorProto::UINT8: out.data<uint8_t>()[i] = uint8_t(proto.int32_data(int(i))); break;
      case TensorProto::BOOL: out.data<bool>()[i] = proto.int32_data(int(i)) != 0; break;
      case TensorProto::INT16: out.data<int32_t>()[i] = int16_t(proto.int32_data(int(i))); break;
      case TensorProto::UINT16: out.data<int32_t>()[i] = uint16_t(proto.int32_data(int(i))); break;
      case TensorProto::INT32: out.data<int32_t>()[i] = proto.int32_data(int(i)); break;
      default: fail(ErrorCode::Internal, "tensor_from_proto: unexpected type");
    }
  }
  return out;
}

}  // namespace onnx_detail
}  // namespace vx

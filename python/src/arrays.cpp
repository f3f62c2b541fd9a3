#include "arrays.h"

namespace volvox_python {

std::optional<VXDataType> data_type_of(const py::dtype& dtype) {
  const char kind = dtype.kind();
  const ssize_t size = dtype.itemsize();
  if (kind == 'f' && size == 4) return VX_TYPE_FLOAT32;
  if (kind == 'f' && size == 2) return VX_TYPE_FLOAT16;
  if (kind == 'i' && size == 1) return VX_TYPE_INT8;
  if (kind == 'u' && size == 1) return VX_TYPE_UINT8;
  if (kind == 'i' && size == 4) return VX_TYPE_INT32;
  if (kind == 'i' && size == 8) return VX_TYPE_INT64;
  if (kind == 'b' && size == 1) return VX_TYPE_BOOL;
  return std::nullopt;
}

py::dtype dtype_of(VXDataType type) {
  switch (type) {
    case VX_TYPE_FLOAT32: return py::dtype("float32");
    case VX_TYPE_FLOAT16: return py::dtype("float16");
    case VX_TYPE_INT8: return py::dtype("int8");
    case VX_TYPE_UINT8: return py::dtype("uint8");
    case VX_TYPE_INT32: return py::dtype("int32");
    case VX_TYPE_INT64: return py::dtype("int64");
    case VX_TYPE_BOOL: return py::dtype("bool");
  }
  return py::dtype("float32");
}

std::string onnx_type_name(VXDataType type) {
  switch (type) {
    case VX_TYPE_FLOAT32: return "tensor(float)";
    case VX_TYPE_FLOAT16: return "tensor(float16)";
    case VX_TYPE_INT8: return "tensor(int8)";
    case VX_TYPE_UINT8: return "tensor(uint8)";
    case VX_TYPE_INT32: return "tensor(int32)";
    case VX_TYPE_INT64: return "tensor(int64)";
    case VX_TYPE_BOOL: return "tensor(bool)";
  }
  return "tensor(float)";
}

size_t element_size(VXDataType type) {
  switch (type) {
    case VX_TYPE_FLOAT32:
    case VX_TYPE_INT32: return 4;
    case VX_TYPE_FLOAT16: return 2;
    case VX_TYPE_INT64: return 8;
    case VX_TYPE_INT8:
    case VX_TYPE_UINT8:
    case VX_TYPE_BOOL: return 1;
  }
  return 4;
}

py::array to_array(HostTensor&& tensor) {
  auto* owned = new std::vector<uint8_t>(std::move(tensor.bytes));
  py::capsule owner(owned, [](void* p) { delete static_cast<std::vector<uint8_t>*>(p); });
  std::vector<ssize_t> shape(tensor.shape.begin(), tensor.shape.end());
  return py::array(dtype_of(tensor.type), shape, owned->data(), owner);
}

}  // namespace volvox_python

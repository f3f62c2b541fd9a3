// NumPy arrays and the C API's element types: which dtype is which VXDataType, and arrays that own
// memory filled without the GIL (handed to NumPy without another copy).
#pragma once
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "volvox/volvox.h"

namespace volvox_python {

namespace py = pybind11;

// The C API type of a NumPy dtype; nullopt for dtypes models cannot take (float64, uint16, ...).
std::optional<VXDataType> data_type_of(const py::dtype& dtype);
py::dtype dtype_of(VXDataType type);
// ONNX Runtime's name of a type: "tensor(float)", "tensor(int64)", ...
std::string onnx_type_name(VXDataType type);
size_t element_size(VXDataType type);

// Bytes and a shape, filled without the GIL, later made into an array that owns them.
struct HostTensor {
  VXDataType type = VX_TYPE_FLOAT32;
  std::vector<int64_t> shape;
  std::vector<uint8_t> bytes;
};
// Needs the GIL. The array owns the bytes (moved out of `tensor`), no copy.
py::array to_array(HostTensor&& tensor);

}  // namespace volvox_python

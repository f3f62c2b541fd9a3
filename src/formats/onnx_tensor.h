// Internal to the ONNX importer: TensorProto -> Tensor (shared by onnx_import.cpp and the test-data
// reader). Not part of the public interface: include formats/onnx_import.h instead.
#pragma once
#include <onnx/onnx_pb.h>

#include <filesystem>

#include "core/tensor.h"

namespace vx::onnx_detail {

// Converts with the dtype mapping of ops/onnx_dtype.h. Bounds-checked: the data must hold exactly the
// number of elements the dims say. External data is read from base_dir (an error when empty).
Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::filesystem::path& base_dir);

}  // namespace vx::onnx_detail

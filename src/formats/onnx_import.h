// ONNX model import: a ModelProto (file or memory) -> vx::Graph.
//
// - Initializers and Constant nodes become constant values (every dtype; raw_data or the typed
//   fields; external data files next to the model).
// - DType mapping (ops/onnx_dtype.h; our DType has no f64 / 16-bit or unsigned-32/64 integers):
//   double -> f32, bfloat16 -> f32, int16 / uint16 -> i32, uint32 / uint64 -> i64. Strings and
//   complex numbers are Unsupported.
// - Attributes of every kind but lists of graphs (no standard op has one: such nodes are reported
//   as unsupported). A graph attribute (the bodies of If, Loop, Scan) is imported as a Graph of its
//   own; the values it reads from enclosing graphs become explicit inputs (ops/control_flow.h).
// - Opset imports go to Graph::opsets ("ai.onnx" is stored as ""); symbolic dims become -1 extents
//   with their names in Value::dim_params.
// - Unless options.check_support is false, every node must have a CPU kernel (ops/host_kernels.h);
//   otherwise ErrorCode::Unsupported listing every such node as "name (OpType)".
// Errors: InvalidFile for truncated or malformed protobuf, missing initializers or inputs, cycles;
// Unsupported for unsupported ops, dtypes and value kinds (sequences, maps, optionals).
#pragma once
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "core/graph.h"
#include "core/tensor.h"

namespace vx {

struct OnnxImportOptions {
  bool check_support = true;  // fail on nodes without a CPU kernel
};

Graph import_onnx(const std::filesystem::path& path, const OnnxImportOptions& options = {});
// `base_dir` is where external data files are looked up (empty: external data is an error).
Graph import_onnx_buffer(const void* data, size_t size, const std::filesystem::path& base_dir = {},
                         const OnnxImportOptions& options = {});

// The nodes of `graph` and of its bodies that no CPU kernel supports, each as "name (OpType)".
std::vector<std::string> unsupported_onnx_nodes(const Graph& graph);

// One serialized TensorProto (as in the ONNX test suite's input_0.pb): the tensor, and its name
// when `name` is given. External data is looked up relative to the file's folder.
Tensor read_onnx_tensor_file(const std::filesystem::path& path, std::string* name = nullptr);
Tensor read_onnx_tensor_buffer(const void* data, size_t size, std::string* name = nullptr);

}  // namespace vx

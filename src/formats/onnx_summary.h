// What an imported ONNX model holds, for `volvox inspect model.onnx`: opsets, inputs and outputs
// (with symbolic dims), op histogram, parameter count and the nodes no CPU kernel supports.
#pragma once
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/graph.h"

namespace vx {

struct OnnxTensorInfo {
  std::string name;
  DType dtype = DType::f32;
  std::vector<std::string> dims;  // "3", "batch" (symbolic) or "?" (unknown)
  std::string shape_str() const;  // "[batch, 3, 224, 224]"
};

struct OnnxModelSummary {
  std::string graph_name;
  std::map<std::string, int64_t> opsets;  // domain ("" = ai.onnx) -> version
  std::vector<OnnxTensorInfo> inputs, outputs;
  std::map<std::string, int> op_histogram;  // "Conv" or "domain:Op" -> node count
  size_t node_count = 0;
  int64_t parameter_count = 0;  // elements of all constant values (initializers, Constant nodes)
  int64_t parameter_bytes = 0;
  std::vector<std::string> unsupported_nodes;  // "name (OpType)"
};

// `graph` as imported with check_support = false (so unsupported nodes are listed, not fatal).
OnnxModelSummary summarize_onnx(const Graph& graph);
// Imports `path` without the support check and summarises it.
OnnxModelSummary summarize_onnx_file(const std::filesystem::path& path);
// The human-readable report `volvox inspect` prints.
std::string format_onnx_summary(const OnnxModelSummary& summary);

}  // namespace vx

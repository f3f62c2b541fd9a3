#include "formats/onnx_summary.h"

#include <algorithm>
#include <cstdio>

#include "formats/onnx_import.h"

namespace vx {
namespace {

OnnxTensorInfo tensor_info(const Value& v) {
  OnnxTensorInfo info{v.name, v.dtype, {}};
  for (size_t d = 0; d < v.shape.rank(); ++d) {
    if (d < v.dim_params.size() && !v.dim_params[d].empty()) info.dims.push_back(v.dim_params[d]);
    else if (v.shape[d] < 0) info.dims.push_back("?");
    else info.dims.push_back(std::to_string(v.shape[d]));
  }
  return info;
}

std::string thousands(int64_t n) {
  std::string digits = std::to_string(n), out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace

std::string OnnxTensorInfo::shape_str() const {
  std::string s = "[";
  for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + dims[i];
  return s + "]";
}

OnnxModelSummary summarize_onnx(const Graph& graph) {
  OnnxModelSummary s;
  s.graph_name = graph.name;
  s.opsets = graph.opsets;
  for (ValueId id : graph.inputs) s.inputs.push_back(tensor_info(graph.value(id)));
  for (ValueId id : graph.outputs) s.outputs.push_back(tensor_info(graph.value(id)));
  s.node_count = graph.nodes.size();
  for (const Node& n : graph.nodes) ++s.op_histogram[n.domain.empty() ? n.op : n.domain + ":" + n.op];
  for (const Value& v : graph.values)
    if (v.is_constant()) {
      s.parameter_count += v.constant.numel();
      s.parameter_bytes += int64_t(v.constant.nbytes());
    }
  s.unsupported_nodes = unsupported_onnx_nodes(graph);
  return s;
}

OnnxModelSummary summarize_onnx_file(const std::filesystem::path& path) {
  OnnxImportOptions options;
  options.check_support = false;
  return summarize_onnx(import_onnx(path, options));
}

std::string format_onnx_summary(const OnnxModelSummary& s) {
  std::string out;
  char line[512];
  out += "format:      ONNX\n";
  out += "graph:       " + (s.graph_name.empty() ? std::string("(unnamed)") : s.graph_name) + "\n";
  std::string opsets;
  for (const auto& [domain, version] : s.opsets)
    opsets += (opsets.empty() ? "" : ", ") + (domain.empty() ? std::string("ai.onnx") : domain) + " " +
              std::to_string(version);
  out += "opsets:      " + opsets + "\n";
  out += "nodes:       " + std::to_string(s.node_count) + "\n";
  std::snprintf(line, sizeof line, "parameters:  %s (%.2f MiB)\n", thousands(s.parameter_count).c_str(),
                double(s.parameter_bytes) / (1 << 20));
  out += line;
  auto tensors = [&](const char* title, const std::vector<OnnxTensorInfo>& list) {
    out += std::string("\n") + title + ":\n";
    for (const OnnxTensorInfo& t : list) {
      std::snprintf(line, sizeof line, "  %-32s %-8s %s\n", t.name.c_str(), std::string(dtype_name(t.dtype)).c_str(),
                    t.shape_str().c_str());
      out += line;
    }
  };
  tensors("inputs", s.inputs);
  tensors("outputs", s.outputs);
  std::vector<std::pair<std::string, int>> ops(s.op_histogram.begin(), s.op_histogram.end());
  std::stable_sort(ops.begin(), ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });
  out += "\nops:\n";
  for (const auto& [op, count] : ops) {
    std::snprintf(line, sizeof line, "  %-32s %d\n", op.c_str(), count);
    out += line;
  }
  out += "\nunsupported nodes: " + std::to_string(s.unsupported_nodes.size()) + "\n";
  for (const std::string& n : s.unsupported_nodes) out += "  " + n + "\n";
  return out;
}

}  // namespace vx

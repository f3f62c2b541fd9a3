// `volvox inspect FILE`: what a model file holds. Dispatches on the extension; .tza prints the
// detected U-Net spec and the tensor table; .onnx prints opsets, inputs / outputs, the op
// histogram, the parameter count and the nodes no CPU kernel supports. A file that cannot be read or fits no spec is an error
// (one line, exit status 1, from main).
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <map>
#include <string>

#include "command.h"
#include "core/error.h"
#include "denoise/unet_spec.h"
#include "formats/onnx_summary.h"
#include "formats/tza.h"

namespace vx::cli {
namespace {

// 919811 -> "919,811"
std::string thousands(int64_t n) {
  std::string digits = std::to_string(n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void inspect_tza(const std::filesystem::path& path) {
  const TzaFile file = read_tza(path);
  UNetSpec spec;
  VX_WITH_CONTEXT(path.string(), spec = detect_unet_spec(file));

  std::printf("file:            %s\n", path.string().c_str());
  std::printf("format:          TZA (Open Image Denoise weights), %zu tensors\n", file.tensors.size());
  std::printf("spec:            OIDN U-Net\n");
  std::printf("variant:         %s\n", std::string(unet_variant_name(spec.variant)).c_str());
  std::printf("input channels:  %d\n", spec.input_channels);
  std::printf("parameters:      %s\n", thousands(spec.parameter_count()).c_str());
  std::printf("MACs per pixel:  %s (%.1fk)\n", thousands(spec.macs_per_pixel()).c_str(),
              double(spec.macs_per_pixel()) / 1000.0);
  std::printf("receptive field: %d px (tile overlap %d, alignment %d)\n", spec.receptive_field, spec.tile_overlap(),
              spec.alignment);

  size_t name_width = 4;
  for (const TzaTensor& t : file.tensors) name_width = std::max(name_width, t.name.size());
  std::printf("\n%-*s  %-16s  %-6s  %s\n", int(name_width), "name", "shape", "layout", "dtype");
  for (const TzaTensor& t : file.tensors)
    std::printf("%-*s  %-16s  %-6s  %s\n", int(name_width), t.name.c_str(), t.data.shape().str().c_str(),
                t.layout.c_str(), std::string(dtype_name(t.data.dtype())).c_str());
}

void inspect_onnx(const std::filesystem::path& path) {
  std::printf("file:        %s\n%s", path.string().c_str(), format_onnx_summary(summarize_onnx_file(path)).c_str());
}

// One inspector per file extension (lower case, with the dot).
const std::map<std::string, std::function<void(const std::filesystem::path&)>>& inspectors() {
  static const std::map<std::string, std::function<void(const std::filesystem::path&)>> table{
      {".tza", inspect_tza},
      {".onnx", inspect_onnx},
  };
  return table;
}

void inspect(const std::string& file) {
  std::filesystem::path path(file);
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  auto it = inspectors().find(ext);
  if (it != inspectors().end()) return it->second(path);
  fail(ErrorCode::InvalidArgument, cat("inspect: ", file, ": unknown file type '", ext, "' (expected .tza or .onnx)"));
}

void setup_inspect(CLI::App& app) {
  auto* cmd = app.add_subcommand("inspect", "Describe a model file (.tza: U-Net variant, tensors, size; .onnx: opsets, I/O, ops, support)");
  auto file = std::make_shared<std::string>();
  cmd->add_option("file", *file, "the model file")->required();
  cmd->callback([file] {
    if (!validate_only()) inspect(*file);
  });
}

}  // namespace

VX_REGISTER_COMMAND(inspect, setup_inspect);

}  // namespace vx::cli

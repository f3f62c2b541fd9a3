#include "core/precision.h"

#include "core/error.h"

namespace vx {

std::optional<Precision> parse_precision(const std::string& text) {
  if (text == "fp32") return Precision::fp32;
  if (text == "fp16") return Precision::fp16;
  VX_CHECK(text == "auto", InvalidArgument, "unknown precision '", text, "' (use fp32, fp16 or auto)");
  return std::nullopt;
}

}  // namespace vx

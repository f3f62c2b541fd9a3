// The precision a device stores floats in: fp32, or fp16 (storage in half; each kernel states how
// it accumulates). What a caller asks for is a std::optional<Precision>: empty is "automatic",
// which each entry point resolves and documents (the denoiser: fp16 where the device has it; a
// model: fp32).
#pragma once
#include <optional>
#include <string>

namespace vx {

enum class Precision { fp32, fp16 };

inline const char* precision_name(Precision p) { return p == Precision::fp16 ? "fp16" : "fp32"; }
// "fp32", "fp16", or "auto" (empty); InvalidArgument names anything else.
std::optional<Precision> parse_precision(const std::string& text);
inline const char* precision_name(std::optional<Precision> p) { return p ? precision_name(*p) : "auto"; }

}  // namespace vx

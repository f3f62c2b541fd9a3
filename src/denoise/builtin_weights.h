// Weights compiled into a program, as OIDN carries its own: the installed library and the CLI embed
// the OIDN weight files found at build time (cmake/BuiltinWeights.cmake), so that a filter needs no
// file on disk. The generated object registers them at static initialisation; a program linked
// without it (the test binaries) has none.
#pragma once
#include <cstddef>
#include <span>
#include <string>
#include <vector>

namespace vx::denoise {

struct BuiltinWeights {
  const char* name;  // weights name, e.g. "rt_hdr_alb_nrm"
  const std::byte* data;
  size_t size;
};

// Adds `count` entries (static storage); returns true so that it can initialise a static.
bool register_builtin_weights(const BuiltinWeights* table, size_t count);
// The bytes of the built-in weights `name`; empty when this program does not carry them.
std::span<const std::byte> find_builtin_weights(const std::string& name);
std::vector<std::string> builtin_weights_names();

}  // namespace vx::denoise

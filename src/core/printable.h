// Bytes from a file, made safe to print in a one-line error message.
#pragma once
#include <cstddef>
#include <string>
#include <string_view>

namespace vx {

// `bytes` with every byte outside printable ASCII written as \xNN (and '\\' as "\\\\"), cut after
// `max_bytes` input bytes with "..." appended, so a corrupt header never puts binary, newlines or
// terminal escapes into a message.
std::string printable(std::string_view bytes, size_t max_bytes = 64);

}  // namespace vx

#include "frame_pattern.h"

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/error.h"

namespace vx::cli {

void check_frame_pattern(const std::string& flag, const std::string& pattern) {
  int fields = 0;
  for (size_t i = 0; i < pattern.size(); ++i) {
    if (pattern[i] != '%') continue;
    if (i + 1 < pattern.size() && pattern[i + 1] == '%') {
      ++i;
      continue;
    }
    size_t j = i + 1;
    if (j < pattern.size() && pattern[j] == '0') ++j;
    size_t digits = 0;
    while (j < pattern.size() && std::isdigit(static_cast<unsigned char>(pattern[j])) && digits < 2) ++j, ++digits;
    VX_CHECK(j < pattern.size() && pattern[j] == 'd', InvalidArgument, flag, " '", pattern,
             "': a frame pattern takes one %d or %0Nd field (N < 100) and %% for a percent sign");
    ++fields;
    i = j;
  }
  VX_CHECK(fields == 1, InvalidArgument, flag, " '", pattern, "' has ", fields,
           " frame-number fields; it needs exactly one, e.g. frames/room_%04d.exr");
}

std::string frame_path(const std::string& pattern, int frame) {
  const int n = std::snprintf(nullptr, 0, pattern.c_str(), frame);
  std::string out(size_t(std::max(n, 0)) + 1, '\0');
  std::snprintf(out.data(), out.size(), pattern.c_str(), frame);
  out.resize(size_t(std::max(n, 0)));
  return out;
}

FrameRange parse_frame_range(const std::string& flag, const std::string& text) {
  // Digits only (no sign, no spaces), at most 8 of them: then stoi cannot overflow.
  auto number = [](const std::string& s) {
    return !s.empty() && s.size() <= 8 &&
           std::all_of(s.begin(), s.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); });
  };
  const size_t dash = text.find('-');
  const std::string first = text.substr(0, dash), last = dash == std::string::npos ? first : text.substr(dash + 1);
  VX_CHECK(number(first) && number(last), InvalidArgument, flag, " '", text,
           "': expected FIRST-LAST (inclusive frame numbers, e.g. 1-500) or one frame number N, each 0 to ",
           kMaxFrameNumber);
  const FrameRange range{std::stoi(first), std::stoi(last)};
  VX_CHECK(range.last >= range.first, InvalidArgument, flag, " ", text, ": the last frame ", range.last,
           " is before the first ", range.first);
  return range;
}

}  // namespace vx::cli

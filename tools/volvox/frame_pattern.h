// Frame file patterns of sequences (`volvox denoise --sequence`, `volvox compare --sequence`): a
// path with one printf integer field, "%d" or "%0Nd" (e.g. frames/room_%04d_color.exr); "%%" is a
// literal percent sign.
#pragma once
#include <string>

namespace vx::cli {

// InvalidArgument naming `flag` unless `pattern` has exactly one such field.
void check_frame_pattern(const std::string& flag, const std::string& pattern);
std::string frame_path(const std::string& pattern, int frame);

// --range FIRST-LAST (inclusive frame numbers) or N (N-N); InvalidArgument naming `flag` when it is
// malformed, LAST < FIRST, or a number is above kMaxFrameNumber.
struct FrameRange {
  int first = 0, last = 0;
};
inline constexpr int kMaxFrameNumber = 99999999;
FrameRange parse_frame_range(const std::string& flag, const std::string& text);

}  // namespace vx::cli

// The filter's temporal stage (FilterParams::temporal): after the network has written this
// execute's output, TemporalStabilizer blends it with the previous execute's output reprojected by
// the motion vectors, in place in the caller's output image, and keeps it as the next history.
// Works on host image views (any format and strides), so on every device for host images.
#pragma once
#include <optional>

#include "denoise/image_view.h"
#include "denoise/temporal_stabilizer.h"

namespace vx::denoise {

class TemporalStage {
 public:
  // `output`: 3 channels, stabilised in place; `motion`: 2+ channels (pixels, current to previous
  // frame: samples/motion.h), `depth`: 1 channel, `normal`: 3 channels or null (depth alone then
  // decides where the history is valid). All the output's size.
  void apply(const ImageView& output, const ImageView& motion, const ImageView& depth, const ImageView* normal,
             float blend);
  // A cut: the next execute starts a new history.
  void reset() { stabilizer_.reset(); }

 private:
  std::optional<TemporalStabilizer> stabilizer_;
};

}  // namespace vx::denoise

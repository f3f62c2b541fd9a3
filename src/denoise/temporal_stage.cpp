#include "denoise/temporal_stage.h"

namespace vx::denoise {

namespace {

// The first `channels` channels of a view as a host image.
Image read_view(const ImageView& view, int channels) {
  Image image(view.width, view.height, channels);
  for (int y = 0; y < view.height; ++y)
    for (int x = 0; x < view.width; ++x)
      for (int c = 0; c < channels; ++c) image.at(x, y, c) = view.load(x, y, c);
  return image;
}

}  // namespace

void TemporalStage::apply(const ImageView& output, const ImageView& motion, const ImageView& depth,
                          const ImageView* normal, float blend) {
  if (!stabilizer_) stabilizer_.emplace(blend);
  stabilizer_->set_blend(blend);
  const Image stabilised = stabilizer_->apply(read_view(output, 3), read_view(motion, 2), read_view(depth, 1),
                                              normal ? read_view(*normal, 3) : Image());
  for (int y = 0; y < output.height; ++y)
    for (int x = 0; x < output.width; ++x)
      for (int c = 0; c < 3; ++c) output.store(x, y, c, stabilised.at(x, y, c));
}

}  // namespace vx::denoise

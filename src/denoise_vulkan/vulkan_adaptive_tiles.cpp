#include "denoise_vulkan/vulkan_adaptive_tiles.h"

#include <algorithm>
#include <cmath>

#include "core/error.h"

namespace vx::denoise {

const std::vector<int>& AdaptiveTiler::side_ladder() {
  static const std::vector<int> ladder = {16, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096};
  return ladder;
}

namespace {
int ladder_at_most(int side) {
  int best = AdaptiveTiler::side_ladder().front();
  for (int s : AdaptiveTiler::side_ladder())
    if (s <= side) best = s;
  return best;
}
}  // namespace

AdaptiveTiler::AdaptiveTiler(int width, int height, int overlap, double target_ms, int initial_side)
    : width_(width), height_(height), overlap_(overlap), target_ms_(target_ms), side_(ladder_at_most(initial_side)) {
  VX_CHECK(width > 0 && height > 0, InvalidArgument, "cannot tile an empty image (", width, "x", height, ")");
  VX_CHECK(target_ms > 0 && std::isfinite(target_ms), InvalidArgument, "target tile time ", target_ms,
           " ms is not a positive number");
  VX_CHECK(overlap >= 0 && overlap % kTileAlignment == 0, InvalidArgument, "tile overlap ", overlap,
           " is not a multiple of ", kTileAlignment);
}

// The buffer holds the owned side plus the overlap on both ends, but never more than the image.
int AdaptiveTiler::buffer_side(int owned, int image_size) const {
  return std::min(owned + 2 * overlap_, round_up(image_size, kTileAlignment));
}

std::optional<AdaptiveTile> AdaptiveTiler::next() {
  if (band_open_ && x_ >= width_) {
    band_open_ = false;
    band_y_ += band_h_;
  }
  if (band_y_ >= height_) return std::nullopt;
  if (!band_open_) {
    band_open_ = true;
    band_h_ = std::min(side_, height_ - band_y_);  // fixed for the band; widths follow side_
    x_ = 0;
  }
  AdaptiveTile t;
  const int w = std::min(side_, width_ - x_);
  Tile& tile = t.tile;
  tile.out_x = x_, tile.out_y = band_y_, tile.out_w = w, tile.out_h = band_h_;
  tile.in_x = std::max(0, x_ - overlap_);
  tile.in_y = std::max(0, band_y_ - overlap_);
  tile.in_w = std::min(width_, x_ + w + overlap_) - tile.in_x;
  tile.in_h = std::min(height_, band_y_ + band_h_ + overlap_) - tile.in_y;
  tile.out_offset_x = x_ - tile.in_x;
  tile.out_offset_y = band_y_ - tile.in_y;
  // One buffer shape per (side, band height): few network shapes, whatever the clipping at edges.
  t.buffer_w = buffer_side(side_, width_);
  t.buffer_h = buffer_side(round_up(band_h_, kTileAlignment), height_);
  t.buffer_w = std::max(t.buffer_w, round_up(tile.in_w, kTileAlignment));
  t.buffer_h = std::max(t.buffer_h, round_up(tile.in_h, kTileAlignment));
  // Where the image ends, the buffer must end as in the untiled case (the padding to 16, then the
  // convolutions' zero padding): past the first layer the padded pixels are not zero any more, so
  // a wider gap would change pixels near the edge. A tile reaching the far edge is therefore
  // aligned to the far end of its buffer (OIDN's rule); one at the near edge starts at 0.
  tile.buffer_x = tile.in_x + tile.in_w == width_ ? t.buffer_w - round_up(tile.in_w, kTileAlignment) : 0;
  tile.buffer_y = tile.in_y + tile.in_h == height_ ? t.buffer_h - round_up(tile.in_h, kTileAlignment) : 0;
  x_ += w;
  covered_ += int64_t(w) * band_h_;
  last_ = t;
  have_last_ = true;
  return t;
}

bool AdaptiveTiler::has_more() const {
  if (band_y_ >= height_) return false;
  if (!band_open_) return true;
  return x_ < width_ || band_y_ + band_h_ < height_;
}

void AdaptiveTiler::report(double ms) {
  if (!have_last_ || !(ms > 0) || !std::isfinite(ms)) return;
  // Time grows with the buffer's pixels: choose the largest side whose buffer fits the target.
  const double ms_per_pixel = ms / (double(last_.buffer_w) * double(last_.buffer_h));
  int best = side_ladder().front();
  for (int s : side_ladder()) {
    const double predicted = ms_per_pixel * double(buffer_side(s, width_)) * double(buffer_side(s, height_));
    if (predicted <= target_ms_) best = s;
  }
  side_ = best;
}

}  // namespace vx::denoise

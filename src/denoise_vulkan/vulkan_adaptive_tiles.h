// Interactive tiling: tiles sized so that each takes about a target GPU time, from the measured
// time of the tiles before it, so that a renderer can stay responsive (and cancel between tiles).
// The image is walked in bands of tiles; every tile owns a 16-aligned rectangle of the output and
// reads that rectangle grown by the overlap (clipped to the image), placed at the start of its
// buffer, or at its end for tiles that reach the image's far edge (so that the image ends where
// the untiled buffer's would). Owned rectangles start on multiples of 16 and the overlap is a
// multiple of 16, so the pooling grid stays aligned with the image and each owned pixel sees its
// whole receptive field: the result equals the untiled one, whatever the sizes chosen.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "denoise/tiling.h"

namespace vx::denoise {

struct AdaptiveTile {
  Tile tile;                     // the same fields as a fixed layout's tiles
  int buffer_w = 0, buffer_h = 0;  // network input size for this tile
};

class AdaptiveTiler {
 public:
  // target_ms > 0. initial_side: the owned side of the first tile (rounded to the size ladder).
  AdaptiveTiler(int width, int height, int overlap, double target_ms, int initial_side = 64);

  // The next tile, or nothing when the image is covered.
  std::optional<AdaptiveTile> next();
  // Whether next() would return a tile (without making it: later tiles are sized after report()).
  bool has_more() const;
  // The time the tile returned last took (ms): later tiles are sized from it.
  void report(double ms);

  // Owned sides the tiler chooses from (multiples of 16, about x1.5 apart), so that few network
  // shapes (executables) are ever needed.
  static const std::vector<int>& side_ladder();
  int current_side() const { return side_; }
  double covered_fraction() const { return double(covered_) / (double(width_) * double(height_)); }

 private:
  int buffer_side(int owned, int image_size) const;
  int width_, height_, overlap_;
  double target_ms_;
  int side_;               // owned side for tiles still to be made
  int band_y_ = 0, band_h_ = 0, x_ = 0;
  bool band_open_ = false;
  int64_t covered_ = 0;
  AdaptiveTile last_{};
  bool have_last_ = false;
};

}  // namespace vx::denoise

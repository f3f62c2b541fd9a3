#include "denoise/tiling.h"

#include <algorithm>

#include "core/error.h"

namespace vx::denoise {

int tile_overlap(int receptive_field) { return round_up(receptive_field / 2, kTileAlignment); }

namespace {
struct Axis {
  int tile_size = 0;  // buffer size along this axis
  int count = 1;
};

Axis plan_axis(int size, int overlap, int max_side) {
  Axis a;
  const int full = round_up(size, kTileAlignment);
  if (max_side <= 0 || full <= max_side) {
    a.tile_size = full;
    return a;
  }
  a.tile_size = std::max(max_side / kTileAlignment * kTileAlignment, 2 * overlap + kTileAlignment);
  if (full <= a.tile_size) {
    a.tile_size = full;
    return a;
  }
  const int step = a.tile_size - 2 * overlap;
  a.count = (size - 2 * overlap + step - 1) / step;
  return a;
}

// One axis of one tile, OIDN's way: where the input starts, how much of it, where it sits in the
// buffer, and which part of the output it owns.
struct Span {
  int in_pos, in_size, buffer_pos, out_offset, out_pos, out_size;
};

Span tile_span(int i, const Axis& a, int size, int overlap) {
  Span s;
  s.in_pos = i * (a.tile_size - 2 * overlap);
  const int overlap_begin = i > 0 ? overlap : 0;
  const int overlap_end = i < a.count - 1 ? overlap : 0;
  s.in_size = std::min(size - s.in_pos, a.tile_size);
  s.buffer_pos = a.tile_size - round_up(s.in_size, kTileAlignment);
  s.out_offset = overlap_begin;
  s.out_pos = s.in_pos + overlap_begin;
  s.out_size = s.in_size - overlap_begin - overlap_end;
  return s;
}
}  // namespace

TileLayout make_tile_layout(int width, int height, int receptive_field, int max_tile_side) {
  VX_CHECK(width > 0 && height > 0, InvalidArgument, "cannot tile an empty image (", width, "x", height, ")");
  TileLayout layout;
  layout.overlap = tile_overlap(receptive_field);
  const Axis ax = plan_axis(width, layout.overlap, max_tile_side);
  const Axis ay = plan_axis(height, layout.overlap, max_tile_side);
  layout.tile_width = ax.tile_size;
  layout.tile_height = ay.tile_size;
  for (int i = 0; i < ay.count; ++i) {
    const Span sy = tile_span(i, ay, height, layout.overlap);
    for (int j = 0; j < ax.count; ++j) {
      const Span sx = tile_span(j, ax, width, layout.overlap);
      Tile t;
      t.in_x = sx.in_pos, t.in_w = sx.in_size, t.buffer_x = sx.buffer_pos;
      t.in_y = sy.in_pos, t.in_h = sy.in_size, t.buffer_y = sy.buffer_pos;
      t.out_offset_x = sx.out_offset, t.out_x = sx.out_pos, t.out_w = sx.out_size;
      t.out_offset_y = sy.out_offset, t.out_y = sy.out_pos, t.out_h = sy.out_size;
      layout.tiles.push_back(t);
    }
  }
  return layout;
}

}  // namespace vx::denoise

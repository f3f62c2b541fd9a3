// How an image of any size is split into network-sized tiles (OIDN's scheme): tiles of a fixed
// aligned size overlap by round_up(receptive field / 2, 16) on inner edges, so every output pixel
// is computed from a tile that contains its whole receptive field: a tiled result equals the
// untiled one up to float rounding. The last tile in a row or column is aligned to the far edge of
// its buffer so the pooling grid stays aligned with the image.
#pragma once
#include <vector>

namespace vx::denoise {

constexpr int kTileAlignment = 16;  // the U-Net pools 4 times: sides are multiples of 2^4

inline int round_up(int v, int a) { return (v + a - 1) / a * a; }

struct Tile {
  // Input: image rows [in_y, in_y + in_h) and columns [in_x, in_x + in_w) are placed in the tile
  // buffer at (buffer_y, buffer_x); the rest of the buffer is zero.
  int in_x = 0, in_y = 0, in_w = 0, in_h = 0;
  int buffer_x = 0, buffer_y = 0;
  // Output: buffer pixels starting at (buffer_x + out_offset_x, buffer_y + out_offset_y), out_w x
  // out_h of them, go to the image at (out_x, out_y).
  int out_offset_x = 0, out_offset_y = 0;
  int out_x = 0, out_y = 0, out_w = 0, out_h = 0;
};

struct TileLayout {
  int tile_width = 0, tile_height = 0;  // buffer size: the network's input size (multiples of 16)
  int overlap = 0;
  std::vector<Tile> tiles;              // row-major order
};

int tile_overlap(int receptive_field);
// max_tile_side: the largest buffer side allowed (rounded down to 16; at least 2 * overlap + 16
// when tiling is needed); 0 = no limit (one tile).
TileLayout make_tile_layout(int width, int height, int receptive_field, int max_tile_side);

}  // namespace vx::denoise

// OIDN's per-pixel input and output processing around the network, for one tile.
// Input:  colour * inputScale, NaN -> 0, clamp ([0, FLT_MAX] HDR, [0, 1] LDR), transfer forward;
//         albedo NaN -> 0, clamp [0, 1]; normal NaN -> 0, clamp [-1, 1], x * 0.5 + 0.5.
// Output: NaN -> 0, clamp at 0, transfer inverse, clamp to 1 for LDR, / inputScale.
#pragma once

#include "core/tensor.h"
#include "denoise/image_view.h"
#include "denoise/tiling.h"
#include "denoise/transfer.h"

namespace vx::denoise {

struct ProcessingParams {
  TransferKind transfer = TransferKind::pu;
  bool hdr = true;
  float input_scale = 1.0f;  // already resolved (autoexposure done)
  int input_channels = 9;    // 3 (colour), 6 (+albedo), 9 (+albedo, +normal)
};

// Fills `input` ([1, input_channels, tile_height, tile_width], f32, NCHW) for `tile`: image pixels
// at the tile's buffer position, zeros elsewhere. albedo / normal may be null when unused.
void process_input_tile(const ImageView& color, const ImageView* albedo, const ImageView* normal, const Tile& tile,
                        const ProcessingParams& params, Tensor& input);

// Writes the tile's owned output region from the network output ([1, 3, tile_height, tile_width]).
// 1-channel outputs get the mean of the three channels, 2-channel outputs the first two.
void process_output_tile(const Tensor& network_output, const Tile& tile, const ProcessingParams& params,
                         const ImageView& output);

}  // namespace vx::denoise

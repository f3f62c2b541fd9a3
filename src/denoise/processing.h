// OIDN's per-pixel input and output processing around the network, for one tile, in OIDN's order
// (devices/cpu/cpu_input_process.isph, cpu_output_process.isph).
// Input:  the main input (colour, or albedo / normal filtered alone): non-finite -> 0, * inputScale,
//         clamp to [snorm ? -1 : 0, hdr ? FLT_MAX : 1], snorm -> x * 0.5 + 0.5, transfer forward;
//         albedo beside the colour: non-finite -> 0, clamp [0, 1]; normal beside the colour:
//         non-finite -> 0, clamp [-1, 1], x * 0.5 + 0.5.
// Output: NaN -> 0, clamp at 0, transfer inverse, mean of the channels for a 1-channel output,
//         snorm -> max(x * 2 - 1, -1), clamp to 1 unless HDR, / inputScale.
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
  int input_channels = 9;    // 3 (main input), 6 (+albedo), 9 (+albedo, +normal)
  // The main input is signed, [-1, 1] (a normal image alone, a directional lightmap).
  bool snorm = false;
};

// Fills `network_input` ([1, input_channels, tile_height, tile_width], f32, NCHW) for `tile`: image
// pixels at the tile's buffer position, zeros elsewhere. `input` is the main input (OIDN's "input":
// the colour, else the auxiliary image filtered alone); albedo / normal are the auxiliary images
// beside the colour, null when unused.
void process_input_tile(const ImageView& input, const ImageView* albedo, const ImageView* normal, const Tile& tile,
                        const ProcessingParams& params, Tensor& network_input);

// Writes the tile's owned output region from the network output ([1, 3, tile_height, tile_width]).
// 1-channel outputs get the mean of the three channels, 2-channel outputs the first two.
void process_output_tile(const Tensor& network_output, const Tile& tile, const ProcessingParams& params,
                         const ImageView& output);

}  // namespace vx::denoise

// The three U-Nets of Open Image Denoise (small, base, large; docs/OIDN-FACTS.md), as data: every
// 3x3 convolution with its channel counts, resolution level and the pool / upsample+concat around
// it. A spec is detected from (and validated against) a TZA file, then turned into a plain ONNX-op
// Graph for the rest of the engine.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/graph.h"
#include "formats/tza.h"

namespace vx {

enum class UNetVariant { small, base, large };

// "small", "base", "large".
std::string_view unet_variant_name(UNetVariant variant);

// One 3x3 convolution (stride 1, pad 1, bias, ReLU after). Its weight tensor in the TZA file is
// `name + ".weight"` [out, in, 3, 3] (layout oihw) and its bias `name + ".bias"` [out] (layout x).
struct ConvLayerSpec {
  std::string name;       // "enc_conv0": also the node name in the graph
  int in_channels = 0;    // including the skip channels when concat_skip is set
  int out_channels = 0;
  int level = 0;          // resolution: 0 = full, each level halves height and width
  // When set, the conv reads concat(upsample2x_nearest(previous output), skip) where skip is the
  // value named here: "pool1".."pool3" or "input". skip_channels of the in_channels come from it.
  std::string concat_skip;
  int skip_channels = 0;
  // When set, a 2x2 max pool of that name follows the ReLU: "pool1".."pool4".
  std::string pool_after;

  std::string weight_name() const { return name + ".weight"; }
  std::string bias_name() const { return name + ".bias"; }
};

struct UNetSpec {
  UNetVariant variant = UNetVariant::base;
  int input_channels = 0;            // 3 (color), 6 (+albedo), 9 (+albedo, +normal)
  int output_channels = 3;
  std::vector<ConvLayerSpec> convs;  // in execution order
  int receptive_field = 0;           // in full-resolution pixels: 174 small/base, 202 large
  int alignment = 16;                // image sides are padded to multiples of this (4 pools)

  int64_t parameter_count() const;  // weights + biases
  int64_t macs_per_pixel() const;   // multiply-accumulates per full-resolution pixel
  // Tile overlap OIDN uses: round_up(receptive_field / 2, alignment): 96 small/base, 112 large.
  int tile_overlap() const;
};

// The expected architecture of a variant. input_channels must be 3, 6 or 9 (InvalidArgument).
UNetSpec make_unet_spec(UNetVariant variant, int input_channels);

// Detects the variant (large by `enc_conv1b.weight`, small vs base by the width of enc_conv2) and
// the input channels (from the first conv's weight), then validates the file tensor by tensor:
// every expected tensor present with its shape, layout and an f16/f32 dtype, nothing unexpected.
// Throws InvalidFile naming the first mismatch. Looks only at the table, allocates nothing big.
UNetSpec detect_unet_spec(const TzaFile& weights);

// The network as plain ONNX ops (see ops/fused_ops.h): input "input" [1, ic, H, W] f32, output
// "output" [1, 3, H, W] f32 (H and W multiples of spec.alignment). Conv weights and biases become
// f32 constants named as in the file. Validates `weights` against `spec` first.
Graph build_unet_graph(const UNetSpec& spec, const TzaFile& weights);

// Valid synthetic weights of a variant (He-uniform weights, small biases), reproducible from seed.
TzaFile make_random_unet_weights(UNetVariant variant, int input_channels, uint64_t seed,
                                 DType dtype = DType::f16);

}  // namespace vx

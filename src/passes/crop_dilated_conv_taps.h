// Crops the kernel of a dilated Conv to the taps that reach the input. At a large dilation on a
// small map (DeepLabV3's ASPP: rate 36 on 33 x 33 features at 520 x 520) the outer taps read only
// padding for every output position, so the convolution is a smaller one: here a 1x1. Needs the
// input's spatial extents (shape inference) and constant weights; the output is unchanged (the
// kept taps read the same positions, through pads reduced by the cropped taps' reach). Convolutions
// without dilation are left as they are: the U-Net's 3x3 layers must stay 3x3 on any map for the
// denoiser's kernels, and a map smaller than an undilated kernel is cheap anyway.
#pragma once
#include "core/graph.h"

namespace vx {

Graph crop_dilated_conv_taps(Graph graph);

}  // namespace vx

// The geometry of ConvTranspose with ONNX semantics: groups, kernel, strides, dilations,
// output_padding, pads (resolved from auto_pad or output_shape) and the output shape. Shared by the
// shape function (registered here), the reference kernel and the oneDNN kernel so they never
// disagree.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/attribute.h"
#include "core/shape.h"
#include "ops/window_geometry.h"

namespace vx {

// Per spatial axis a, input position i and kernel tap k land on output position
//   i * strides[a] + k * dilations[a] - pads_begin[a]   (kept when inside [0, output[a])).
// pads_end is what closes the relation
//   output = strides * (input - 1) + (kernel - 1) * dilations + 1 - pads_begin - pads_end,
// so it is negative where output_padding or a larger output_shape adds positions past the last tap.
struct ConvTransposeGeometry : WindowGeometry {
  std::vector<int64_t> output_padding;
  int64_t group = 1;
  Shape output_shape;  // [N, C_out = W[1] * group, output...]
};

// X [N, C_in, spatial...] and W [C_in, C_out / group, kernel...] (a kernel_shape attribute must
// agree with W). Throws InvalidArgument naming `what` when they or the attributes are inconsistent
// (ranks, groups, wrong lengths, non-positive strides or dilations, negative output_padding, a
// negative output extent), and Unsupported for an unknown auto_pad.
ConvTransposeGeometry conv_transpose_geometry(const Attributes& attrs, const Shape& x, const Shape& w,
                                              const std::string& what);

}  // namespace vx

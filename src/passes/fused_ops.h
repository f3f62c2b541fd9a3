// The ops that Volvox's own passes create (domain "vx"), shared by the passes, the CPU and Vulkan
// kernels and the tests. Everything else in a Graph is a plain ONNX op with ONNX semantics.
//
// The U-Net builder (denoise/unet_spec) emits plain ONNX ops:
//   Conv      inputs X, W, B; kernel_shape [3,3], pads [1,1,1,1], strides [1,1]
//   Relu
//   MaxPool   kernel_shape [2,2], strides [2,2]
//   Resize    inputs X, "" (kNoValue), scales [1,1,2,2]; mode "nearest",
//             coordinate_transformation_mode "asymmetric", nearest_mode "floor"  (= 2x nearest upsample)
//   Concat    axis 1
// and the fusion passes turn them into:
//
//   vx.FusedConv  (op name kFusedConv)
//     inputs:  X, W, B                    when upsample_concat = 0
//              X_low, X_skip, W, B        when upsample_concat = 1: the conv reads
//                                         concat(upsample2x_nearest(X_low), X_skip) along channels
//     attrs:   kernel_shape, pads, strides, dilations, group  (as the Conv it came from)
//              relu             int 0/1   ReLU after bias
//              pool             int 0/1   2x2 max pool, stride 2, after the ReLU
//              upsample_concat  int 0/1   see inputs
//     output:  Y (NCHW; H/2 x W/2 when pool = 1)
#pragma once

namespace vx {

inline constexpr const char* kFusedConv = "vx.FusedConv";

}  // namespace vx

// The CPU reference implementations as plain functions, so that fused kernels, fast-path fallbacks
// and tests can compose them. Simple loops over NCHW float32 tensors; convolutions accumulate in
// double. Every function checks its arguments and throws vx::Error rather than read out of bounds.
#pragma once
#include <string>
#include <vector>

#include "core/tensor.h"
#include "core/thread_pool.h"
#include "ops/matmul_shape.h"
#include "ops/window_geometry.h"

namespace vx::cpu::ref {

// Y = conv(X, W) + B with ONNX semantics. X [N, C, s...], W [M, C/group, k...], B [M] or null,
// 1 to 3 spatial axes; Y must already have the shape [N, M, g.output...].
void conv(const Tensor& x, const Tensor& w, const Tensor* bias, const WindowGeometry& g, int64_t group, Tensor& y,
          ThreadPool& pool);
// The geometry of a Conv-like node for input X and weights W (ONNX attributes).
WindowGeometry conv_geometry(const Attributes& attrs, const Shape& x, const Shape& w, const std::string& what);

// Y = max(X, 0); Y may be X.
void relu(const Tensor& x, Tensor& y);

// Max pooling over 1 to 3 spatial axes (padding never wins). `indices`, when given, receives the
// flat NCHW index of each maximum (ONNX MaxPool's second output, storage_order 0).
void max_pool(const Tensor& x, const WindowGeometry& g, Tensor& y, Tensor* indices = nullptr);

// GlobalAveragePool: the mean of each (n, c) plane of x (rank >= 3) into y, shaped N x C x 1 x ...
void global_average_pool(const Tensor& x, Tensor& y);

// Nearest-neighbour resize of any rank to y's shape; `scales` per axis (as ONNX defines them for
// the coordinate transformation).
void resize_nearest(const Tensor& x, const std::vector<double>& scales, const std::string& coordinate_mode,
                    const std::string& nearest_mode, Tensor& y);

// The batched matrix product (NumPy matmul broadcasting) of two row-major double buffers of the
// shapes `s` was made from, accumulated in double.
std::vector<double> batched_matmul(const MatMulShape& s, const std::vector<double>& a, const std::vector<double>& b);

// Concatenation of same-dtype tensors along `axis` (already normalised to [0, rank)).
void concat(const std::vector<const Tensor*>& xs, int64_t axis, Tensor& y);

}  // namespace vx::cpu::ref

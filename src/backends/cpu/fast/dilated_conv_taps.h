// A dilated convolution as one 1x1 convolution per kernel tap. oneDNN 2.6 has no JIT kernel for
// dilated convolutions on AVX2 (its im2col + sgemm path: ~50 ms for DeepLabV3's 960 -> 256 ASPP
// layers at 33x33, 2 cores), but fast 1x1 kernels: each tap's input, shifted by the tap's offset and
// zero where the tap reads padding, is gathered into NHWC and multiplied by the tap's weights, the
// taps summed through oneDNN's sum post-op. Taps that read only padding for every output pixel
// (dilation 36 on a 33x33 map: all but the centre) are skipped; a tap that reads the image for some
// output rows only is computed on those rows (one image: they are contiguous in NHWC).
#pragma once
#include <dnnl.hpp>
#include <vector>

#include "core/tensor.h"
#include "core/thread_pool.h"

namespace vx::cpu::fast {

// One 2-D convolution, group 1: input [n, c, h, w], output [n, m, oh, ow], kernel kh x kw.
struct TapConvGeometry {
  int64_t n = 0, c = 0, h = 0, w = 0, m = 0, oh = 0, ow = 0;
  int64_t kh = 0, kw = 0, stride_y = 1, stride_x = 1, dilation_y = 1, dilation_x = 1, pad_top = 0, pad_left = 0;
};

class DilatedConvTaps {
 public:
  // weights: OIHW [m, c, kh, kw]; bias: [m] or undefined; eltwise: the post-ops after the sum of
  // the taps (ReLU, the node's activation chain). Throws dnnl::error where oneDNN cannot build it.
  DilatedConvTaps(const TapConvGeometry& g, const Tensor& weights, const Tensor& bias, const dnnl::post_ops& eltwise);

  // src and dst in NHWC; gathered: scratch of gather_bytes().
  void run(const float* src, float* dst, float* gathered, ThreadPool& pool) const;

  size_t gather_bytes() const { return size_t(g_.n * g_.oh * g_.ow * g_.c) * sizeof(float); }
  size_t live_taps() const { return taps_.size(); }

 private:
  struct Tap {
    int64_t ky, kx;
    int64_t oy0, oy1, ox0, ox1;  // the output pixels whose input pixel for this tap is inside the image
    int64_t row0 = 0, rows = 0;  // the output rows it computes (all, for the first and the last tap)
    dnnl::convolution_forward primitive;
    dnnl::memory::desc src_md, dst_md;
    dnnl::memory weights;  // in the layout its primitive chose
  };
  void gather(const Tap& tap, const float* src, float* gathered, ThreadPool& pool) const;

  TapConvGeometry g_;
  std::vector<Tap> taps_;  // the first adds the bias, the last applies the activations
  Tensor bias_;
  dnnl::memory bias_mem_;
};

}  // namespace vx::cpu::fast

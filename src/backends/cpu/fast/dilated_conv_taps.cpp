#include "backends/cpu/fast/dilated_conv_taps.h"

#include <algorithm>
#include <cstring>

#include "backends/cpu/fast/onednn_common.h"
#include "core/error.h"
#include "ops/window_geometry.h"

namespace vx::cpu::fast {

DilatedConvTaps::DilatedConvTaps(const TapConvGeometry& g, const Tensor& weights, const Tensor& bias,
                                 const dnnl::post_ops& eltwise)
    : g_(g), bias_(bias) {
  for (int64_t ky = 0; ky < g.kh; ++ky)
    for (int64_t kx = 0; kx < g.kw; ++kx) {
      const auto [oy0, oy1] = outputs_inside_input(g.h, g.oh, g.stride_y, g.pad_top, ky * g.dilation_y);
      const auto [ox0, ox1] = outputs_inside_input(g.w, g.ow, g.stride_x, g.pad_left, kx * g.dilation_x);
      if (oy0 >= oy1 || ox0 >= ox1) continue;
      Tap& tap = taps_.emplace_back();
      tap.ky = ky;
      tap.kx = kx;
      tap.oy0 = oy0;
      tap.oy1 = oy1;
      tap.ox0 = ox0;
      tap.ox1 = ox1;
    }
  VX_CHECK(!taps_.empty(), Internal, "a convolution whose every tap reads padding");
  // The first and the last tap write every output row (the first initialises them, the last
  // applies the activations): the two with the most rows to compute anyway.
  std::stable_sort(taps_.begin(), taps_.end(), [](const Tap& a, const Tap& b) { return a.oy1 - a.oy0 > b.oy1 - b.oy0; });
  if (taps_.size() > 2) std::rotate(taps_.begin() + 1, taps_.begin() + 2, taps_.end());

  auto& engine = onednn_engine();
  const memory::desc bias_md({g.m}, f32, memory::format_tag::x);
  const memory::desc w_any({g.m, g.c, 1, 1}, f32, memory::format_tag::any);
  dnnl::stream stream(engine);
  for (size_t i = 0; i < taps_.size(); ++i) {
    Tap& t = taps_[i];
    const bool first = i == 0, last = i + 1 == taps_.size();
    t.row0 = first || last || g.n > 1 ? 0 : t.oy0;
    t.rows = first || last || g.n > 1 ? g.oh : t.oy1 - t.oy0;
    t.src_md = memory::desc({g.n, g.c, t.rows, g.ow}, f32, memory::format_tag::nhwc);
    t.dst_md = memory::desc({g.n, g.m, t.rows, g.ow}, f32, memory::format_tag::nhwc);
    dnnl::post_ops ops;
    if (!first) ops.append_sum(1.0f);
    if (last)
      for (int k = 0; k < eltwise.len(); ++k) {
        float scale, alpha, beta;
        dnnl::algorithm alg;
        eltwise.get_params_eltwise(k, scale, alg, alpha, beta);
        ops.append_eltwise(scale, alg, alpha, beta);
      }
    dnnl::primitive_attr attr = onednn_attr();
    attr.set_post_ops(ops);
    const auto pd = pointwise_conv(t.src_md, w_any, first && bias.defined() ? &bias_md : nullptr, t.dst_md, attr);
    reserve_thread_scratchpad(pd.scratchpad_desc().get_size());
    t.primitive = dnnl::convolution_forward(pd);
    if (first && bias.defined()) bias_mem_ = memory(pd.bias_desc(), engine, const_cast<void*>(bias.raw()));
    // The tap's [m, c] weights: a strided view of OIHW, reordered once.
    const int64_t k = g.kh * g.kw;
    const memory::desc view({g.m, g.c, 1, 1}, f32, memory::dims{g.c * k, k, 1, 1});
    memory from(view, engine, const_cast<float*>(weights.data<float>() + t.ky * g.kw + t.kx));
    t.weights = memory(pd.weights_desc(), engine);
    dnnl::reorder(from, t.weights).execute(stream, from, t.weights);
  }
  stream.wait();
}

void DilatedConvTaps::gather(const Tap& t, const float* src, float* gathered, ThreadPool& pool) const {
  const int64_t c = g_.c;
  pool.parallel_for(g_.n * t.rows, [&](int64_t r0, int64_t r1) {
    for (int64_t r = r0; r < r1; ++r) {
      const int64_t b = r / t.rows, oy = t.row0 + r % t.rows;
      float* row = gathered + r * g_.ow * c;
      if (oy < t.oy0 || oy >= t.oy1) {
        std::memset(row, 0, size_t(g_.ow * c) * sizeof(float));
        continue;
      }
      const int64_t iy = oy * g_.stride_y - g_.pad_top + t.ky * g_.dilation_y;
      const float* in_row = src + (b * g_.h + iy) * g_.w * c;
      std::memset(row, 0, size_t(t.ox0 * c) * sizeof(float));
      std::memset(row + t.ox1 * c, 0, size_t((g_.ow - t.ox1) * c) * sizeof(float));
      const int64_t ix0 = t.ox0 * g_.stride_x - g_.pad_left + t.kx * g_.dilation_x;
      if (g_.stride_x == 1) {
        std::memcpy(row + t.ox0 * c, in_row + ix0 * c, size_t((t.ox1 - t.ox0) * c) * sizeof(float));
      } else {
        for (int64_t ox = t.ox0; ox < t.ox1; ++ox)
          std::memcpy(row + ox * c, in_row + (ix0 + (ox - t.ox0) * g_.stride_x) * c, size_t(c) * sizeof(float));
      }
    }
  }, 1);
}

void DilatedConvTaps::run(const float* src, float* dst, float* gathered, ThreadPool& pool) const {
  auto& engine = onednn_engine();
  dnnl::stream stream(engine);
  for (size_t i = 0; i < taps_.size(); ++i) {
    const Tap& t = taps_[i];
    // A tap that reads exactly the source pixel of each output (stride 1, its offset cancelling the
    // padding, no border, all rows) needs no gather.
    const bool identity = g_.stride_y == 1 && g_.stride_x == 1 && g_.h == g_.oh && g_.w == g_.ow && t.rows == g_.oh &&
                          t.ky * g_.dilation_y == g_.pad_top && t.kx * g_.dilation_x == g_.pad_left;
    if (!identity) gather(t, src, gathered, pool);
    memory src_mem(t.src_md, engine, const_cast<float*>(identity ? src : gathered));
    memory dst_mem(t.dst_md, engine, dst + t.row0 * g_.ow * g_.m);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, t.weights}, {DNNL_ARG_DST, dst_mem}};
    if (i == 0 && bias_.defined()) args[DNNL_ARG_BIAS] = bias_mem_;
    execute_primitive(t.primitive, stream, std::move(args));
    stream.wait();  // the next gather reuses the buffer
  }
}

}  // namespace vx::cpu::fast

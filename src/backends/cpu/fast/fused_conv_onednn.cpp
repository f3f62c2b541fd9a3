#include "backends/cpu/fast/fused_conv_onednn.h"

#include <cstring>
#include <dnnl.hpp>
#include <algorithm>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/dilated_conv_taps.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/eltwise_post_op_algorithms.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"
#include "ops/window_geometry.h"
#include "plan/arena_planner.h"

namespace vx::cpu::fast {

namespace {

using Tag = memory::format_tag;

// Element addressing of an NCHW-shaped activation stored in one of the layouts: the offset of
// (channel c, pixel p) in image b, and how many channels from c on are contiguous.
struct LayoutView {
  Layout layout;
  int64_t channels, pixels;
  int64_t offset(int64_t b, int64_t c, int64_t p) const {
    switch (layout) {
      case Layout::nchw: return (b * channels + c) * pixels + p;
      case Layout::nhwc: return (b * pixels + p) * channels + c;
      case Layout::nchw16c:
      case Layout::nchw8c: {
        const int64_t block = channel_block(layout);
        return ((b * (channels / block) + c / block) * pixels + p) * block + c % block;
      }
    }
    return 0;
  }
  int64_t run(int64_t c) const {
    switch (layout) {
      case Layout::nchw: return 1;
      case Layout::nhwc: return channels - c;
      case Layout::nchw16c:
      case Layout::nchw8c: return channel_block(layout) - c % channel_block(layout);
    }
    return 1;
  }
};

// Everything about one node that does not change between runs.
struct FusedConvShape {
  bool upsample_concat = false, relu = false, pool = false;
  bool residual = false;  // vx.FusedConvResidual: R (in layout in[1]) is added before the ReLU
  bool one_d = false;     // a 1-D convolution ([N, C, W]: audio front ends), run as 2-D with H = 1
  std::vector<PostOp> post_ops;  // after the ReLU, as oneDNN eltwise post-ops
  std::vector<EltwiseAlgorithm> algorithms;  // one per post-op
  Layout in[2] = {Layout::nchw, Layout::nchw};
  Layout out = Layout::nchw;
  Layout work = Layout::nhwc;  // what the convolution writes and, but for a stem, reads
  Layout src = Layout::nhwc;   // what it reads: work, or NCHW for a stem (plain_stem)
  bool winograd = false;       // worth trying (see onednn_working_layout)
  bool dilated = false;        // group 1, a dilation > 1, nothing fused around: DilatedConvTaps may run it
  int64_t n = 0, c_low = 0, c_skip = 0, c = 0, h = 0, w = 0;  // conv input (after upsample + concat)
  int64_t c_conv = 0;  // the convolution's input channels: c, or c padded with zeros to whole blocks
  int64_t m = 0, conv_h = 0, conv_w = 0;                        // conv output
  int64_t group = 1;  // grouped / depthwise: oneDNN's goihw weights
  int64_t out_h = 0, out_w = 0;                                 // node output (after pool)
  WindowGeometry g;

  bool packs_source() const { return upsample_concat || in[0] != src; }
  size_t src_pack_bytes() const { return packs_source() ? size_t(n * c_conv * h * w) * sizeof(float) : 0; }
  size_t conv_dst_bytes() const { return pool || out != work ? size_t(n * m * conv_h * conv_w) * sizeof(float) : 0; }
  // The pooled result before its reorder into the output's layout.
  size_t pool_dst_bytes() const { return pool && out != work ? size_t(n * m * out_h * out_w) * sizeof(float) : 0; }
  // An activation of this node as the graph holds it: [N, C, W] for a 1-D convolution.
  Shape activation(int64_t channels, int64_t height, int64_t width) const {
    return one_d ? Shape({n, channels, width}) : Shape({n, channels, height, width});
  }
  // The shifted source of one tap (DilatedConvTaps), reserved for every dilated convolution.
  size_t tap_gather_bytes() const { return dilated ? size_t(n * c * conv_h * conv_w) * sizeof(float) : 0; }
  size_t scratch_bytes() const {
    return plan::align_up(src_pack_bytes()) + plan::align_up(conv_dst_bytes()) + plan::align_up(pool_dst_bytes()) +
           plan::align_up(tap_gather_bytes());
  }
};

// Appends `op` as oneDNN's eltwise algorithm `as` (ops/eltwise_post_op_algorithms.h).
void append_eltwise(dnnl::post_ops& to, EltwiseAlgorithm as, const PostOp& op) {
  using dnnl::algorithm;
  switch (as) {
    case EltwiseAlgorithm::linear: return to.append_eltwise(1.0f, algorithm::eltwise_linear, op.alpha, op.beta);
    case EltwiseAlgorithm::pow: return to.append_eltwise(1.0f, algorithm::eltwise_pow, op.alpha, 1.0f);  // alpha * x
    case EltwiseAlgorithm::clip_v2: return to.append_eltwise(1.0f, algorithm::eltwise_clip_v2, op.alpha, op.beta);
    case EltwiseAlgorithm::clip: return to.append_eltwise(1.0f, algorithm::eltwise_clip, op.alpha, op.beta);
    case EltwiseAlgorithm::relu: return to.append_eltwise(1.0f, algorithm::eltwise_relu, op.alpha, 0.0f);
    case EltwiseAlgorithm::hard_swish: return to.append_eltwise(1.0f, algorithm::eltwise_hardswish, 0.0f, 0.0f);
    case EltwiseAlgorithm::logistic: return to.append_eltwise(1.0f, algorithm::eltwise_logistic, 0.0f, 0.0f);
    case EltwiseAlgorithm::tanh: return to.append_eltwise(1.0f, algorithm::eltwise_tanh, 0.0f, 0.0f);
    case EltwiseAlgorithm::log: return to.append_eltwise(1.0f, algorithm::eltwise_log, 0.0f, 0.0f);
    case EltwiseAlgorithm::exp: return to.append_eltwise(1.0f, algorithm::eltwise_exp, 0.0f, 0.0f);
    case EltwiseAlgorithm::round: return to.append_eltwise(1.0f, algorithm::eltwise_round, 0.0f, 0.0f);  // ties to even
  }
}

// A 1-D convolution's window attributes for the same convolution in 2-D with a unit height.
Attributes with_unit_height(const Attributes& attrs) {
  Attributes a = attrs;
  auto prepend = [&](const char* name, int64_t unit) {
    if (!attrs.has(name)) return;
    std::vector<int64_t> v = attrs.get_ints(name);
    v.insert(v.begin(), unit);
    a.set(name, v);
  };
  prepend("kernel_shape", 1);
  prepend("strides", 1);
  prepend("dilations", 1);
  if (attrs.has("pads")) {  // [begin, end] -> [0, begin, 0, end]
    const std::vector<int64_t> p = attrs.get_ints("pads");
    VX_CHECK(p.size() == 2, InvalidArgument, "a 1-D convolution needs 2 pads, got ", p.size());
    a.set("pads", std::vector<int64_t>{0, p[0], 0, p[1]});
  }
  return a;
}

constexpr int64_t kWinogradMinPixels = 64 * 64;  // above ResNet's 56x56, below a 1080p U-Net's deepest 120x67

FusedConvShape fused_conv_shape(const Node& node, const Graph& graph) {
  const std::string what = node.op + " '" + node.name + "'";
  FusedConvShape s;
  s.residual = node.op == kFusedConvResidual;
  s.upsample_concat = node.attrs.get_int("upsample_concat", 0) != 0;
  VX_CHECK(!s.residual || (!s.upsample_concat && node.attrs.get_int("pool", 0) == 0 && node.input(3) != kNoValue),
           Unsupported, what, ": a residual without pool or upsample_concat");
  VX_CHECK(node.attrs.get_int("global_mean", 0) == 0, Unsupported, what, ": global_mean (a Vulkan fusion)");
  s.relu = node.attrs.get_int("relu", 0) != 0;
  s.pool = node.attrs.get_int("pool", 0) != 0;
  s.post_ops = read_post_ops(node.attrs, what);
  VX_CHECK(s.post_ops.empty() || !s.pool, Unsupported, what, ": post-ops with a pool");
  const auto algorithms = eltwise_post_op_algorithms(s.relu, s.post_ops);
  VX_CHECK(algorithms.has_value(), Unsupported, what,
           ": post-ops that repeat an eltwise algorithm with other parameters (oneDNN 2.6 would apply the first's)");
  s.algorithms = *algorithms;
  const std::vector<int64_t> in_layouts = node.attrs.get_ints(kLayoutInputsAttr);
  for (size_t i = 0; i < in_layouts.size() && i < 2; ++i) s.in[i] = Layout(in_layouts[i]);
  s.out = Layout(node.attrs.get_int(kLayoutOutputAttr, 0));
  const Shape& x = graph.value(node.input(0)).shape;
  const size_t w_at = s.upsample_concat ? 2 : 1;
  const Shape& wshape = graph.value(node.input(w_at)).shape;
  s.one_d = x.rank() == 3 && wshape.rank() == 3 && !s.upsample_concat && !s.pool;
  VX_CHECK((s.one_d || (x.rank() == 4 && wshape.rank() == 4)) && x.is_known() && wshape.is_known(), Unsupported, what,
           ": needs known 4-D shapes (or 3-D for a 1-D convolution)");
  s.n = x[0];
  if (s.upsample_concat) {
    const Shape& skip = graph.value(node.input(1)).shape;
    VX_CHECK(skip.rank() == 4 && skip.is_known() && skip[0] == x[0] && skip[2] == 2 * x[2] && skip[3] == 2 * x[3],
             InvalidArgument, what, ": X_low ", x.str(), " and X_skip ", skip.str(), " do not fit a 2x upsample");
    s.c_low = x[1];
    s.c_skip = skip[1];
    s.h = skip[2];
    s.w = skip[3];
  } else {
    s.c_low = x[1];
    s.h = s.one_d ? 1 : x[2];
    s.w = s.one_d ? x[2] : x[3];
  }
  s.c = s.c_low + s.c_skip;
  s.m = wshape[0];
  s.group = node.attrs.get_int("group", 1);
  VX_CHECK(s.group >= 1 && wshape[1] * s.group == s.c && s.m % s.group == 0 && (s.group == 1 || !s.upsample_concat),
           Unsupported, what, ": weights ", wshape.str(), " do not fit ", s.c, " input channels in ", s.group, " groups");
  if (s.one_d) {
    s.g = window_geometry(with_unit_height(node.attrs), {1, s.w}, {1, wshape[2]}, false, what);
  } else {
    s.g = window_geometry(node.attrs, {s.h, s.w}, {wshape[2], wshape[3]}, false, what);
  }
  s.conv_h = s.g.output[0];
  s.conv_w = s.g.output[1];
  s.out_h = s.pool ? s.conv_h / 2 : s.conv_h;
  s.out_w = s.pool ? s.conv_w / 2 : s.conv_w;
  VX_CHECK(s.out_h > 0 && s.out_w > 0, InvalidArgument, what, ": output too small to pool");
  auto all = [](const std::vector<int64_t>& v, int64_t x) {
    for (int64_t e : v)
      if (e != x) return false;
    return true;
  };
  // The blocked layouts need the input channels in whole blocks (16: Winograd, 8: nChw8c). A packed
  // (upsample_concat, so group 1) source can be padded with zero channels (and the weights with
  // zeros) when that adds little work: 73 -> 80 in the last decoder level of the U-Nets.
  auto padded_to = [&s](int64_t block) { return (s.c + block - 1) / block * block; };
  auto paddable_to = [&](int64_t block) {
    return s.c % block == 0 || (s.upsample_concat && padded_to(block) * 8 <= s.c * 9);
  };
  // Only on large images (the denoiser's), or where the source is packed anyway (upsample_concat):
  // on ResNet-sized maps (56x56 and less) Winograd gains little and its blocked layout costs a
  // reorder on each side, between NHWC 1x1 convolutions (ResNet-50: 21 reorders per run -> 4).
  const bool large = s.h * s.w >= kWinogradMinPixels || s.upsample_concat;
  s.winograd = large && onednn_has_winograd() && s.group == 1 && s.g.kernel == std::vector<int64_t>{3, 3} && all(s.g.strides, 1) &&
               all(s.g.dilations, 1) && all(s.g.pads_begin, 1) && all(s.g.pads_end, 1) && paddable_to(16) && s.m % 16 == 0;
  s.c_conv = s.winograd ? padded_to(16) : s.c;
  s.dilated = s.group == 1 && !s.upsample_concat && !s.pool && !s.residual &&
              std::any_of(s.g.dilations.begin(), s.g.dilations.end(), [](int64_t d) { return d > 1; });
  // nChw8c pads a packed source the same way (the U-Net's largest layer: 1.3x faster than on NHWC
  // at 1080p).
  const bool depthwise = s.group == s.c && s.group == s.m;
  const bool blocked8 = onednn_prefers_blocked8() && !s.winograd && !s.dilated && paddable_to(8) && s.m % 8 == 0 &&
                        (s.group == 1 || depthwise);
  if (blocked8) s.c_conv = padded_to(8);
  // A stem (ResNet's 7x7 from 3 channels) reads plain NCHW and writes nChw8c, as oneDNN's AVX2
  // kernels do for first layers, so that the layers after it start blocked (ResNet-50: the stem
  // 1.97 -> 1.62 ms at 2 threads, and no reorders between its max pool and the first block).
  const bool plain_stem = onednn_prefers_blocked8() && onednn_takes_plain_stems() && !s.upsample_concat && !s.dilated &&
                          s.group == 1 && s.c < 8 && s.m % 8 == 0;
  s.work = s.winograd ? Layout::nchw16c : blocked8 || plain_stem ? Layout::nchw8c : Layout::nhwc;
  s.src = plain_stem ? Layout::nchw : s.work;
  return s;
}

class OneDnnFusedConv {
 public:
  OneDnnFusedConv(const Node& node, const Graph& graph) : s_(fused_conv_shape(node, graph)) {
    auto& engine = onednn_engine();
    const size_t w_at = s_.upsample_concat ? 2 : 1;
    weights_source_ = graph.value(node.input(w_at)).constant;
    if (node.input(w_at + 1) != kNoValue) bias_ = graph.value(node.input(w_at + 1)).constant;

    const memory::dims src_dims = {s_.n, s_.c_conv, s_.h, s_.w};
    const memory::dims dst_dims = {s_.n, s_.m, s_.conv_h, s_.conv_w};
    const memory::dims out_dims = {s_.n, s_.m, s_.out_h, s_.out_w};
    const memory::dims w_dims =
        s_.group == 1 ? memory::dims{s_.m, s_.c_conv, s_.g.kernel[0], s_.g.kernel[1]}
                      : memory::dims{s_.group, s_.m / s_.group, s_.c / s_.group, s_.g.kernel[0], s_.g.kernel[1]};
    if (s_.c_conv != s_.c) weights_source_ = pad_input_channels(weights_source_, s_.c_conv);
    src_md_ = memory::desc(src_dims, f32, onednn_tag(s_.src));
    conv_dst_md_ = memory::desc(dst_dims, f32, onednn_tag(s_.work));
    pool_dst_md_ = memory::desc(out_dims, f32, onednn_tag(s_.work));
    out_md_ = memory::desc(out_dims, f32, onednn_tag(s_.out));

    dnnl::primitive_attr attr = onednn_attr();
    dnnl::post_ops ops;
    // R in the working layout is read by a binary-add post-op; in another layout, or marked in place
    // (cpu_layout.h), it is in dst when the convolution starts (reordered or copied there unless
    // the plan put dst in R's buffer) and added by a sum post-op, which oneDNN's brgemm 1x1
    // kernels take and a binary add not (ResNet-50, 2 threads, AVX-512: 23.5 -> 22.7 ms).
    if (s_.residual) residual_md_ = memory::desc(dst_dims, f32, onednn_tag(s_.in[1]));
    const bool in_place = node.attrs.get_int(kResidualInPlaceAttr, 0) != 0 && s_.out == s_.work;
    residual_binary_ = s_.residual && s_.in[1] == s_.work && !in_place;
    if (residual_binary_)
      ops.append_binary(dnnl::algorithm::binary_add, residual_md_);
    else if (s_.residual)
      ops.append_sum(1.0f);  // dst holds R when the convolution starts
    // The activations after the sum: the ReLU, then the node's chain.
    auto append_activations = [&](dnnl::post_ops& to) {
      if (s_.relu) to.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      for (size_t i = 0; i < s_.post_ops.size(); ++i) append_eltwise(to, s_.algorithms[i], s_.post_ops[i]);
    };
    append_activations(ops);
    if (s_.residual || s_.relu || !s_.post_ops.empty()) attr.set_post_ops(ops);
    // Winograd when the layouts allow it and oneDNN has it for this shape and CPU; else direct.
    std::optional<dnnl::convolution_forward::primitive_desc> pd;
    if (s_.winograd) {
      try {
        pd = conv_primitive_desc(dnnl::algorithm::convolution_winograd, w_dims, attr);
      } catch (const dnnl::error&) {
      }
    }
    if (!pd) pd = conv_primitive_desc(dnnl::algorithm::convolution_direct, w_dims, attr);
    // oneDNN without a JIT kernel for a dilated convolution (AVX2: im2col + sgemm) is slower than
    // one 1x1 convolution per tap.
    const std::string impl = pd->impl_info_str();
    if (s_.dilated && s_.work == Layout::nhwc && (impl.find("gemm") != std::string::npos || impl.find("ref") != std::string::npos)) {
      dnnl::post_ops eltwise;
      append_activations(eltwise);
      TapConvGeometry tg;
      tg.n = s_.n, tg.c = s_.c, tg.h = s_.h, tg.w = s_.w, tg.m = s_.m, tg.oh = s_.conv_h, tg.ow = s_.conv_w;
      tg.kh = s_.g.kernel[0], tg.kw = s_.g.kernel[1], tg.stride_y = s_.g.strides[0], tg.stride_x = s_.g.strides[1];
      tg.dilation_y = s_.g.dilations[0], tg.dilation_x = s_.g.dilations[1];
      tg.pad_top = s_.g.pads_begin[0], tg.pad_left = s_.g.pads_begin[1];
      taps_ = std::make_unique<DilatedConvTaps>(tg, weights_source_, bias_, eltwise);
    }
    if (!taps_) {  // the taps hold their own primitives and weights
      conv_ = dnnl::convolution_forward(*pd);  // ONEDNN_VERBOSE=1 shows which implementation ran
      reserve_thread_scratchpad(pd->scratchpad_desc().get_size());
      // Weights: reordered once from OIHW into the layout the primitive chose.
      memory user_w({w_dims, f32, s_.group == 1 ? Tag::oihw : Tag::goihw}, engine,
                    const_cast<void*>(weights_source_.raw()));
      weights_ = memory(pd->weights_desc(), engine);
      dnnl::stream stream(engine);
      dnnl::reorder(user_w, weights_).execute(stream, user_w, weights_);
      stream.wait();
      if (bias_.defined()) bias_mem_ = memory(pd->bias_desc(), engine, const_cast<void*>(bias_.raw()));
    }

    if (s_.pool) {
      using Pool = dnnl::pooling_forward;
      Pool::desc pdesc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, conv_dst_md_, pool_dst_md_,
                       {2, 2}, {2, 2}, {0, 0}, {0, 0});
      pool_ = Pool(Pool::primitive_desc(pdesc, onednn_attr(), engine));
    }
    if (s_.out != s_.work)  // the last result (conv or pool) into the output's layout
      to_output_ = dnnl::reorder(memory(pool_dst_md_, engine, nullptr), memory(out_md_, engine, nullptr));
    if (!s_.upsample_concat && s_.in[0] != s_.src) {
      in_md_ = memory::desc(src_dims, f32, onednn_tag(s_.in[0]));
      to_source_ = dnnl::reorder(memory(in_md_, engine, nullptr), memory(src_md_, engine, nullptr));
    }
    if (s_.residual && !residual_binary_)
      residual_to_dst_ = dnnl::reorder(memory(residual_md_, engine, nullptr), memory(conv_dst_md_, engine, nullptr));
  }

  void run(KernelContext& ctx) {
    auto& engine = onednn_engine();
    set_onednn_threads(ctx.pool().size());
    dnnl::stream stream(engine);
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == s_.activation(s_.upsample_concat ? s_.c_low : s_.c, s_.upsample_concat ? s_.h / 2 : s_.h,
                                        s_.upsample_concat ? s_.w / 2 : s_.w),
             InvalidArgument, "input ", x.shape().str(), " differs from the planned shape");
    VX_CHECK(!s_.upsample_concat || ctx.input(1).shape() == Shape({s_.n, s_.c_skip, s_.h, s_.w}), InvalidArgument,
             "X_skip ", ctx.input(1).shape().str(), " differs from the planned shape");
    char* scratch = static_cast<char*>(ctx.scratch(s_.scratch_bytes()));
    float* packed = reinterpret_cast<float*>(scratch);
    float* conv_out = reinterpret_cast<float*>(scratch + plan::align_up(s_.src_pack_bytes()));
    float* pool_out = reinterpret_cast<float*>(scratch + plan::align_up(s_.src_pack_bytes()) +
                                               plan::align_up(s_.conv_dst_bytes()));
    Tensor& y = ctx.output(0, DType::f32, s_.activation(s_.m, s_.out_h, s_.out_w));

    // The convolution's source.
    const float* src = x.data<float>();
    if (s_.upsample_concat) {
      pack_upsample_concat(x, ctx.input(1), packed, ctx.pool());
      src = packed;
    } else if (s_.in[0] != s_.src) {
      memory from(in_md_, engine, const_cast<float*>(src)), to(src_md_, engine, packed);
      to_source_.execute(stream, from, to);
      src = packed;
    }
    // Convolution (+ bias + ReLU).
    float* dst = s_.pool || s_.out != s_.work ? conv_out : y.data<float>();
    memory src_mem(src_md_, engine, const_cast<float*>(src)), dst_mem(conv_dst_md_, engine, dst);
    if (s_.residual) {  // R: a binary post-op's operand, or reordered into dst for the sum post-op
      const Tensor& r = ctx.input(3);
      VX_CHECK(r.shape() == s_.activation(s_.m, s_.conv_h, s_.conv_w), InvalidArgument, "residual ", r.shape().str(),
               " differs from the planned shape");
      if (!residual_binary_ && r.raw() != dst) {
        memory from(residual_md_, engine, const_cast<void*>(r.raw()));
        residual_to_dst_.execute(stream, from, dst_mem);
      }
    }
    if (taps_) {
      float* gathered = reinterpret_cast<float*>(scratch + plan::align_up(s_.src_pack_bytes()) +
                                                 plan::align_up(s_.conv_dst_bytes()) + plan::align_up(s_.pool_dst_bytes()));
      taps_->run(src, dst, gathered, ctx.pool());
      if (s_.out != s_.work) {
        memory out_mem(out_md_, engine, y.data<float>());
        to_output_.execute(stream, dst_mem, out_mem);
      }
      stream.wait();
      return;
    }
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_mem}};
    if (residual_binary_)
      args[DNNL_ARG_ATTR_MULTIPLE_POST_OP(0) | DNNL_ARG_SRC_1] = memory(residual_md_, engine, const_cast<void*>(ctx.input(3).raw()));
    if (bias_.defined()) args[DNNL_ARG_BIAS] = bias_mem_;
    execute_primitive(conv_, stream, std::move(args));
    // Pool, then the layout change into the output's layout.
    memory result = dst_mem;
    if (s_.pool) {
      result = memory(pool_dst_md_, engine, s_.out != s_.work ? pool_out : y.data<float>());
      execute_primitive(pool_, stream, {{DNNL_ARG_SRC, dst_mem}, {DNNL_ARG_DST, result}});
    }
    if (s_.out != s_.work) {
      memory out_mem(out_md_, engine, y.data<float>());
      to_output_.execute(stream, result, out_mem);
    }
    stream.wait();
  }

 private:
  dnnl::convolution_forward::primitive_desc conv_primitive_desc(dnnl::algorithm algorithm, const memory::dims& w_dims,
                                                                const dnnl::primitive_attr& attr) const {
    using Conv = dnnl::convolution_forward;
    const memory::desc w_any(w_dims, f32, Tag::any);
    const memory::dims strides = {s_.g.strides[0], s_.g.strides[1]};
    const memory::dims dilations = {s_.g.dilations[0] - 1, s_.g.dilations[1] - 1};  // oneDNN counts gaps
    const memory::dims pad_l = {s_.g.pads_begin[0], s_.g.pads_begin[1]};
    const memory::dims pad_r = {s_.g.pads_end[0], s_.g.pads_end[1]};
    const auto kind = dnnl::prop_kind::forward_inference;
    auto desc = bias_.defined() ? Conv::desc(kind, algorithm, src_md_, w_any, memory::desc({s_.m}, f32, Tag::x),
                                             conv_dst_md_, strides, dilations, pad_l, pad_r)
                                : Conv::desc(kind, algorithm, src_md_, w_any, conv_dst_md_, strides, dilations, pad_l,
                                             pad_r);
    return Conv::primitive_desc(desc, attr, onednn_engine());
  }

  // OIHW weights with zero weights for the extra input channels.
  static Tensor pad_input_channels(const Tensor& w, int64_t channels) {
    Tensor padded(DType::f32, Shape({w.dim(0), channels, w.dim(2), w.dim(3)}));  // zero-filled
    const int64_t k = w.dim(2) * w.dim(3), c = w.dim(1);
    for (int64_t o = 0; o < w.dim(0); ++o)
      std::memcpy(padded.data<float>() + o * channels * k, w.data<float>() + o * c * k, size_t(c * k) * sizeof(float));
    return padded;
  }

  // concat(upsample2x(low), skip) along channels, written in the convolution's source layout;
  // copies runs of channels that are contiguous in both the source and the destination.
  void pack_upsample_concat(const Tensor& low, const Tensor& skip, float* out, ThreadPool& pool) const {
    const int64_t block = channel_block(s_.src);
    if (block != 0 && s_.c_low % block == 0) return pack_blocked(low, skip, out, pool);
    const int64_t c1 = s_.c_low, c = s_.c, h = s_.h, w = s_.w, lw = w / 2;
    const LayoutView low_view{s_.in[0], c1, (h / 2) * lw}, skip_view{s_.in[1], s_.c_skip, h * w},
        out_view{s_.src, s_.c_conv, h * w};
    const float* lp = low.data<float>();
    const float* sp = skip.data<float>();
    pool.parallel_for(s_.n * h, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / h, y = row % h;
        for (int64_t x = 0; x < w; ++x) {
          const int64_t p = y * w + x, low_p = (y / 2) * lw + x / 2;
          for (int64_t k = 0; k < c;) {
            const bool from_low = k < c1;
            const LayoutView& in = from_low ? low_view : skip_view;
            const int64_t ck = from_low ? k : k - c1;
            const float* from = (from_low ? lp : sp) + in.offset(b, ck, from_low ? low_p : p);
            float* to = out + out_view.offset(b, k, p);
            const int64_t count = std::min({in.run(ck), out_view.run(k), in.channels - ck});
            if (count == 1)
              *to = *from;
            else
              std::memcpy(to, from, size_t(count) * sizeof(float));
            k += count;
          }
          for (int64_t k = c; k < s_.c_conv; ++k) out[out_view.offset(b, k, p)] = 0.0f;  // padding
        }
      }
    });
  }

  // The same into nChw16c / nChw8c when the upsampled channels fill whole blocks: one output row of
  // one channel block at a time, so rows are long contiguous copies (skip already blocked alike) or
  // each upsampled pixel's block written twice.
  void pack_blocked(const Tensor& low, const Tensor& skip, float* out, ThreadPool& pool) const {
    const int64_t block = channel_block(s_.src);
    const int64_t h = s_.h, w = s_.w, lh = h / 2, lw = w / 2, c2 = s_.c_skip;
    const int64_t out_blocks = s_.c_conv / block, low_blocks = s_.c_low / block;
    const float* lp = low.data<float>();
    const float* sp = skip.data<float>();
    const LayoutView low_view{s_.in[0], s_.c_low, lh * lw};
    const size_t block_bytes = size_t(block) * sizeof(float);
    pool.parallel_for(s_.n * out_blocks * h, [&](int64_t begin, int64_t end) {
      for (int64_t job = begin; job < end; ++job) {
        const int64_t y = job % h, ob = (job / h) % out_blocks, b = job / (h * out_blocks);
        float* row = out + ((b * out_blocks + ob) * h + y) * w * block;
        if (ob < low_blocks) {  // upsampled channels ob*block .. ob*block+block-1
          for (int64_t x = 0; x < lw; ++x) {
            float pixel[16];
            if (s_.in[0] == s_.src) {
              std::memcpy(pixel, lp + ((b * low_blocks + ob) * lh + y / 2) * lw * block + x * block, block_bytes);
            } else {
              for (int64_t ci = 0; ci < block; ++ci)
                pixel[ci] = lp[low_view.offset(b, ob * block + ci, (y / 2) * lw + x)];
            }
            std::memcpy(row + 2 * x * block, pixel, block_bytes);
            std::memcpy(row + (2 * x + 1) * block, pixel, block_bytes);
          }
          continue;
        }
        const int64_t first = (ob - low_blocks) * block, valid = std::clamp<int64_t>(c2 - first, 0, block);
        if (s_.in[1] == s_.src && valid == block) {
          std::memcpy(row, sp + ((b * (c2 / block) + first / block) * h + y) * w * block, size_t(w) * block_bytes);
          continue;
        }
        if (valid < block)
          for (int64_t x = 0; x < w; ++x) std::memset(row + x * block + valid, 0, size_t(block - valid) * sizeof(float));
        if (s_.in[1] == Layout::nchw) {
          for (int64_t ci = 0; ci < valid; ++ci) {
            const float* plane_row = sp + ((b * c2 + first + ci) * h + y) * w;
            for (int64_t x = 0; x < w; ++x) row[x * block + ci] = plane_row[x];
          }
        } else {
          const LayoutView skip_view{s_.in[1], c2, h * w};
          for (int64_t x = 0; x < w; ++x)
            for (int64_t ci = 0; ci < valid; ++ci) row[x * block + ci] = sp[skip_view.offset(b, first + ci, y * w + x)];
        }
      }
    });
  }

  FusedConvShape s_;
  Tensor weights_source_, bias_;  // keep the constants alive
  memory::desc in_md_, src_md_, conv_dst_md_, pool_dst_md_, out_md_;
  dnnl::convolution_forward conv_;
  std::unique_ptr<DilatedConvTaps> taps_;  // set: the convolution runs tap by tap (dilated, no JIT kernel)
  dnnl::pooling_forward pool_;
  dnnl::reorder to_output_, to_source_, residual_to_dst_;
  memory::desc residual_md_;
  bool residual_binary_ = false;  // R added by a binary post-op (else copied into dst and summed)
  memory weights_, bias_mem_;
};

bool constant_f32(const Graph& graph, ValueId id) {
  return id != kNoValue && graph.value(id).is_constant() && graph.value(id).constant.dtype() == DType::f32;
}

}  // namespace

// Without Winograd the 16-channel blocked layout is worse than useless: direct convolutions on nChw16c fall back
// to oneDNN's reference loop on AVX2 (a 256x192 denoise: 78 s instead of 0.15). Asked once, on a
// small 3x3 layer.
bool onednn_has_winograd() {
  static const bool has = [] {
    const memory::desc src({1, 16, 16, 16}, memory::data_type::f32, Tag::nChw16c);
    const memory::desc w({16, 16, 3, 3}, memory::data_type::f32, Tag::any);
    try {
      dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_winograd,
                                        src, w, src, {1, 1}, {1, 1}, {1, 1});
      dnnl::convolution_forward::primitive_desc(d, onednn_attr(), onednn_engine());
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }();
  return has;
}

namespace {

// Whether oneDNN runs this direct convolution (square stride and padding) on a JIT kernel, not
// its reference loop or not at all: the probes of the layout choices below.
bool jit_convolution(const memory::desc& src, const memory::desc& w, const memory::desc& dst, int64_t stride,
                     int64_t pad) {
  try {
    const dnnl::convolution_forward::desc d(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct,
                                            src, w, dst, {stride, stride}, {pad, pad}, {pad, pad});
    const dnnl::convolution_forward::primitive_desc pd(d, onednn_attr(), onednn_engine());
    return std::string(pd.impl_info_str()).find("jit") == 0;
  } catch (const dnnl::error&) {
    return false;
  }
}

}  // namespace

// Asked once, on a small 3x3 layer and a depthwise one: the JIT kernels must take nChw8c (a
// reference loop would be far slower than NHWC).
bool onednn_prefers_blocked8() {
  static const bool prefers = [] {
    if (onednn_has_winograd()) return false;
    const memory::desc x({1, 16, 16, 16}, memory::data_type::f32, Tag::nChw8c);
    return jit_convolution(x, memory::desc({16, 16, 3, 3}, memory::data_type::f32, Tag::any), x, 1, 1) &&
           jit_convolution(x, memory::desc({16, 1, 1, 3, 3}, memory::data_type::f32, Tag::any), x, 1, 1);
  }();
  return prefers;
}

// Asked once, on a 3-channel 7x7 stride-2 layer: a JIT kernel must take NCHW in and nChw8c out.
bool onednn_takes_plain_stems() {
  static const bool takes = jit_convolution(memory::desc({1, 3, 32, 32}, memory::data_type::f32, Tag::nchw),
                                            memory::desc({16, 3, 7, 7}, memory::data_type::f32, Tag::any),
                                            memory::desc({1, 16, 16, 16}, memory::data_type::f32, Tag::nChw8c), 2, 3);
  return takes;
}

Layout onednn_working_layout(const Node& node, const Graph& graph) {
  try {
    return fused_conv_shape(node, graph).work;
  } catch (const Error&) {
    return Layout::nhwc;
  }
}

bool onednn_fused_conv_supports(const Node& node, const Graph& graph) {
  if (node.op != kFusedConv && node.op != kFusedConvResidual) return false;
  if (node.op == kFusedConvResidual &&
      (node.input(3) == kNoValue || graph.value(node.input(3)).dtype != DType::f32))
    return false;
  const bool upcat = node.attrs.get_int("upsample_concat", 0) != 0;
  const size_t w_at = upcat ? 2 : 1;
  if (!constant_f32(graph, node.input(w_at))) return false;
  if (node.input(w_at + 1) != kNoValue && !constant_f32(graph, node.input(w_at + 1))) return false;
  for (size_t i = 0; i < w_at; ++i)
    if (node.input(i) == kNoValue || graph.value(node.input(i)).dtype != DType::f32) return false;
  try {
    fused_conv_shape(node, graph);
  } catch (const Error&) {
    return false;  // unknown shapes, 1-D, odd groups: the reference kernel handles (or reports) those
  }
  return true;
}

size_t onednn_fused_conv_scratch_bytes(const Node& node, const Graph& graph) {
  return fused_conv_shape(node, graph).scratch_bytes();
}

namespace {
KernelFn make_onednn_fused_conv(const Node& node, const Graph& graph) {
  auto kernel = std::make_shared<OneDnnFusedConv>(node, graph);
  return [kernel](KernelContext& ctx) { kernel->run(ctx); };
}
}  // namespace

VX_REGISTER_CPU_KERNEL(fused_conv_onednn, {kFusedConv, kOneDnnVariant, 10, onednn_fused_conv_supports,
                                           nullptr, make_onednn_fused_conv});
VX_REGISTER_CPU_KERNEL(fused_conv_residual_onednn, {kFusedConvResidual, kOneDnnVariant, 10,
                                                    onednn_fused_conv_supports, nullptr, make_onednn_fused_conv});

}  // namespace vx::cpu::fast

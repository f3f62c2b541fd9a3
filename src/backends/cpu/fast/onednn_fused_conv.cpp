#include "backends/cpu/fast/onednn_fused_conv.h"

#include <dlfcn.h>

#include <cstring>
#include <dnnl.hpp>
#include <memory>
#include <unordered_map>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "passes/fused_ops.h"
#include "passes/window_geometry.h"
#include "plan/arena_planner.h"

namespace vx::cpu::fast {

namespace {

using dnnl::memory;
using Tag = memory::format_tag;
constexpr auto f32 = memory::data_type::f32;

dnnl::engine& cpu_engine() {
  static dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

// Everything about one node that does not change between runs.
struct FusedConvShape {
  bool upsample_concat = false, relu = false, pool = false;
  bool nhwc_in[2] = {false, false};
  bool nhwc_out = false;
  int64_t n = 0, c_low = 0, c_skip = 0, c = 0, h = 0, w = 0;  // conv input (after upsample + concat)
  int64_t m = 0, conv_h = 0, conv_w = 0;                        // conv output
  int64_t out_h = 0, out_w = 0;                                 // node output (after pool)
  WindowGeometry g;

  size_t src_pack_bytes() const {
    return upsample_concat || !nhwc_in[0] ? size_t(n * c * h * w) * sizeof(float) : 0;
  }
  size_t conv_dst_bytes() const { return pool || !nhwc_out ? size_t(n * m * conv_h * conv_w) * sizeof(float) : 0; }
  // Pooling NHWC into NCHW has no fast oneDNN implementation: pool into NHWC, then reorder.
  size_t pool_dst_bytes() const { return pool && !nhwc_out ? size_t(n * m * out_h * out_w) * sizeof(float) : 0; }
  size_t scratch_bytes() const {
    return plan::align_up(src_pack_bytes()) + plan::align_up(conv_dst_bytes()) + plan::align_up(pool_dst_bytes());
  }
};

FusedConvShape fused_conv_shape(const Node& node, const Graph& graph) {
  const std::string what = std::string(kFusedConv) + " '" + node.name + "'";
  FusedConvShape s;
  s.upsample_concat = node.attrs.get_int("upsample_concat", 0) != 0;
  s.relu = node.attrs.get_int("relu", 0) != 0;
  s.pool = node.attrs.get_int("pool", 0) != 0;
  const std::vector<int64_t> nhwc_in = node.attrs.get_ints(kNhwcInputsAttr);
  for (size_t i = 0; i < nhwc_in.size() && i < 2; ++i) s.nhwc_in[i] = nhwc_in[i] != 0;
  s.nhwc_out = node.attrs.get_int(kNhwcOutputAttr, 0) != 0;
  const Shape& x = graph.value(node.input(0)).shape;
  const size_t w_at = s.upsample_concat ? 2 : 1;
  const Shape& wshape = graph.value(node.input(w_at)).shape;
  VX_CHECK(x.rank() == 4 && wshape.rank() == 4 && x.is_known() && wshape.is_known(), Unsupported, what,
           ": needs known 4-D shapes");
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
    s.h = x[2];
    s.w = x[3];
  }
  s.c = s.c_low + s.c_skip;
  s.m = wshape[0];
  VX_CHECK(wshape[1] == s.c && node.attrs.get_int("group", 1) == 1, Unsupported, what, ": weights ", wshape.str(),
           " do not fit ", s.c, " input channels with group 1");
  s.g = window_geometry(node.attrs, {s.h, s.w}, {wshape[2], wshape[3]}, false, what);
  s.conv_h = s.g.output[0];
  s.conv_w = s.g.output[1];
  s.out_h = s.pool ? s.conv_h / 2 : s.conv_h;
  s.out_w = s.pool ? s.conv_w / 2 : s.conv_w;
  VX_CHECK(s.out_h > 0 && s.out_w > 0, InvalidArgument, what, ": output too small to pool");
  return s;
}

class OneDnnFusedConv {
 public:
  OneDnnFusedConv(const Node& node, const Graph& graph) : s_(fused_conv_shape(node, graph)) {
    auto& engine = cpu_engine();
    const size_t w_at = s_.upsample_concat ? 2 : 1;
    weights_source_ = graph.value(node.input(w_at)).constant;
    if (node.input(w_at + 1) != kNoValue) bias_ = graph.value(node.input(w_at + 1)).constant;

    const memory::dims src_dims = {s_.n, s_.c, s_.h, s_.w};
    const memory::dims dst_dims = {s_.n, s_.m, s_.conv_h, s_.conv_w};
    const memory::dims w_dims = {s_.m, s_.c, s_.g.kernel[0], s_.g.kernel[1]};
    src_md_ = memory::desc(src_dims, f32, Tag::nhwc);
    conv_dst_md_ = memory::desc(dst_dims, f32, Tag::nhwc);
    const memory::desc w_any(w_dims, f32, Tag::any);
    const memory::dims strides = {s_.g.strides[0], s_.g.strides[1]};
    const memory::dims dilations = {s_.g.dilations[0] - 1, s_.g.dilations[1] - 1};  // oneDNN counts gaps
    const memory::dims pad_l = {s_.g.pads_begin[0], s_.g.pads_begin[1]};
    const memory::dims pad_r = {s_.g.pads_end[0], s_.g.pads_end[1]};
    dnnl::primitive_attr attr;
    if (s_.relu) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    using Conv = dnnl::convolution_forward;
    auto desc = bias_.defined()
                    ? Conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md_,
                                 w_any, memory::desc({s_.m}, f32, Tag::x), conv_dst_md_, strides, dilations, pad_l,
                                 pad_r)
                    : Conv::desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::convolution_direct, src_md_,
                                 w_any, conv_dst_md_, strides, dilations, pad_l, pad_r);
    Conv::primitive_desc pd(desc, attr, engine);
    conv_ = Conv(pd);
    impl_ = pd.impl_info_str();

    // Weights: reordered once from OIHW into the layout the primitive chose.
    memory user_w({w_dims, f32, Tag::oihw}, engine, const_cast<void*>(weights_source_.raw()));
    weights_ = memory(pd.weights_desc(), engine);
    dnnl::stream stream(engine);
    dnnl::reorder(user_w, weights_).execute(stream, user_w, weights_);
    stream.wait();
    if (bias_.defined()) bias_mem_ = memory(pd.bias_desc(), engine, const_cast<void*>(bias_.raw()));

    out_md_ = memory::desc({s_.n, s_.m, s_.out_h, s_.out_w}, f32, s_.nhwc_out ? Tag::nhwc : Tag::nchw);
    pool_dst_md_ = memory::desc({s_.n, s_.m, s_.out_h, s_.out_w}, f32, Tag::nhwc);
    if (s_.pool) {
      using Pool = dnnl::pooling_forward;
      Pool::desc pdesc(dnnl::prop_kind::forward_inference, dnnl::algorithm::pooling_max, conv_dst_md_, pool_dst_md_,
                       {2, 2}, {2, 2}, {0, 0}, {0, 0});
      pool_ = Pool(Pool::primitive_desc(pdesc, engine));
    }
    if (!s_.nhwc_out)  // the last NHWC result (conv or pool) into the NCHW output
      to_nchw_ = dnnl::reorder(memory(pool_dst_md_, engine, nullptr), memory(out_md_, engine, nullptr));
    if (!s_.upsample_concat && !s_.nhwc_in[0]) {
      memory::desc nchw(src_dims, f32, Tag::nchw);
      to_nhwc_ = dnnl::reorder(memory(nchw, engine, nullptr), memory(src_md_, engine, nullptr));
    }
  }

  void run(KernelContext& ctx) {
    auto& engine = cpu_engine();
    set_onednn_threads(ctx.pool().size());
    dnnl::stream stream(engine);
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == Shape({s_.n, s_.upsample_concat ? s_.c_low : s_.c, s_.upsample_concat ? s_.h / 2 : s_.h,
                                 s_.upsample_concat ? s_.w / 2 : s_.w}),
             InvalidArgument, "input ", x.shape().str(), " differs from the planned shape");
    char* scratch = static_cast<char*>(ctx.scratch(scratch_bytes()));
    float* packed = reinterpret_cast<float*>(scratch);
    float* conv_out = reinterpret_cast<float*>(scratch + plan::align_up(s_.src_pack_bytes()));
    float* pool_out = reinterpret_cast<float*>(scratch + plan::align_up(s_.src_pack_bytes()) +
                                               plan::align_up(s_.conv_dst_bytes()));
    Tensor& y = ctx.output(0, DType::f32, Shape({s_.n, s_.m, s_.out_h, s_.out_w}));

    // Source in NHWC.
    const float* src = x.data<float>();
    if (s_.upsample_concat) {
      pack_upsample_concat(x, ctx.input(1), packed, ctx.pool());
      src = packed;
    } else if (!s_.nhwc_in[0]) {
      memory::desc nchw({s_.n, s_.c, s_.h, s_.w}, f32, Tag::nchw);
      memory from(nchw, engine, const_cast<float*>(src)), to(src_md_, engine, packed);
      to_nhwc_.execute(stream, from, to);
      src = packed;
    }
    // Convolution (+ bias + ReLU).
    float* dst = s_.pool || !s_.nhwc_out ? conv_out : y.data<float>();
    memory src_mem(src_md_, engine, const_cast<float*>(src)), dst_mem(conv_dst_md_, engine, dst);
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src_mem}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst_mem}};
    if (bias_.defined()) args[DNNL_ARG_BIAS] = bias_mem_;
    conv_.execute(stream, args);
    // Pool, then the layout change into an NCHW output.
    memory result = dst_mem;
    if (s_.pool) {
      result = memory(pool_dst_md_, engine, s_.nhwc_out ? y.data<float>() : pool_out);
      pool_.execute(stream, {{DNNL_ARG_SRC, dst_mem}, {DNNL_ARG_DST, result}});
    }
    if (!s_.nhwc_out) {
      memory out_mem(out_md_, engine, y.data<float>());
      to_nchw_.execute(stream, result, out_mem);
    }
    stream.wait();
  }

  size_t scratch_bytes() const { return s_.scratch_bytes(); }

 private:
  // concat(upsample2x(low), skip) along channels, written as NHWC. Each source NCHW or NHWC.
  void pack_upsample_concat(const Tensor& low, const Tensor& skip, float* out, ThreadPool& pool) const {
    const int64_t c1 = s_.c_low, c2 = s_.c_skip, c = s_.c, h = s_.h, w = s_.w, lh = h / 2, lw = w / 2;
    const float* lp = low.data<float>();
    const float* sp = skip.data<float>();
    const bool low_nhwc = s_.nhwc_in[0], skip_nhwc = s_.nhwc_in[1];
    pool.parallel_for(s_.n * h, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t b = row / h, y = row % h;
        float* o = out + (b * h + y) * w * c;
        for (int64_t x = 0; x < w; ++x, o += c) {
          if (low_nhwc) {
            std::memcpy(o, lp + ((b * lh + y / 2) * lw + x / 2) * c1, size_t(c1) * sizeof(float));
          } else {
            const float* l = lp + b * c1 * lh * lw + (y / 2) * lw + x / 2;
            for (int64_t k = 0; k < c1; ++k) o[k] = l[k * lh * lw];
          }
          if (skip_nhwc) {
            std::memcpy(o + c1, sp + ((b * h + y) * w + x) * c2, size_t(c2) * sizeof(float));
          } else {
            const float* sk = sp + b * c2 * h * w + y * w + x;
            for (int64_t k = 0; k < c2; ++k) o[c1 + k] = sk[k * h * w];
          }
        }
      }
    });
  }

  FusedConvShape s_;
  Tensor weights_source_, bias_;  // keep the constants alive
  memory::desc src_md_, conv_dst_md_, pool_dst_md_, out_md_;
  dnnl::convolution_forward conv_;
  dnnl::pooling_forward pool_;
  dnnl::reorder to_nchw_, to_nhwc_;
  memory weights_, bias_mem_;
  std::string impl_;
};

bool constant_f32(const Graph& graph, ValueId id) {
  return id != kNoValue && graph.value(id).is_constant() && graph.value(id).constant.dtype() == DType::f32;
}

}  // namespace

void set_onednn_threads(int threads) {
  // Debian's oneDNN uses GNU OpenMP, which libdnnl already loaded; look it up rather than link it.
  using SetThreads = void (*)(int);
  static SetThreads set = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "omp_set_num_threads"));
  if (set && threads > 0) set(threads);
}

bool onednn_fused_conv_supports(const Node& node, const Graph& graph) {
  if (node.op != kFusedConv) return false;
  const bool upcat = node.attrs.get_int("upsample_concat", 0) != 0;
  const size_t w_at = upcat ? 2 : 1;
  if (!constant_f32(graph, node.input(w_at))) return false;
  if (node.input(w_at + 1) != kNoValue && !constant_f32(graph, node.input(w_at + 1))) return false;
  for (size_t i = 0; i < w_at; ++i)
    if (node.input(i) == kNoValue || graph.value(node.input(i)).dtype != DType::f32) return false;
  try {
    fused_conv_shape(node, graph);
  } catch (const Error&) {
    return false;  // unknown shapes, groups, 1-D: the reference kernel handles (or reports) those
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

}  // namespace vx::cpu::fast

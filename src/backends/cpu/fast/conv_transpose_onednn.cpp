// ConvTranspose through oneDNN's deconvolution primitive: f32, 1 to 3 spatial axes, constant
// weights (reordered once into the layout the primitive picks) and an optional constant bias;
// strides, dilations, pads, groups, output_padding, output_shape and auto_pad as ONNX defines them
// (ops/conv_transpose_geometry.h, shared with the reference kernel and the shape function).
// Declines unknown shapes, other dtypes, runtime weights or bias, negative begin pads, empty
// outputs and whatever oneDNN refuses: the reference kernel runs those.
//
// Two things of oneDNN 2.6 are slow here, so the kernel does them itself: the deconvolution's bias
// (a destination-sized scratchpad and a second pass, several times the deconvolution's own time)
// is added to the output afterwards, and the channels-last copies are the kernel's own memory,
// faulted in once (as the executor's arena is: about 3 ms per MiB in our VMs) rather than by oneDNN
// when it runs. The scratchpad is the running thread's, as every oneDNN kernel's (onednn_common.h).
#include <sys/mman.h>

#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unordered_map>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/conv_transpose_geometry.h"
#include "plan/arena_planner.h"

namespace vx::cpu::fast {
namespace {

using Deconv = dnnl::deconvolution_forward;

// What the primitive needs, from the node alone (supports() builds this much and no more).
struct DeconvPlan {
  Deconv::primitive_desc pd;
  memory::desc src, dst, user_weights;  // the tensors' plain layouts and ONNX's weights
  bool channels_last = false;           // src and dst reordered to and from the primitive's layout
  Shape in, out;
  Tensor weights, bias;  // the graph's constants
};

bool constant_f32_value(const Graph& g, ValueId id) {
  return id != kNoValue && g.value(id).is_constant() && g.value(id).constant.dtype() == DType::f32;
}

// ONNX weights [C_in, C_out/group, k...] as oneDNN's {O, I, k...} (iohw) or, with groups,
// {G, O/G, I/G, k...} (giohw): the same bytes, described by strides.
memory::desc onnx_weights_desc(const Shape& w, int64_t group) {
  const std::vector<int64_t> kernel(w.begin() + 2, w.end());
  const memory::dims k_strides = row_major_strides(kernel);
  const int64_t k = Shape(kernel).numel(), og = w[1], ig = w[0] / group;
  memory::dims dims, strides;
  if (group == 1) {
    dims = {og, ig};
    strides = {k, og * k};
  } else {
    dims = {group, og, ig};
    strides = {ig * og * k, k, og * k};
  }
  dims.insert(dims.end(), kernel.begin(), kernel.end());
  strides.insert(strides.end(), k_strides.begin(), k_strides.end());
  return memory::desc(dims, f32, strides);
}

// N, spatial..., C in memory (nwc, nhwc, ndhwc).
memory::desc channels_last_desc(const Shape& s) {
  memory::dims strides(s.rank());
  int64_t step = 1;
  strides[1] = step;
  step *= s[1];
  for (size_t i = s.rank(); i-- > 2;) {
    strides[i] = step;
    step *= s[i];
  }
  strides[0] = step;
  return memory::desc(s.dims(), f32, strides);
}

Deconv::primitive_desc deconv_primitive_desc(const DeconvPlan& p, const ConvTransposeGeometry& geo) {
  memory::dims dilations;
  for (int64_t d : geo.dilations) dilations.push_back(d - 1);  // oneDNN counts gaps
  const memory::desc src = p.channels_last ? channels_last_desc(p.in) : p.src;
  const memory::desc dst = p.channels_last ? channels_last_desc(p.out) : p.dst;
  // Any weights layout: the primitive picks its own and the factory reorders into it once. No
  // bias (added by the kernel). pads_end may be negative (output_padding, a larger output_shape):
  // oneDNN checks only that it closes the output extent.
  const memory::desc w_any(p.user_weights.dims(), f32, memory::format_tag::any);
  Deconv::desc desc(dnnl::prop_kind::forward_inference, dnnl::algorithm::deconvolution_direct, src, w_any, dst,
                    geo.strides, dilations, geo.pads_begin, geo.pads_end);
  return Deconv::primitive_desc(desc, onednn_attr(), onednn_engine());
}

DeconvPlan deconv_plan(const Node& node, const Graph& g) {
  const std::string what = cat(node.op, " '", node.name, "'");
  VX_CHECK(node.outputs.size() == 1 && known_f32(g, node.input(0)) && single_f32_output(node, g), Unsupported, what,
           ": needs a known f32 input and one f32 output");
  VX_CHECK(constant_f32_value(g, node.input(1)), Unsupported, what, ": needs constant f32 weights");
  const bool has_bias = node.input(2) != kNoValue;
  VX_CHECK(!has_bias || constant_f32_value(g, node.input(2)), Unsupported, what, ": needs a constant f32 bias");
  DeconvPlan p;
  p.in = g.value(node.input(0)).shape;
  p.weights = g.value(node.input(1)).constant;
  VX_CHECK(p.in.rank() >= 3 && p.in.rank() <= 5, Unsupported, what, ": needs 1 to 3 spatial axes");
  const ConvTransposeGeometry geo = conv_transpose_geometry(node.attrs, p.in, p.weights.shape(), what);
  p.out = geo.output_shape;
  if (has_bias) {
    p.bias = g.value(node.input(2)).constant;
    VX_CHECK(p.bias.shape().numel() == p.out[1], InvalidArgument, what, ": bias ", p.bias.shape().str(), " for ",
             p.out[1], " output channels");
  }
  for (size_t i = 0; i < geo.rank(); ++i)
    VX_CHECK(geo.pads_begin[i] >= 0 && geo.output[i] > 0, Unsupported, what, ": negative begin pads or an empty output");
  p.src = plain_f32_desc(p.in.dims());
  p.dst = plain_f32_desc(p.out.dims());
  p.user_weights = onnx_weights_desc(p.weights.shape(), geo.group);
  // Channels-last, where oneDNN has JIT kernels, even with the reorders to and from NCHW
  // (PaddleOCR's 24 -> 24 at 160x160, 2 threads: 2.9 ms against 4.2 ms by GEMM on NCHW). GEMM wins
  // at steady state for a few output channels with kernel == stride (its 24 -> 1 at 320x320:
  // 0.9 ms against 3.7 ms), but its first use in a process generates the GEMM kernels, about 40 ms
  // that the run pays. Plain NCHW where channels-last is refused or would run oneDNN's reference
  // code.
  bool found = false;
  for (bool channels_last : {true, false}) {
    DeconvPlan candidate = p;
    candidate.channels_last = channels_last;
    try {
      candidate.pd = deconv_primitive_desc(candidate, geo);
    } catch (const dnnl::error&) {
      continue;
    }
    const bool reference = std::string(candidate.pd.impl_info_str()).starts_with("ref");
    if (!found || !reference) p = candidate;
    found = true;
    if (!reference) break;
  }
  VX_CHECK(found, Unsupported, what, ": oneDNN has no deconvolution for it");
  return p;
}

// The supports() test builds the primitive descriptor (what oneDNN accepts); the output's shape is
// not compared with the graph's: the shape function computes it from the same geometry, and a graph
// not yet through shape inference holds a placeholder there.
bool conv_transpose_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] {
    deconv_plan(node, g);
    return true;
  });
}

// Memory owned by one kernel: 2 MiB aligned, huge pages where the kernel allows, faulted in once
// (as the executor's arena is) so that no run pays for it.
struct FaultedBuffer {
  explicit FaultedBuffer(size_t bytes) {
    if (bytes == 0) return;
    constexpr size_t kHugePage = size_t(2) << 20;
    const size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    data.reset(static_cast<char*>(std::aligned_alloc(kHugePage, rounded)));
    VX_CHECK(data != nullptr, OutOfMemory, "cannot allocate ", rounded, " bytes for a ConvTranspose kernel");
    madvise(data.get(), rounded, MADV_HUGEPAGE);
    std::memset(data.get(), 0, rounded);
  }
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
};

class OneDnnConvTranspose {
 public:
  OneDnnConvTranspose(const Node& node, const Graph& g)
      : p_(deconv_plan(node, g)),
        // One channel reads the same bytes in either layout: no copy then.
        copy_src_(p_.channels_last && p_.in[1] > 1),
        copy_dst_(p_.channels_last && p_.out[1] > 1),
        buffer_(src_copy_bytes() + dst_copy_bytes()) {
    auto& engine = onednn_engine();
    deconv_ = Deconv(p_.pd);
    reserve_thread_scratchpad(p_.pd.scratchpad_desc().get_size());
    // The weights, once, from ONNX's layout into the primitive's (DNNL_VERBOSE=1 shows which).
    memory user_w(p_.user_weights, engine, const_cast<void*>(p_.weights.raw()));
    weights_ = memory(p_.pd.weights_desc(), engine);
    dnnl::stream stream(engine);
    dnnl::reorder(user_w, weights_).execute(stream, user_w, weights_);
    stream.wait();
    char* at = buffer_.data.get();
    if (copy_src_) {
      src_copy_ = memory(p_.pd.src_desc(), engine, at);
      to_src_copy_ = dnnl::reorder(memory(p_.src, engine, nullptr), src_copy_);
    }
    if (copy_dst_) {
      dst_copy_ = memory(p_.pd.dst_desc(), engine, at + src_copy_bytes());
      from_dst_copy_ = dnnl::reorder(dst_copy_, memory(p_.dst, engine, nullptr));
    }
  }

  void run(KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    VX_CHECK(x.shape() == p_.in, InvalidArgument, "input ", x.shape().str(), " differs from the planned ", p_.in.str());
    set_onednn_threads(ctx.pool().size());
    Tensor& y = ctx.output(0, DType::f32, p_.out);
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory x_mem(copy_src_ ? p_.src : p_.pd.src_desc(), engine, const_cast<void*>(x.raw()));
    memory y_mem(copy_dst_ ? p_.dst : p_.pd.dst_desc(), engine, y.raw());
    if (copy_src_) to_src_copy_.execute(stream, x_mem, src_copy_);
    std::unordered_map<int, memory> args = {
        {DNNL_ARG_SRC, copy_src_ ? src_copy_ : x_mem}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, copy_dst_ ? dst_copy_ : y_mem}};
    execute_primitive(deconv_, stream, std::move(args));
    if (copy_dst_) from_dst_copy_.execute(stream, dst_copy_, y_mem);
    stream.wait();
    if (p_.bias.defined()) add_bias(y.data<float>(), ctx.pool());
  }

 private:
  size_t src_copy_bytes() const { return copy_src_ ? plan::align_up(p_.pd.src_desc().get_size()) : 0; }
  size_t dst_copy_bytes() const { return copy_dst_ ? plan::align_up(p_.pd.dst_desc().get_size()) : 0; }

  // y[n, c, ...] += bias[c], one plane at a time.
  void add_bias(float* y, ThreadPool& pool) const {
    const int64_t channels = p_.out[1], plane = p_.out.numel() / (p_.out[0] * channels);
    const float* b = p_.bias.data<float>();
    pool.parallel_for(p_.out[0] * channels, [&](int64_t begin, int64_t end) {
      for (int64_t i = begin; i < end; ++i) {
        float* row = y + i * plane;
        const float v = b[i % channels];
        for (int64_t k = 0; k < plane; ++k) row[k] += v;
      }
    });
  }

  DeconvPlan p_;
  bool copy_src_, copy_dst_;  // reordered through channels-last copies
  FaultedBuffer buffer_;      // the copies
  Deconv deconv_;
  memory weights_, src_copy_, dst_copy_;
  dnnl::reorder to_src_copy_, from_dst_copy_;
};

KernelFn make_conv_transpose(const Node& node, const Graph& g) {
  auto kernel = std::make_shared<OneDnnConvTranspose>(node, g);
  return [kernel](KernelContext& ctx) { kernel->run(ctx); };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(conv_transpose_onednn,
                       {"ConvTranspose", kOneDnnVariant, 10, conv_transpose_supports, nullptr, make_conv_transpose});

}  // namespace vx::cpu::fast

// MatMul, Gemm, vx.FusedMatMul and vx.MatMulInt8W through oneDNN's matmul primitive. Built once
// per node for the planned shapes: constant weights are reordered once into the layout the
// primitive prefers (blocked, for its brgemm kernels); batch extents broadcast as numpy.matmul;
// Gemm's transposes are strides, alpha an output scale, C (times beta) the bias; bias and
// activation run as the primitive's bias and eltwise post-op. Where oneDNN has no brgemm matmul
// (AVX2 CPUs: only its generic sgemm, 50-100 GFLOP/s on 2 cores) a product of rows by constant
// weights runs as the 1x1 convolution it is (rows as pixels in NHWC): about twice as fast there
// (transformer FFN 128x512x2048: 3.8 -> 1.7 ms). vx.MatMulInt8W dequantizes its int8
// weights per run, a block of columns at a time, into scratch and multiplies each block (weights
// stay 4x smaller in memory; the block stays in cache).
#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/matmul_shape.h"

namespace vx::cpu::fast {

namespace {

bool constant_of(const Graph& g, ValueId id, DType dtype) {
  return id != kNoValue && g.value(id).is_constant() && g.value(id).constant.dtype() == dtype;
}

std::optional<dnnl::algorithm> activation_algorithm(const std::string& name) {
  if (name == "none" || name.empty()) return std::nullopt;
  if (name == "relu") return dnnl::algorithm::eltwise_relu;
  if (name == "gelu_erf") return dnnl::algorithm::eltwise_gelu_erf;
  if (name == "gelu_tanh") return dnnl::algorithm::eltwise_gelu_tanh;
  throw Error(ErrorCode::Unsupported, cat("unknown activation '", name, "'"));
}

// The problem in oneDNN terms: operand and result extents of equal rank (batch extents of 1
// broadcast), operand strides (transposes), what is constant.
struct MatMulProblem {
  std::vector<int64_t> a_dims, b_dims, y_dims, bias_dims;
  memory::dims a_strides, b_strides;
  Shape out;          // the node's output shape (numpy's, 1-D operands' axes dropped)
  Shape a_in, b_in;   // the input shapes the node was planned for
  int64_t k = 0, n = 0;
  bool b_constant = false;
  float alpha = 1.0f;
  Tensor bias;  // constant, already times beta; undefined when none
  std::optional<dnnl::algorithm> activation;
  bool int8_weights = false;
  Tensor w_int8, w_scales;
};

// Numpy-matmul shapes of A [..., M, K] x B [..., K, N] as oneDNN dims of equal rank.
void set_matmul_dims(MatMulProblem& p, const Shape& a_shape, const Shape& b_shape, const std::string& what) {
  std::vector<int64_t> a = a_shape.dims(), b = b_shape.dims();
  VX_CHECK(!a.empty() && !b.empty(), Unsupported, what, ": scalar operand");
  const bool a_vec = a.size() == 1, b_vec = b.size() == 1;
  if (a_vec) a.insert(a.begin(), 1);
  if (b_vec) b.push_back(1);
  VX_CHECK(a.back() == b[b.size() - 2], InvalidArgument, what, ": inner extents differ in ", a_shape.str(), " x ",
           b_shape.str());
  // A constant 2-D B with a batched A: one [batch*M, K] x [K, N] product (weights reordered once).
  if (b.size() == 2 && a.size() > 2) {
    int64_t rows = 1;
    for (size_t i = 0; i + 1 < a.size(); ++i) rows *= a[i];
    a = {rows, a.back()};
  }
  const size_t rank = std::max(a.size(), b.size());
  VX_CHECK(rank <= 12, Unsupported, what, ": rank ", rank, " is more than oneDNN takes");
  a.insert(a.begin(), rank - a.size(), 1);
  b.insert(b.begin(), rank - b.size(), 1);
  std::vector<int64_t> y(rank);
  for (size_t i = 0; i + 2 < rank; ++i) {
    VX_CHECK(a[i] == b[i] || a[i] == 1 || b[i] == 1, InvalidArgument, what, ": batch extents of ", a_shape.str(),
             " and ", b_shape.str(), " do not broadcast");
    y[i] = std::max(a[i], b[i]);
  }
  y[rank - 2] = a[rank - 2];
  y[rank - 1] = b[rank - 1];
  p.a_dims = a;
  p.b_dims = b;
  p.y_dims = y;
  p.a_strides = row_major_strides(a);
  p.b_strides = row_major_strides(b);
  p.k = a.back();
  p.n = b.back();
  // numpy's output shape.
  std::vector<int64_t> out;
  const std::vector<int64_t>& a0 = a_shape.dims();
  const std::vector<int64_t>& b0 = b_shape.dims();
  const size_t batch_rank = std::max(a0.size() < 2 ? 0 : a0.size() - 2, b0.size() < 2 ? 0 : b0.size() - 2);
  for (size_t i = 0; i < batch_rank; ++i) {
    const int64_t ai = i + a0.size() >= batch_rank + 2 && a0.size() >= 2 ? a0[i + a0.size() - 2 - batch_rank] : 1;
    const int64_t bi = i + b0.size() >= batch_rank + 2 && b0.size() >= 2 ? b0[i + b0.size() - 2 - batch_rank] : 1;
    out.push_back(std::max(ai, bi));
  }
  if (!a_vec) out.push_back(a0[a0.size() - 2]);
  if (!b_vec) out.push_back(b0.back());
  p.out = Shape(out);
  p.a_in = a_shape;
  p.b_in = b_shape;
}

MatMulProblem matmul_problem(const Node& node, const Graph& g) {
  const std::string what = cat(node.op, " '", node.name, "'");
  MatMulProblem p;
  const bool int8 = node.op == kMatMulInt8W;
  if (node.op == "Gemm") {
    const Shape& a = g.value(node.input(0)).shape;
    const Shape& b = g.value(node.input(1)).shape;
    const GemmShape s = gemm_shape(a, b, node.attrs, what);
    const bool ta = s.trans_a, tb = s.trans_b;
    const int64_t m = s.m, k = s.k, n = s.n;
    p.a_dims = {m, k};
    p.b_dims = {k, n};
    p.y_dims = {m, n};
    p.a_strides = ta ? memory::dims{1, m} : memory::dims{k, 1};
    p.b_strides = tb ? memory::dims{1, k} : memory::dims{n, 1};
    p.k = k;
    p.n = n;
    p.out = Shape({m, n});
    p.a_in = a;
    p.b_in = b;
    p.alpha = node.attrs.get_float("alpha", 1.0f);
    const float beta = node.attrs.get_float("beta", 1.0f);
    if (node.input(2) != kNoValue && beta != 0.0f) {
      VX_CHECK(constant_of(g, node.input(2), DType::f32), Unsupported, what, ": C is not a constant");
      Tensor c = g.value(node.input(2)).constant;
      std::vector<int64_t> cd = c.shape().dims();
      VX_CHECK(cd.size() <= 2, Unsupported, what, ": C of rank ", cd.size());
      cd.insert(cd.begin(), 2 - cd.size(), 1);
      VX_CHECK((cd[0] == 1 || cd[0] == m) && (cd[1] == 1 || cd[1] == n), InvalidArgument, what, ": C ",
               c.shape().str(), " does not broadcast onto [", m, ", ", n, "]");
      // oneDNN adds the bias after the output scale: fold beta / alpha into it.
      Tensor scaled(DType::f32, Shape(cd));
      const float factor = p.alpha != 0.0f ? beta / p.alpha : 0.0f;
      VX_CHECK(p.alpha != 0.0f, Unsupported, what, ": alpha 0");
      for (int64_t i = 0; i < c.numel(); ++i) scaled.data<float>()[i] = c.data<float>()[i] * factor;
      p.bias = scaled;
      p.bias_dims = cd;
    }
  } else {
    const ValueId b_id = node.input(1);
    set_matmul_dims(p, g.value(node.input(0)).shape, g.value(b_id).shape, what);
    if (int8) {
      VX_CHECK(constant_of(g, b_id, DType::i8) && g.value(b_id).shape.rank() == 2, Unsupported, what,
               ": weights are not a constant int8 matrix");
      VX_CHECK(constant_of(g, node.input(2), DType::f32) && g.value(node.input(2)).constant.numel() == p.n,
               Unsupported, what, ": scales are not ", p.n, " constant floats");
      p.int8_weights = true;
      p.w_int8 = g.value(b_id).constant;
      p.w_scales = g.value(node.input(2)).constant;
    }
    const ValueId bias_id = int8 ? node.input(3) : node.op == kFusedMatMul ? node.input(2) : kNoValue;
    if (bias_id != kNoValue) {
      VX_CHECK(constant_of(g, bias_id, DType::f32) && g.value(bias_id).constant.numel() == p.n, Unsupported, what,
               ": bias is not ", p.n, " constant floats");
      p.bias = g.value(bias_id).constant;
      p.bias_dims.assign(p.y_dims.size(), 1);
      p.bias_dims.back() = p.n;
    }
    if (node.op != "MatMul") p.activation = activation_algorithm(node.attrs.get_string("activation", "none"));
  }
  p.b_constant = g.value(node.input(1)).is_constant();
  return p;
}

class OneDnnMatMul {
 public:
  static constexpr int64_t kInt8Block = 256;  // dequantized columns per product

  OneDnnMatMul(const Node& node, const Graph& g) : p_(matmul_problem(node, g)) {
    auto& engine = onednn_engine();
    dnnl::primitive_attr attr = onednn_attr();
    if (p_.alpha != 1.0f) attr.set_output_scales(0, {p_.alpha});
    if (p_.activation) {
      dnnl::post_ops ops;
      ops.append_eltwise(1.0f, *p_.activation, 0.0f, 0.0f);
      attr.set_post_ops(ops);
    }
    a_md_ = memory::desc(p_.a_dims, f32, p_.a_strides);
    y_md_ = plain_f32_desc(p_.y_dims);
    if (p_.bias.defined()) bias_md_ = plain_f32_desc(p_.bias_dims);
    if (p_.int8_weights) {
      build_int8(attr);
      return;
    }
    const memory::desc b_user(p_.b_dims, f32, p_.b_strides);
    const memory::desc b_md = p_.b_constant ? memory::desc(p_.b_dims, f32, memory::format_tag::any) : b_user;
    dnnl::matmul::desc desc = p_.bias.defined() ? dnnl::matmul::desc(a_md_, b_md, bias_md_, y_md_)
                                                : dnnl::matmul::desc(a_md_, b_md, y_md_);
    dnnl::matmul::primitive_desc pd(desc, attr, engine);
    b_md_ = b_user;
    if (std::string(pd.impl_info_str()).find("brg") == std::string::npos && build_as_conv(attr)) {
      weights_source_ = g.value(node.input(1)).constant;
      reorder_weights(memory::desc({p_.n, p_.k, 1, 1}, f32, memory::dims{p_.b_strides[1], p_.b_strides[0], 1, 1}),
                      conv_pd_->weights_desc());
      if (p_.bias.defined()) bias_mem_ = memory(conv_pd_->bias_desc(), engine, const_cast<void*>(p_.bias.raw()));
      return;
    }
    matmul_ = dnnl::matmul(pd);
    reserve_thread_scratchpad(pd.scratchpad_desc().get_size());
    if (p_.b_constant) {
      weights_source_ = g.value(node.input(1)).constant;
      reorder_weights(b_user, pd.weights_desc());
    }
    if (p_.bias.defined()) bias_mem_ = memory(bias_md_, engine, const_cast<void*>(p_.bias.raw()));
  }

  void run(KernelContext& ctx) {
    const Tensor& a = ctx.input(0);
    VX_CHECK(a.shape() == p_.a_in, InvalidArgument, "A ", a.shape().str(), " differs from the planned ",
             p_.a_in.str());
    set_onednn_threads(ctx.pool().size());
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    Tensor& y = ctx.output(0, DType::f32, p_.out);
    memory a_mem(a_md_, engine, const_cast<void*>(a.raw()));
    if (p_.int8_weights) return run_int8(ctx, a_mem, y, stream);
    if (conv_pd_) {
      memory src(conv_pd_->src_desc(), engine, const_cast<void*>(a.raw())), dst(conv_pd_->dst_desc(), engine, y.raw());
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, src}, {DNNL_ARG_WEIGHTS, weights_}, {DNNL_ARG_DST, dst}};
      if (p_.bias.defined()) args[DNNL_ARG_BIAS] = bias_mem_;
      execute_primitive(conv_, stream, std::move(args));
      stream.wait();
      return;
    }
    memory y_mem(y_md_, engine, y.raw());
    std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_DST, y_mem}};
    if (p_.b_constant) {
      args[DNNL_ARG_WEIGHTS] = weights_;
    } else {
      const Tensor& b = ctx.input(1);
      VX_CHECK(b.shape() == p_.b_in, InvalidArgument, "B ", b.shape().str(), " differs from the planned ",
               p_.b_in.str());
      args[DNNL_ARG_WEIGHTS] = memory(b_md_, engine, const_cast<void*>(b.raw()));
    }
    if (p_.bias.defined()) args[DNNL_ARG_BIAS] = bias_mem_;
    execute_primitive(matmul_, stream, std::move(args));
    stream.wait();
  }

 private:
  // The weights, once, from the constant's layout (described by `user`) into the primitive's.
  void reorder_weights(const memory::desc& user_md, const memory::desc& want) {
    auto& engine = onednn_engine();
    memory user(user_md, engine, const_cast<void*>(weights_source_.raw()));
    weights_ = memory(want, engine);
    dnnl::stream stream(engine);
    dnnl::reorder(user, weights_).execute(stream, user, weights_);
    stream.wait();
  }

  // A [M, K] (rows contiguous) x constant B [K, N] + per-column bias as a 1x1 convolution over M
  // pixels of K channels in NHWC, the same bytes as A and Y. False where that does not fit, or where
  // oneDNN has no 1x1 kernel for it, or for fewer than 8 rows (one row: the matmul is faster).
  bool build_as_conv(const dnnl::primitive_attr& attr) {
    if (!p_.b_constant || p_.a_dims.size() != 2 || p_.alpha != 1.0f) return false;
    const int64_t m = p_.a_dims[0];
    if (m < 8 || p_.a_strides != memory::dims{p_.k, 1}) return false;
    if (p_.bias.defined() && p_.bias.numel() != p_.n) return false;
    const memory::desc src({1, p_.k, 1, m}, f32, memory::format_tag::nhwc);
    const memory::desc dst({1, p_.n, 1, m}, f32, memory::format_tag::nhwc);
    const memory::desc w({p_.n, p_.k, 1, 1}, f32, memory::format_tag::any);
    const memory::desc bias({p_.n}, f32, memory::format_tag::a);
    try {
      const auto pd = pointwise_conv(src, w, p_.bias.defined() ? &bias : nullptr, dst, attr);
      if (std::string(pd.impl_info_str()).find("1x1") == std::string::npos) return false;
      reserve_thread_scratchpad(pd.scratchpad_desc().get_size());
      conv_pd_ = pd;
      conv_ = dnnl::convolution_forward(pd);
      return true;
    } catch (const dnnl::error&) {
      return false;
    }
  }

  // One primitive per block width (the full block and the remainder): A [M, K] x W [K, cols] into
  // the columns of Y [M, N] (row stride N).
  void build_int8(const dnnl::primitive_attr& attr) {
    VX_CHECK(p_.a_dims.size() == 2, Unsupported, "int8 weights need a 2-D problem");
    const int64_t m = p_.y_dims[0];
    auto make = [&](int64_t cols) {
      const memory::desc w_md({p_.k, cols}, f32, memory::dims{cols, 1});
      const memory::desc y_md({m, cols}, f32, memory::dims{p_.n, 1});
      const memory::desc b_md({1, cols}, f32, memory::dims{cols, 1});
      auto desc = p_.bias.defined() ? dnnl::matmul::desc(a_md_, w_md, b_md, y_md) : dnnl::matmul::desc(a_md_, w_md, y_md);
      return Block{dnnl::matmul(dnnl::matmul::primitive_desc(desc, attr, onednn_engine())), w_md, y_md, b_md};
    };
    const int64_t full = std::min(kInt8Block, p_.n);
    blocks_[0] = make(full);
    if (p_.n % full != 0) blocks_[1] = make(p_.n % full);
  }

  void run_int8(KernelContext& ctx, memory& a_mem, Tensor& y, dnnl::stream& stream) {
    auto& engine = onednn_engine();
    if (dequantized_.size() < size_t(p_.k * kInt8Block)) dequantized_.resize(size_t(p_.k * kInt8Block));
    float* w = dequantized_.data();
    const int8_t* q = p_.w_int8.data<int8_t>();
    const float* scales = p_.w_scales.data<float>();
    for (int64_t c0 = 0; c0 < p_.n; c0 += kInt8Block) {
      const int64_t cols = std::min(kInt8Block, p_.n - c0);
      ctx.pool().parallel_for(p_.k, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const int8_t* from = q + r * p_.n + c0;
          float* to = w + r * cols;
          for (int64_t c = 0; c < cols; ++c) to[c] = float(from[c]) * scales[c0 + c];
        }
      }, 64);
      const Block& blk = cols == std::min(kInt8Block, p_.n) ? blocks_[0] : blocks_[1];
      memory w_mem(blk.w_md, engine, w), y_mem(blk.y_md, engine, y.data<float>() + c0);
      std::unordered_map<int, memory> args = {{DNNL_ARG_SRC, a_mem}, {DNNL_ARG_WEIGHTS, w_mem}, {DNNL_ARG_DST, y_mem}};
      if (p_.bias.defined())
        args[DNNL_ARG_BIAS] = memory(blk.b_md, engine, const_cast<float*>(p_.bias.data<float>() + c0));
      execute_primitive(blk.matmul, stream, std::move(args));
      stream.wait();
    }
  }

  struct Block {
    dnnl::matmul matmul;
    memory::desc w_md, y_md, b_md;
  };

  MatMulProblem p_;
  memory::desc a_md_, b_md_, y_md_, bias_md_;
  dnnl::matmul matmul_;
  std::optional<dnnl::convolution_forward::primitive_desc> conv_pd_;  // set: run as a 1x1 convolution
  dnnl::convolution_forward conv_;
  Tensor weights_source_;
  memory weights_, bias_mem_;
  Block blocks_[2];
  std::vector<float> dequantized_;  // one block of int8 weights as floats (runs are serialised)
};

bool matmul_supports_unchecked(const Node& node, const Graph& g) {
  const bool int8 = node.op == kMatMulInt8W;
  if (node.outputs.size() != 1 || !known_f32(g, node.input(0))) return false;
  // vx.FusedMatMul's residual and row normalisation (inputs 3 and 4, the Vulkan path's epilogue):
  // the reference kernel runs them.
  if (node.op == kFusedMatMul && (node.input(3) != kNoValue || node.input(4) != kNoValue)) return false;
  if (!int8 && !known_f32(g, node.input(1))) return false;
  if (node.op == "Gemm" && node.input(2) != kNoValue && !constant_of(g, node.input(2), DType::f32)) return false;
  try {
    MatMulProblem p = matmul_problem(node, g);
    for (int64_t d : p.y_dims)
      if (d == 0) return false;  // empty products: the reference writes zeros
    if (p.k == 0) return false;
    if (int8 && p.a_dims.size() != 2) return false;
    const Value& y = g.value(node.outputs[0]);
    if (y.shape.is_known() && !(y.shape == p.out)) return false;
  } catch (const Error&) {
    return false;
  }
  return true;
}

bool matmul_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return matmul_supports_unchecked(node, g); });
}

KernelFn make_matmul(const Node& node, const Graph& g) {
  auto kernel = std::make_shared<OneDnnMatMul>(node, g);
  return [kernel](KernelContext& ctx) { kernel->run(ctx); };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(matmul_onednn, {"MatMul", kOneDnnVariant, 10, matmul_supports, nullptr, make_matmul});
VX_REGISTER_CPU_KERNEL(gemm_onednn, {"Gemm", kOneDnnVariant, 10, matmul_supports, nullptr, make_matmul});
VX_REGISTER_CPU_KERNEL(fused_matmul_onednn, {kFusedMatMul, kOneDnnVariant, 10, matmul_supports, nullptr, make_matmul});
VX_REGISTER_CPU_KERNEL(matmul_int8w_onednn, {kMatMulInt8W, kOneDnnVariant, 10, matmul_supports, nullptr, make_matmul});

}  // namespace vx::cpu::fast

// vx.Attention on the CPU: scores = Q K^T (oneDNN batched matmul, K's transpose and the
// heads-interleaved "bshd" layouts read through strides, the scale as its output scale), + mask
// (one pass over the scores, broadcast by precomputed row offsets), softmax over the last axis
// (oneDNN, in place), then scores x V (oneDNN batched matmul). The scores live in a buffer the
// kernel owns (runs of one executable are serialised).
#include <algorithm>
#include <memory>

#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/fused_ops.h"

namespace vx::cpu::fast {

namespace {

std::vector<int64_t> padded(const Shape& s, size_t rank) {
  std::vector<int64_t> d = s.dims();
  d.insert(d.begin(), rank - d.size(), 1);
  return d;
}

// A stored operand as the matmuls read it: its logical dims ([..., H, S, D]) and element strides.
// "bshd" stores [..., S, H, D]: the two axes before the innermost swap places. oneDNN wants the
// strides of unit axes to be those of a dense layout.
struct Operand {
  std::vector<int64_t> dims;
  memory::dims strides;
};
Operand operand(const std::vector<int64_t>& stored, bool bshd) {
  Operand o{stored, row_major_strides(stored)};
  const size_t r = stored.size();
  if (bshd) {
    std::swap(o.dims[r - 3], o.dims[r - 2]);
    std::swap(o.strides[r - 3], o.strides[r - 2]);
  }
  return o;
}
memory::desc strided_desc(Operand o) {
  const size_t r = o.dims.size();
  for (size_t i = 0; i < r; ++i)
    if (o.dims[i] == 1) o.strides[i] = i + 1 < r ? o.strides[i + 1] * o.dims[i + 1] : 1;
  return memory::desc(o.dims, memory::data_type::f32, o.strides);
}

class OneDnnAttention {
 public:
  OneDnnAttention(const Node& node, const Graph& g) {
    const std::string what = cat(kAttention, " '", node.name, "'");
    q_shape_ = g.value(node.input(0)).shape;
    k_shape_ = g.value(node.input(1)).shape;
    v_shape_ = g.value(node.input(2)).shape;
    has_mask_ = node.input(3) != kNoValue;
    const bool k_t = node.attrs.get_int("k_transposed", 0) != 0;
    size_t rank = std::max({q_shape_.rank(), k_shape_.rank(), v_shape_.rank(), size_t(2)});
    if (has_mask_) {
      mask_shape_ = g.value(node.input(3)).shape;
      rank = std::max(rank, mask_shape_.rank());
    }
    VX_CHECK(q_shape_.rank() >= 2 && k_shape_.rank() >= 2 && v_shape_.rank() >= 2 && rank <= 12, Unsupported, what,
             ": needs operands of rank 2..12");
    // "bshd" (the folded head Transposes) swaps the two axes before the innermost.
    const bool bshd_in = attention_bshd_layout(node, "qkv_layout"), bshd_out = attention_bshd_layout(node, "out_layout");
    VX_CHECK(!bshd_in || (!k_t && q_shape_.rank() >= 3 && k_shape_.rank() >= 3 && v_shape_.rank() >= 3), Unsupported,
             what, ": qkv_layout \"bshd\" needs Q, K and V of rank >= 3 and K not transposed");
    VX_CHECK(!bshd_out || rank >= 3, Unsupported, what, ": out_layout \"bshd\" needs rank >= 3");
    const Operand qo = operand(padded(q_shape_, rank), bshd_in), ko = operand(padded(k_shape_, rank), bshd_in),
                  vo = operand(padded(v_shape_, rank), bshd_in);
    const std::vector<int64_t>& q = qo.dims;
    const std::vector<int64_t>& k = ko.dims;
    const std::vector<int64_t>& v = vo.dims;
    const int64_t sq = q[rank - 2], d = q[rank - 1];
    const int64_t sk = k_t ? k[rank - 1] : k[rank - 2], dk = k_t ? k[rank - 2] : k[rank - 1];
    VX_CHECK(dk == d && v[rank - 2] == sk, InvalidArgument, what, ": Q ", q_shape_.str(), ", K ", k_shape_.str(),
             " and V ", v_shape_.str(), " do not fit");
    std::vector<int64_t> scores(rank), out(rank);
    for (size_t i = 0; i + 2 < rank; ++i) {
      const int64_t e = std::max({q[i], k[i], v[i]});
      VX_CHECK((q[i] == e || q[i] == 1) && (k[i] == e || k[i] == 1) && (v[i] == e || v[i] == 1), InvalidArgument,
               what, ": batch extents do not broadcast");
      scores[i] = out[i] = e;
    }
    scores[rank - 2] = out[rank - 2] = sq;
    scores[rank - 1] = sk;
    out[rank - 1] = v[rank - 1];
    // K^T as oneDNN weights [..., D, Sk]: K's own strides with the last two swapped.
    Operand kt = ko;
    if (!k_t) {
      std::swap(kt.dims[rank - 2], kt.dims[rank - 1]);
      std::swap(kt.strides[rank - 2], kt.strides[rank - 1]);
    }
    q_md_ = strided_desc(qo);
    kt_md_ = strided_desc(kt);
    v_md_ = strided_desc(vo);
    s_md_ = plain_f32_desc(scores);
    // The output stored [..., Sq, H, Dv] for "bshd": written through the swapped strides.
    std::vector<int64_t> stored_out = out;
    if (bshd_out) std::swap(stored_out[rank - 3], stored_out[rank - 2]);
    Operand yo = operand(stored_out, bshd_out);
    y_md_ = strided_desc(yo);
    out_shape_ = Shape(stored_out);
    const Value& y = g.value(node.outputs[0]);
    VX_CHECK(!y.shape.is_known() || y.shape.numel() == out_shape_.numel(), InvalidArgument, what,
             ": planned output ", y.shape.str());
    if (y.shape.is_known()) out_shape_ = y.shape;
    auto& engine = onednn_engine();
    dnnl::primitive_attr attr = onednn_attr();
    attr.set_output_scales(0, {node.attrs.get_float("scale", 1.0f)});
    qk_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(q_md_, kt_md_, s_md_), attr, engine));
    pv_ = dnnl::matmul(dnnl::matmul::primitive_desc(dnnl::matmul::desc(s_md_, v_md_, y_md_), onednn_attr(), engine));
    rows_ = Shape(scores).numel() / sk;
    cols_ = sk;
    const memory::desc flat({rows_, cols_}, f32, memory::format_tag::ab);
    softmax_ = dnnl::softmax_forward(dnnl::softmax_forward::primitive_desc(
        dnnl::softmax_forward::desc(dnnl::prop_kind::forward_inference, flat, 1), onednn_attr(), engine));
    flat_md_ = flat;
    if (has_mask_) {
      // Offset of each score row's mask row, and the mask's stride along the last axis.
      const std::vector<int64_t> m = padded(mask_shape_, rank);
      for (size_t i = 0; i < rank; ++i)
        VX_CHECK(m[i] == scores[i] || m[i] == 1, InvalidArgument, what, ": mask ", mask_shape_.str(),
                 " does not broadcast onto the scores ", Shape(scores).str());
      const memory::dims ms = row_major_strides(m);
      mask_col_stride_ = m[rank - 1] == 1 ? 0 : 1;
      mask_rows_.resize(size_t(rows_));
      for (int64_t r = 0; r < rows_; ++r) {
        int64_t rest = r, offset = 0;
        for (size_t i = rank - 1; i-- > 0;) {
          const int64_t idx = rest % scores[i];
          rest /= scores[i];
          if (m[i] != 1) offset += idx * ms[i];
        }
        mask_rows_[size_t(r)] = offset;
      }
    }
  }

  void run(KernelContext& ctx) {
    const Tensor& q = ctx.input(0);
    const Tensor& k = ctx.input(1);
    const Tensor& v = ctx.input(2);
    VX_CHECK(q.shape() == q_shape_ && k.shape() == k_shape_ && v.shape() == v_shape_ &&
                 (!has_mask_ || ctx.input(3).shape() == mask_shape_),
             InvalidArgument, "inputs differ from the planned shapes");
    set_onednn_threads(ctx.pool().size());
    if (scores_.empty()) scores_.resize(size_t(rows_ * cols_));  // on first use: supports() builds one too
    auto& engine = onednn_engine();
    dnnl::stream stream(engine);
    memory q_mem(q_md_, engine, const_cast<void*>(q.raw())), k_mem(kt_md_, engine, const_cast<void*>(k.raw())),
        s_mem(s_md_, engine, scores_.data());
    execute_primitive(qk_, stream, {{DNNL_ARG_SRC, q_mem}, {DNNL_ARG_WEIGHTS, k_mem}, {DNNL_ARG_DST, s_mem}});
    stream.wait();
    if (has_mask_) {
      const float* mask = ctx.input(3).data<float>();
      float* s = scores_.data();
      ctx.pool().parallel_for(rows_, [&](int64_t begin, int64_t end) {
        for (int64_t r = begin; r < end; ++r) {
          const float* m = mask + mask_rows_[size_t(r)];
          float* row = s + r * cols_;
          for (int64_t c = 0; c < cols_; ++c) row[c] += m[c * mask_col_stride_];
        }
      }, 16);
    }
    memory flat(flat_md_, engine, scores_.data());
    execute_primitive(softmax_, stream, {{DNNL_ARG_SRC, flat}, {DNNL_ARG_DST, flat}});
    Tensor& y = ctx.output(0, DType::f32, out_shape_);
    memory v_mem(v_md_, engine, const_cast<void*>(v.raw())), y_mem(y_md_, engine, y.raw());
    execute_primitive(pv_, stream, {{DNNL_ARG_SRC, s_mem}, {DNNL_ARG_WEIGHTS, v_mem}, {DNNL_ARG_DST, y_mem}});
    stream.wait();
  }

 private:
  Shape q_shape_, k_shape_, v_shape_, mask_shape_, out_shape_;
  bool has_mask_ = false;
  memory::desc q_md_, kt_md_, v_md_, s_md_, y_md_, flat_md_;
  dnnl::matmul qk_, pv_;
  dnnl::softmax_forward softmax_;
  int64_t rows_ = 0, cols_ = 0, mask_col_stride_ = 1;
  std::vector<int64_t> mask_rows_;
  std::vector<float> scores_;
};

bool attention_supports_unchecked(const Node& node, const Graph& g) {
  if (node.outputs.size() != 1 || node.outputs[0] == kNoValue) return false;
  for (size_t i = 0; i < 3; ++i)
    if (!known_f32(g, node.input(i)) || g.value(node.input(i)).shape.numel() == 0) return false;
  if (node.input(3) != kNoValue && !known_f32(g, node.input(3))) return false;
  try {
    OneDnnAttention probe(node, g);  // cheap: primitives only, sized to the shapes
  } catch (const std::exception&) {
    return false;
  }
  return true;
}

bool attention_supports(const Node& node, const Graph& g) {
  return declines_on_error([&] { return attention_supports_unchecked(node, g); });
}

KernelFn make_attention(const Node& node, const Graph& g) {
  auto kernel = std::make_shared<OneDnnAttention>(node, g);
  return [kernel](KernelContext& ctx) { kernel->run(ctx); };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(attention_onednn, {kAttention, kOneDnnVariant, 10, attention_supports, nullptr, make_attention});

}  // namespace vx::cpu::fast

// Reference vx.FusedConv and vx.ConvPair (ops/fused_ops.h): literally the composition of the
// reference upsample, concat, conv, relu, post-ops (ops/post_ops.h), 2x2 max pool and global
// average pool (global_mean), through temporaries.
// Exact, not fast.
#include <vector>

#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/post_ops.h"

namespace vx::cpu::ref {

namespace {

// y = post_ops(relu?(y)), in place.
void relu_and_post_ops(Tensor& y, bool relu_after, const std::vector<PostOp>& post_ops) {
  if (relu_after) relu(y, y);
  float* out = y.data<float>();
  for (const PostOp& op : post_ops)
    for (int64_t i = 0; i < y.numel(); ++i) out[i] = apply_post_op(op, out[i]);
}

void fused_conv_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = node.op + " '" + node.name + "'";
  const bool residual = node.op == kFusedConvResidual;
  const bool upsample_concat = node.attrs.get_int("upsample_concat", 0) != 0;
  const bool relu_after = node.attrs.get_int("relu", 0) != 0;
  const bool pool_after = node.attrs.get_int("pool", 0) != 0;
  const std::vector<PostOp> post_ops = read_post_ops(node.attrs, what);
  VX_CHECK(post_ops.empty() || !pool_after, InvalidArgument, what, ": post-ops with a pool");
  const size_t w_at = upsample_concat ? 2 : 1;
  VX_CHECK(ctx.has_input(0) && ctx.has_input(w_at) && (!upsample_concat || ctx.has_input(1)), InvalidArgument, what,
           ": missing inputs");
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    VX_CHECK(!ctx.has_input(i) || ctx.input(i).dtype() == DType::f32, Unsupported, what,
             ": only float32 is supported");
  Tensor x = ctx.input(0);
  if (upsample_concat) {
    const Tensor& low = ctx.input(0);
    const Tensor& skip = ctx.input(1);
    VX_CHECK(low.rank() == 4 && skip.rank() == 4 && low.dim(0) == skip.dim(0) && low.dim(2) * 2 == skip.dim(2) &&
                 low.dim(3) * 2 == skip.dim(3),
             InvalidArgument, what, ": X_low ", low.shape().str(), " and X_skip ", skip.shape().str(),
             " do not fit a 2x upsample");
    Tensor up(DType::f32, Shape({low.dim(0), low.dim(1), skip.dim(2), skip.dim(3)}));
    resize_nearest(low, {1.0, 1.0, 2.0, 2.0}, "asymmetric", "floor", up);
    x = Tensor(DType::f32, Shape({low.dim(0), low.dim(1) + skip.dim(1), skip.dim(2), skip.dim(3)}));
    concat({&up, &skip}, 1, x);
  }
  const Tensor& w = ctx.input(w_at);
  const Tensor* b = ctx.has_input(w_at + 1) ? &ctx.input(w_at + 1) : nullptr;
  WindowGeometry g = conv_geometry(node.attrs, x.shape(), w.shape(), what);
  std::vector<int64_t> conv_out = {x.dim(0), w.dim(0)};
  conv_out.insert(conv_out.end(), g.output.begin(), g.output.end());
  const bool global_mean = node.attrs.get_int("global_mean", 0) != 0;
  VX_CHECK(!global_mean || (!pool_after && !upsample_concat), InvalidArgument, what,
           ": global_mean with pool or upsample_concat");
  if (!pool_after) {
    Tensor full;  // the convolution's result where the output is its mean
    if (global_mean) full = Tensor(DType::f32, Shape(conv_out));
    Tensor& y = global_mean ? full : ctx.output(0, DType::f32, Shape(conv_out));
    conv(x, w, b, g, node.attrs.get_int("group", 1), y, ctx.pool());
    if (residual) {  // Y += R before the ReLU
      VX_CHECK(!upsample_concat && ctx.has_input(3) && ctx.input(3).shape() == y.shape(), InvalidArgument, what,
               ": the residual must have the output's shape ", y.shape().str());
      const float* r = ctx.input(3).data<float>();
      float* out = y.data<float>();
      for (int64_t i = 0; i < y.numel(); ++i) out[i] = float(double(out[i]) + double(r[i]));
    }
    relu_and_post_ops(y, relu_after, post_ops);
    if (global_mean) {
      std::vector<int64_t> means(conv_out.size(), 1);
      means[0] = conv_out[0];
      means[1] = conv_out[1];
      global_average_pool(y, ctx.output(0, DType::f32, Shape(means)));
    }
    return;
  }
  VX_CHECK(!residual, InvalidArgument, what, ": pool with a residual");
  VX_CHECK(conv_out.size() == 4 && conv_out[2] >= 2 && conv_out[3] >= 2, InvalidArgument, what,
           ": pool needs a 2-D convolution output of at least 2x2, got ", Shape(conv_out).str());
  Tensor full(DType::f32, Shape(conv_out));
  conv(x, w, b, g, node.attrs.get_int("group", 1), full, ctx.pool());
  if (relu_after) relu(full, full);
  Attributes pool_attrs;
  pool_attrs.set("kernel_shape", std::vector<int64_t>{2, 2});
  pool_attrs.set("strides", std::vector<int64_t>{2, 2});
  WindowGeometry pg = window_geometry(pool_attrs, {conv_out[2], conv_out[3]}, {}, false, what);
  Tensor& y = ctx.output(0, DType::f32, Shape({conv_out[0], conv_out[1], pg.output[0], pg.output[1]}));
  max_pool(full, pg, y);
}

// vx.ConvPair: conv1 (1x1, + B1, first_relu?) into a temporary, then conv2 as vx.FusedConv.
void conv_pair_kernel(KernelContext& ctx) {
  const Node& node = ctx.node();
  const std::string what = node.op + " '" + node.name + "'";
  VX_CHECK(ctx.has_input(0) && ctx.has_input(1) && ctx.has_input(3), InvalidArgument, what, ": missing inputs");
  for (size_t i = 0; i < ctx.num_inputs(); ++i)
    VX_CHECK(!ctx.has_input(i) || ctx.input(i).dtype() == DType::f32, Unsupported, what, ": only float32 is supported");
  const std::vector<PostOp> post_ops = read_post_ops(node.attrs, what);
  const Tensor& x = ctx.input(0);
  const Tensor& w1 = ctx.input(1);
  const Tensor& w2 = ctx.input(3);
  const WindowGeometry g1 = conv_geometry(Attributes{}, x.shape(), w1.shape(), what);
  std::vector<int64_t> mid_shape = {x.dim(0), w1.dim(0)};
  mid_shape.insert(mid_shape.end(), g1.output.begin(), g1.output.end());
  Tensor mid(DType::f32, Shape(mid_shape));
  conv(x, w1, ctx.has_input(2) ? &ctx.input(2) : nullptr, g1, 1, mid, ctx.pool());
  if (node.attrs.get_int("first_relu", 0) != 0) relu(mid, mid);
  const WindowGeometry g2 = conv_geometry(node.attrs, mid.shape(), w2.shape(), what);
  std::vector<int64_t> y_shape = {x.dim(0), w2.dim(0)};
  y_shape.insert(y_shape.end(), g2.output.begin(), g2.output.end());
  Tensor& y = ctx.output(0, DType::f32, Shape(y_shape));
  conv(mid, w2, ctx.has_input(4) ? &ctx.input(4) : nullptr, g2, node.attrs.get_int("group", 1), y, ctx.pool());
  relu_and_post_ops(y, node.attrs.get_int("relu", 0) != 0, post_ops);
}

}  // namespace

VX_REGISTER_CPU_KERNEL(conv_pair_reference, {kConvPair, "reference", 0, nullptr, conv_pair_kernel});
VX_REGISTER_CPU_KERNEL(fused_conv_reference, {kFusedConv, "reference", 0, nullptr, fused_conv_kernel});
VX_REGISTER_CPU_KERNEL(fused_conv_residual_reference, {kFusedConvResidual, "reference", 0, nullptr, fused_conv_kernel});

}  // namespace vx::cpu::ref

// Shape functions of the ops Volvox's passes create (fused_ops.h), next to ONNX's
// (onnx_shape_fns.cpp): shape inference, the importer and every backend read them from here.
#include <algorithm>

#include "core/error.h"
#include "ops/fused_ops.h"
#include "ops/shape_fn.h"
#include "ops/shape_rules.h"
#include "ops/window_geometry.h"

namespace vx {

bool attention_bshd_layout(const Node& node, const char* attr) {
  const std::string layout = node.attrs.get_string(attr, "bhsd");
  VX_CHECK(layout == "bhsd" || layout == "bshd", InvalidArgument, kAttention, " '", node.name, "': ", attr, " '",
           layout, "' (want \"bhsd\" or \"bshd\")");
  return layout == "bshd";
}

namespace {

// `s` with the two axes before the innermost swapped ("bshd" <-> "bhsd").
Shape swap_middle(const Shape& s, const Node& node, const char* what) {
  VX_CHECK(s.rank() >= 3, InvalidArgument, kAttention, " '", node.name, "': layout \"bshd\" needs ", what,
           " of rank >= 3, got ", s.str());
  std::vector<int64_t> d = s.dims();
  std::swap(d[d.size() - 3], d[d.size() - 2]);
  return Shape(d);
}

// The batch axes of a [..., S, D] operand.
Shape batch_of(const Shape& s) { return Shape(std::vector<int64_t>(s.dims().begin(), s.dims().end() - 2)); }

// vx.Attention: [batch..., Sq, Dv], the batch extents of Q, K and V broadcast (each read as
// [..., H, S, D] when qkv_layout is "bshd"; the output stored as [..., Sq, H, Dv] when out_layout is
// "bshd").
bool attention_shape(const Node& node, Graph& graph) {
  const bool bshd_in = attention_bshd_layout(node, "qkv_layout"), bshd_out = attention_bshd_layout(node, "out_layout");
  VX_CHECK(!bshd_in || node.attrs.get_int("k_transposed", 0) == 0, InvalidArgument, kAttention, " '", node.name,
           "': qkv_layout \"bshd\" needs k_transposed = 0");
  auto logical = [&](size_t i, const char* what) {
    const Shape& s = graph.value(node.input(i)).shape;
    return bshd_in ? swap_middle(s, node, what) : s;
  };
  const Shape q = logical(0, "Q"), k = logical(1, "K"), v = logical(2, "V");
  VX_CHECK(q.rank() >= 2 && k.rank() >= 2 && v.rank() >= 2, InvalidArgument, kAttention, " '", node.name,
           "': operands need rank >= 2");
  std::vector<int64_t> out =
      broadcast_shapes({batch_of(q), batch_of(k), batch_of(v)}, cat(kAttention, " '", node.name, "' batch axes")).dims();
  out.push_back(q[q.rank() - 2]);
  out.push_back(v[v.rank() - 1]);
  Value& y = graph.value(node.outputs[0]);
  y.shape = bshd_out ? swap_middle(Shape(out), node, "the output") : Shape(out);
  y.dtype = graph.value(node.input(0)).dtype;
  return true;
}

// vx.FusedConvResidual: vx.FusedConv's shape of inputs X, W, B.
bool residual_shape(const Node& node, Graph& graph) {
  const ShapeFn* conv = find_shape_fn(kFusedConv);
  if (conv == nullptr) return false;
  Node plain = node;
  plain.inputs.resize(3);
  return (*conv)(plain, graph);
}

// vx.ConvPair: conv2's output over conv1's [N, M1, spatial...] (conv1 a 1x1 convolution, stride 1).
bool conv_pair_shape(const Node& node, Graph& graph) {
  const std::string what = std::string(kConvPair) + " '" + node.name + "'";
  VX_CHECK(node.inputs.size() >= 4 && node.input(0) != kNoValue && node.input(1) != kNoValue && node.input(3) != kNoValue,
           InvalidArgument, what, ": needs X, W1, (B1,) W2");
  const Shape& x = graph.value(node.input(0)).shape;
  const Shape& w1 = graph.value(node.input(1)).shape;
  const Shape& w2 = graph.value(node.input(3)).shape;
  VX_CHECK(x.rank() >= 3 && w1.rank() == x.rank() && w2.rank() == x.rank() && w1[1] == x[1], InvalidArgument, what,
           ": X ", x.str(), ", W1 ", w1.str(), " and W2 ", w2.str(), " are no two convolutions in a row");
  for (size_t i = 2; i < w1.rank(); ++i) VX_CHECK(w1[i] == 1, InvalidArgument, what, ": W1 ", w1.str(), " is not 1x1");
  const int64_t group = node.attrs.get_int("group", 1);
  VX_CHECK(group >= 1 && w2[1] * group == w1[0], InvalidArgument, what, ": W2 ", w2.str(), " does not read the ",
           w1[0], " channels of conv1 in group ", group);
  const WindowGeometry g = window_geometry(node.attrs, std::vector<int64_t>(x.begin() + 2, x.end()),
                                           std::vector<int64_t>(w2.begin() + 2, w2.end()), false, what);
  std::vector<int64_t> y = {x[0], w2[0]};
  y.insert(y.end(), g.output.begin(), g.output.end());
  Value& out = graph.value(node.outputs[0]);
  out.shape = Shape(y);
  out.dtype = graph.value(node.input(0)).dtype;
  return true;
}

// vx.FusedMatMul / vx.MatMulInt8W: the MatMul's shape of inputs 0 and 1, A's dtype.
bool matmul_like_shape(const Node& node, Graph& graph) {
  const ShapeFn* matmul = find_shape_fn("MatMul");
  if (matmul == nullptr) return false;
  Node plain = node;
  plain.inputs.resize(2);
  return (*matmul)(plain, graph);
}

}  // namespace

VX_REGISTER_SHAPE_FN(vx_attention, kAttention, attention_shape);
VX_REGISTER_SHAPE_FN(fused_conv_residual, kFusedConvResidual, residual_shape);
VX_REGISTER_SHAPE_FN(conv_pair, kConvPair, conv_pair_shape);
VX_REGISTER_SHAPE_FN(fused_matmul, kFusedMatMul, matmul_like_shape);
VX_REGISTER_SHAPE_FN(matmul_int8w, kMatMulInt8W, matmul_like_shape);
VX_REGISTER_SHAPE_FN(vx_gelu, kGelu, same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(vx_layer_norm, kLayerNorm, same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(vx_excite, kExcite, same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(vx_elementwise_chain, kElementwiseChain, same_shape_as_first_input);
VX_REGISTER_SHAPE_FN(vx_fake_quantize, kFakeQuantize, same_shape_as_first_input);

}  // namespace vx

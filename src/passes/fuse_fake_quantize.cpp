#include "passes/fuse_fake_quantize.h"

#include "ops/fused_ops.h"
#include "passes/fuse_pattern_util.h"

namespace vx {
namespace {

using namespace pattern;

struct QuantParams {
  float scale = 0;
  int64_t zero_point = 0, qmin = 0, qmax = 255;
};

// The pair's parameters: a constant scale of one float32 and a constant uint8 / int8 zero point
// of one value (uint8 0 when absent); nullopt otherwise.
std::optional<QuantParams> per_tensor_params(const Graph& g, const Node& n) {
  const ValueId s = n.input(1), z = n.input(2);
  if (s == kNoValue || !g.value(s).is_constant()) return std::nullopt;
  const Tensor& scale = g.value(s).constant;
  if (scale.dtype() != DType::f32 || scale.numel() != 1 || scale.rank() > 1) return std::nullopt;
  QuantParams p;
  p.scale = scale.data<float>()[0];
  if (z == kNoValue) return p;
  if (!g.value(z).is_constant()) return std::nullopt;
  const Tensor& zero = g.value(z).constant;
  if (zero.numel() != 1 || zero.rank() > 1) return std::nullopt;
  if (zero.dtype() == DType::u8) {
    p.zero_point = zero.data<uint8_t>()[0];
  } else if (zero.dtype() == DType::i8) {
    p.zero_point = zero.data<int8_t>()[0];
    p.qmin = -128;
    p.qmax = 127;
  } else {
    return std::nullopt;
  }
  return p;
}

bool same(const QuantParams& a, const QuantParams& b) {
  return a.scale == b.scale && a.zero_point == b.zero_point && a.qmin == b.qmin && a.qmax == b.qmax;
}

}  // namespace

Graph fuse_fake_quantize(Graph graph) {
  Index ix(graph);
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    const Node& q = graph.nodes[i];
    if (ix.taken[i] || !is_op(q, "QuantizeLinear") || q.outputs.size() != 1 || q.input(0) == kNoValue ||
        graph.value(q.input(0)).dtype != DType::f32)
      continue;
    const std::optional<QuantParams> params = per_tensor_params(graph, q);
    const int d = sole_consumer_op(graph, ix, q.outputs[0], "DequantizeLinear");
    if (!params || d < 0 || graph.nodes[size_t(d)].input(0) != q.outputs[0]) continue;
    const std::optional<QuantParams> dq_params = per_tensor_params(graph, graph.nodes[size_t(d)]);
    if (!dq_params || !same(*params, *dq_params)) continue;
    ix.taken[i] = true;  // the Q goes; the DQ stays, as the vx.FakeQuantize
    Node& out = graph.nodes[size_t(d)];
    out.op = kFakeQuantize;
    out.domain.clear();
    out.inputs = {q.input(0)};
    out.attrs = Attributes();
    out.attrs.set("scale", params->scale);
    out.attrs.set("zero_point", params->zero_point);
    out.attrs.set("qmin", params->qmin);
    out.attrs.set("qmax", params->qmax);
  }
  erase_marked_nodes(graph, ix.taken);
  return graph;
}

}  // namespace vx

#include "passes/post_op_steps.h"

#include <cmath>
#include <limits>

#include "ops/fused_ops.h"

namespace vx {
namespace {

constexpr float kUnbounded = std::numeric_limits<float>::max();

// A one-element f32 constant that does not raise the rank of a value of rank `rank` by broadcasting.
std::optional<float> scalar_operand(const Graph& g, ValueId id, size_t rank) {
  if (id == kNoValue || !g.value(id).is_constant()) return std::nullopt;
  const Tensor& t = g.value(id).constant;
  if (t.dtype() != DType::f32 || t.numel() != 1 || t.rank() > rank) return std::nullopt;
  return t.data<float>()[0];
}

// Clip's bounds: constant inputs (opset 11+; absent = unbounded) or attributes.
std::optional<PostOp> clip_step(const Graph& g, const Node& clip, size_t rank) {
  PostOp op{PostOpKind::clip, -kUnbounded, kUnbounded};
  if (clip.inputs.size() <= 1) {
    op.alpha = clip.attrs.get_float("min", -kUnbounded);
    op.beta = clip.attrs.get_float("max", kUnbounded);
    return op;
  }
  for (size_t i : {size_t(1), size_t(2)}) {
    if (clip.input(i) == kNoValue) continue;
    const std::optional<float> v = scalar_operand(g, clip.input(i), rank);
    if (!v) return std::nullopt;
    (i == 1 ? op.alpha : op.beta) = *v;
  }
  return op;
}

}  // namespace

std::optional<std::vector<PostOp>> post_op_steps(const Graph& g, const Node& n, ValueId x, size_t rank) {
  if (!n.domain.empty() || n.outputs.size() != 1 || n.input(0) == kNoValue) return std::nullopt;
  if (n.op == "Relu") return std::vector<PostOp>{{PostOpKind::relu, 0.0f, 0.0f}};
  if (n.op == "LeakyRelu") return std::vector<PostOp>{{PostOpKind::relu, n.attrs.get_float("alpha", 0.01f), 0.0f}};
  if (n.op == "HardSwish") return std::vector<PostOp>{{PostOpKind::hard_swish, 0.0f, 0.0f}};
  if (n.op == "Sigmoid") return std::vector<PostOp>{{PostOpKind::logistic, 0.0f, 0.0f}};
  if (n.op == "Tanh") return std::vector<PostOp>{{PostOpKind::tanh, 0.0f, 0.0f}};
  if (n.op == "Log") return std::vector<PostOp>{{PostOpKind::log, 0.0f, 0.0f}};
  if (n.op == "Exp") return std::vector<PostOp>{{PostOpKind::exp, 0.0f, 0.0f}};
  if (n.op == "Neg") return std::vector<PostOp>{{PostOpKind::linear, -1.0f, 0.0f}};
  if (n.op == kFakeQuantize) {
    // (clamp(round(x / s) + z, qmin, qmax) - z) * s = clamp(round(x / s), qmin - z, qmax - z) * s for
    // an integer z: two scales without shift (oneDNN runs the second as a pow step).
    const float s = n.attrs.get_float("scale", 0.0f);
    const int64_t z = n.attrs.get_int("zero_point", 0);
    if (!(s > 0.0f) || !std::isfinite(1.0f / s)) return std::nullopt;
    return std::vector<PostOp>{
        {PostOpKind::linear, 1.0f / s, 0.0f},
        {PostOpKind::round, 0.0f, 0.0f},
        {PostOpKind::clip, float(n.attrs.get_int("qmin", 0) - z), float(n.attrs.get_int("qmax", 255) - z)},
        {PostOpKind::linear, s, 0.0f}};
  }
  if (n.op == "Cast" && g.value(x).dtype == DType::f32 && n.attrs.get_int("to", 0) == 1)  // to float: no step
    return std::vector<PostOp>{};
  if (n.op == "HardSigmoid")
    return std::vector<PostOp>{{PostOpKind::linear, n.attrs.get_float("alpha", 0.2f), n.attrs.get_float("beta", 0.5f)},
                               {PostOpKind::clip, 0.0f, 1.0f}};
  if (n.op == "Clip") {
    if (n.input(0) != x) return std::nullopt;
    const std::optional<PostOp> op = clip_step(g, n, rank);
    if (!op) return std::nullopt;
    return std::vector<PostOp>{*op};
  }
  if ((n.op != "Mul" && n.op != "Div" && n.op != "Add" && n.op != "Sub" && n.op != "Max" && n.op != "Min") ||
      n.inputs.size() != 2)
    return std::nullopt;
  const bool x_first = n.inputs[0] == x;
  if (n.inputs[x_first ? 0 : 1] != x) return std::nullopt;
  const std::optional<float> c = scalar_operand(g, n.inputs[x_first ? 1 : 0], rank);
  if (!c) return std::nullopt;
  if (n.op == "Max") return std::vector<PostOp>{{PostOpKind::clip, *c, kUnbounded}};  // tf2onnx's lower bounds
  if (n.op == "Min") return std::vector<PostOp>{{PostOpKind::clip, -kUnbounded, *c}};
  PostOp op{PostOpKind::linear, 1.0f, 0.0f};
  if (n.op == "Mul") {
    op.alpha = *c;
  } else if (n.op == "Div") {
    if (!x_first || *c == 0.0f) return std::nullopt;
    op.alpha = 1.0f / *c;
  } else if (n.op == "Add") {
    op.beta = *c;
  } else {
    op = x_first ? PostOp{PostOpKind::linear, 1.0f, -*c} : PostOp{PostOpKind::linear, -1.0f, *c};
  }
  return std::vector<PostOp>{op};
}

void append_post_op(std::vector<PostOp>& ops, const PostOp& step) {
  if (step.kind == PostOpKind::linear && !ops.empty() && ops.back().kind == PostOpKind::linear) {
    PostOp& last = ops.back();  // (a x + b) * c + d
    last.beta = last.beta * step.alpha + step.beta;
    last.alpha *= step.alpha;
    return;
  }
  ops.push_back(step);
}

}  // namespace vx

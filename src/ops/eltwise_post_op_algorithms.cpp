#include "ops/eltwise_post_op_algorithms.h"

#include <map>
#include <utility>

namespace vx {

namespace {

// The algorithms that compute `op`, preferred first.
std::vector<EltwiseAlgorithm> candidates(const PostOp& op) {
  switch (op.kind) {
    case PostOpKind::linear:
      if (op.beta == 0.0f) return {EltwiseAlgorithm::linear, EltwiseAlgorithm::pow};
      return {EltwiseAlgorithm::linear};
    case PostOpKind::clip: return {EltwiseAlgorithm::clip_v2, EltwiseAlgorithm::clip};
    case PostOpKind::relu: return {EltwiseAlgorithm::relu};
    case PostOpKind::hard_swish: return {EltwiseAlgorithm::hard_swish};
    case PostOpKind::logistic: return {EltwiseAlgorithm::logistic};
    case PostOpKind::tanh: return {EltwiseAlgorithm::tanh};
    case PostOpKind::log: return {EltwiseAlgorithm::log};
    case PostOpKind::exp: return {EltwiseAlgorithm::exp};
    case PostOpKind::round: return {EltwiseAlgorithm::round};
  }
  return {};
}

}  // namespace

std::optional<std::vector<EltwiseAlgorithm>> eltwise_post_op_algorithms(bool relu, const std::vector<PostOp>& ops) {
  std::map<EltwiseAlgorithm, std::pair<float, float>> taken;  // the parameters each algorithm runs with
  if (relu) taken[EltwiseAlgorithm::relu] = {0.0f, 0.0f};
  std::vector<EltwiseAlgorithm> out;
  for (const PostOp& op : ops) {
    if (relu && out.empty() && op.kind == PostOpKind::relu) {  // on the ReLU's output: the identity, any alpha
      out.push_back(EltwiseAlgorithm::relu);
      continue;
    }
    bool placed = false;
    for (EltwiseAlgorithm a : candidates(op)) {
      const auto it = taken.find(a);
      if (it != taken.end() && it->second != std::pair{op.alpha, op.beta}) continue;
      taken[a] = {op.alpha, op.beta};
      out.push_back(a);
      placed = true;
      break;
    }
    if (!placed) return std::nullopt;
  }
  return out;
}

}  // namespace vx

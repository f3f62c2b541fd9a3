#include "ops/post_ops.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "core/error.h"

namespace vx {
namespace {

constexpr std::array<std::pair<PostOpKind, const char*>, 9> kNames = {{{PostOpKind::linear, "linear"},
                                                                      {PostOpKind::clip, "clip"},
                                                                      {PostOpKind::relu, "relu"},
                                                                      {PostOpKind::hard_swish, "hard_swish"},
                                                                      {PostOpKind::logistic, "logistic"},
                                                                      {PostOpKind::tanh, "tanh"},
                                                                      {PostOpKind::log, "log"},
                                                                      {PostOpKind::exp, "exp"},
                                                                      {PostOpKind::round, "round"}}};

}  // namespace

std::vector<PostOp> read_post_ops(const Attributes& attrs, const std::string& what) {
  const std::vector<std::string> names = attrs.get_strings("post_ops");
  const std::vector<float> alpha = attrs.get_floats("post_alpha"), beta = attrs.get_floats("post_beta");
  VX_CHECK(alpha.size() == names.size() && beta.size() == names.size(), InvalidArgument, what, ": ", names.size(),
           " post_ops with ", alpha.size(), " post_alpha and ", beta.size(), " post_beta");
  std::vector<PostOp> ops;
  for (size_t i = 0; i < names.size(); ++i) {
    const auto it = std::find_if(kNames.begin(), kNames.end(), [&](const auto& e) { return names[i] == e.second; });
    VX_CHECK(it != kNames.end(), InvalidArgument, what, ": unknown post-op '", names[i], "'");
    ops.push_back({it->first, alpha[i], beta[i]});
  }
  return ops;
}

void write_post_ops(Attributes& attrs, const std::vector<PostOp>& ops) {
  std::vector<std::string> names;
  std::vector<float> alpha, beta;
  for (const PostOp& op : ops) {
    names.push_back(std::find_if(kNames.begin(), kNames.end(), [&](const auto& e) { return op.kind == e.first; })->second);
    alpha.push_back(op.alpha);
    beta.push_back(op.beta);
  }
  attrs.set("post_ops", names);
  attrs.set("post_alpha", alpha);
  attrs.set("post_beta", beta);
}

float apply_post_op(const PostOp& op, float x) {
  switch (op.kind) {
    case PostOpKind::linear: return op.alpha * x + op.beta;
    case PostOpKind::clip: return std::min(std::max(x, op.alpha), op.beta);
    case PostOpKind::relu: return x > 0.0f ? x : op.alpha * x;
    case PostOpKind::hard_swish: return x * std::min(std::max(x / 6.0f + 0.5f, 0.0f), 1.0f);
    case PostOpKind::logistic: return 1.0f / (1.0f + std::exp(-x));
    case PostOpKind::tanh: return std::tanh(x);
    case PostOpKind::log: return std::log(x);
    case PostOpKind::exp: return std::exp(x);
    case PostOpKind::round: return std::nearbyint(x);  // the default rounding mode: ties to even
  }
  return x;
}

}  // namespace vx

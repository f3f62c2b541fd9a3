#include "backends/cpu/host_kernel_context.h"

#include "core/error.h"

namespace vx {

const Tensor& HostKernelContext::input(size_t i) const {
  VX_CHECK(has_input(i), InvalidArgument, "input ", i, " is missing");
  const Tensor& t = values_[size_t(node_.inputs[i])];
  VX_CHECK(t.defined(), Internal, "input ", i, " ('", graph_.value(node_.inputs[i]).name, "') was never computed");
  return t;
}

Tensor& HostKernelContext::output(size_t i, DType dtype, const Shape& shape) {
  VX_CHECK(i < node_.outputs.size(), Internal, "output ", i, " requested but the node has ", node_.outputs.size());
  if (node_.outputs[i] == kNoValue) {  // an omitted optional output: compute into a scratch tensor
    scratch_.emplace_back(dtype, shape);
    return scratch_.back();
  }
  Tensor& t = values_[size_t(node_.outputs[i])];
  t = Tensor(dtype, shape);
  return t;
}

}  // namespace vx

// Reference element-wise activations: Relu.
#include "backends/cpu/kernel_registry.h"
#include "backends/cpu/reference/reference_ops.h"
#include "core/error.h"

namespace vx::cpu::ref {

void relu(const Tensor& x, Tensor& y) {
  VX_CHECK(x.numel() == y.numel(), InvalidArgument, "relu: X ", x.shape().str(), " and Y ", y.shape().str(),
           " differ in size");
  const float* xp = x.data<float>();
  float* yp = y.data<float>();
  for (int64_t i = 0; i < x.numel(); ++i) yp[i] = xp[i] > 0.0f ? xp[i] : 0.0f;
}

namespace {
void relu_kernel(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  VX_CHECK(x.dtype() == DType::f32, Unsupported, "Relu '", ctx.node().name, "': only float32 is supported");
  relu(x, ctx.output(0, DType::f32, x.shape()));
}
}  // namespace

VX_REGISTER_CPU_KERNEL(relu_reference, {"Relu", "reference", 0, nullptr, relu_kernel});

}  // namespace vx::cpu::ref

// Einsum on Vulkan (einsum.comp): the equation (ops/einsum_equation.h, as the CPU reference reads
// it) becomes a label table when planning (extents, per-operand strides); the shader runs one
// invocation per output element and sums the product of the operands over the remaining labels.
// Floats only, up to 4 operands.
#include <algorithm>
#include <cstring>

#include "backends/vulkan/kernels/op_args.h"
#include "ops/einsum_equation.h"

namespace vx::vk {
namespace {

constexpr size_t kMaxOperands = 4;

struct EinsumPush {
  uint32_t count = 0;
  int32_t operands = 0, out_labels = 0, labels = 0;
  uint32_t summed = 1;
};

OpPlan plan_einsum(const OpInfo& info) {
  require_inputs(info, info.inputs.size());
  std::vector<Shape> shapes;
  for (const OpTensor& x : info.inputs) shapes.push_back(x.shape);
  const EinsumEquation eq = parse_einsum_equation(info.node.attrs.get_string("equation", ""), shapes, label(info));
  const size_t n = shapes.size();
  VX_CHECK(n <= kMaxOperands, Unsupported, label(info), ": ", n, " operands (at most ", kMaxOperands, ")");
  const OpTensor& y = info.outputs[0];
  for (const OpTensor& x : info.inputs)
    VX_CHECK(is_float(x.dtype) && x.device == y.device, Unsupported, label(info), ": floats only");
  const size_t labels = eq.labels.size();

  std::vector<int32_t> table(labels * (1 + n), 0);
  int64_t out_count = 1, summed = 1;
  for (size_t k = 0; k < labels; ++k) {
    const int64_t e = eq.extents[k];
    table[k] = int32_t(std::max<int64_t>(e, 1));
    (k < eq.output_rank ? out_count : summed) *= e;
  }
  VX_CHECK(out_count == y.shape.numel(), InvalidArgument, label(info), ": output shape ", y.shape.str(),
           " does not match the equation");
  for (size_t i = 0; i < n; ++i) {
    checked_count32(info, shapes[i].numel());
    for (size_t k = 0; k < labels; ++k) table[labels * (1 + i) + k] = int32_t(eq.strides[i][k]);
  }
  EinsumPush push;
  push.count = checked_count32(info, out_count);
  push.operands = int32_t(n);
  push.out_labels = int32_t(eq.output_rank);
  push.labels = int32_t(labels);
  push.summed = checked_count32(info, summed);
  OpPlan plan;
  std::vector<uint8_t> blob(std::max<size_t>(table.size(), 1) * sizeof(int32_t), 0);
  std::memcpy(blob.data(), table.data(), blob.size());
  plan.constants.push_back(std::move(blob));
  std::vector<Binding> bindings;
  for (size_t i = 0; i < kMaxOperands; ++i) bindings.push_back(Binding::in(int(i < n ? i : 0)));
  bindings.push_back(Binding::constant_blob(0));
  bindings.push_back(Binding::out(0));
  plan.dispatches.push_back(make_dispatch(shader_variant("einsum", {y.device}), bindings, push, push.count));
  return plan;
}

}  // namespace

VX_REGISTER_VK_OP(einsum, {"Einsum", "", 0, plan_einsum});

}  // namespace vx::vk

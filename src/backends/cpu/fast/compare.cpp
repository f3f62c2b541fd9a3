// Equal, Less, LessOrEqual, Greater and GreaterOrEqual on f32, i32 or i64 operands of one type,
// where one operand holds a single value or both have the same shape (a mask against a constant, a
// sample rate against 16000, two same-shape tensors): one flat loop over the thread pool, which
// the compiler vectorises, with the reference's own comparisons (so NaN compares as it does
// there). Other broadcasts, and runs whose input shapes differ from these cases, go to the
// reference kernel; shapes unknown when planning are looked at when the node runs.
#include <algorithm>
#include <cstdint>

#include "backends/cpu/fast/onednn_common.h"
#include "backends/cpu/kernel_registry.h"
#include "core/error.h"
#include "ops/shape_rules.h"

namespace vx::cpu::fast {
namespace {

enum class Compare { eq, lt, le, gt, ge };

constexpr int64_t kCompareBlock = 4096;  // elements per task: ~16 KiB of f32 input

template <Compare kind, typename T>
inline uint8_t compare_value(T a, T b) {
  if constexpr (kind == Compare::eq) return a == b;
  else if constexpr (kind == Compare::lt) return a < b;
  else if constexpr (kind == Compare::le) return a <= b;
  else if constexpr (kind == Compare::gt) return a > b;
  else return a >= b;
}

// out[i] = a[i * sa] op b[i * sb], i in [begin, end); a stride of 0 holds one value.
template <Compare kind, typename T, int sa, int sb>
void compare_range(const T* a, const T* b, uint8_t* out, int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) out[i] = compare_value<kind>(a[i * sa], b[i * sb]);
}

// Whether these operand shapes are the flat cases: the same shape, or one of them one value (it
// broadcasts to the other's shape only if its rank is not higher).
bool flat_case(const Shape& a, const Shape& b) {
  if (a == b) return true;
  if (a.numel() == 1 && a.rank() <= b.rank()) return true;
  return b.numel() == 1 && b.rank() <= a.rank();
}

bool compare_supports(const Node& node, const Graph& g) {
  if (node.inputs.size() != 2 || node.outputs.size() != 1 || node.inputs[0] == kNoValue || node.inputs[1] == kNoValue)
    return false;
  const Value& a = g.value(node.inputs[0]);
  const Value& b = g.value(node.inputs[1]);
  if (a.dtype != b.dtype || (a.dtype != DType::f32 && a.dtype != DType::i32 && a.dtype != DType::i64)) return false;
  // Shapes known when planning must be a flat case; unknown ones are looked at per run.
  return !(a.shape.is_known() && b.shape.is_known()) || flat_case(a.shape, b.shape);
}

template <Compare kind, typename T>
void compare_flat(ThreadPool& pool, const Tensor& x, const Tensor& y, Tensor& out) {
  const T* a = x.data<T>();
  const T* b = y.data<T>();
  uint8_t* o = static_cast<uint8_t*>(out.raw());
  const int64_t n = out.numel(), blocks = (n + kCompareBlock - 1) / kCompareBlock;
  const bool a_one = x.numel() == 1 && n != 1, b_one = y.numel() == 1 && n != 1;
  pool.parallel_for(blocks, [&](int64_t b0, int64_t b1) {
    const int64_t begin = b0 * kCompareBlock, end = std::min(n, b1 * kCompareBlock);
    if (a_one) compare_range<kind, T, 0, 1>(a, b, o, begin, end);
    else if (b_one) compare_range<kind, T, 1, 0>(a, b, o, begin, end);
    else compare_range<kind, T, 1, 1>(a, b, o, begin, end);
  }, 16);
}

template <Compare kind>
KernelFn make_compare(const Node& node, const Graph&) {
  return [reference = reference_kernel_of(node)](KernelContext& ctx) {
    const Tensor& x = ctx.input(0);
    const Tensor& y = ctx.input(1);
    if (x.dtype() != y.dtype() || !flat_case(x.shape(), y.shape())) return reference(ctx);
    Tensor& out = ctx.output(0, DType::boolean, broadcast_shapes(x.shape(), y.shape()));
    if (out.numel() == 0) return;
    switch (x.dtype()) {
      case DType::f32: return compare_flat<kind, float>(ctx.pool(), x, y, out);
      case DType::i32: return compare_flat<kind, int32_t>(ctx.pool(), x, y, out);
      case DType::i64: return compare_flat<kind, int64_t>(ctx.pool(), x, y, out);
      default: return reference(ctx);
    }
  };
}

}  // namespace

VX_REGISTER_CPU_KERNEL(equal_fast, {"Equal", kFastVariant, 10, compare_supports, nullptr, make_compare<Compare::eq>});
VX_REGISTER_CPU_KERNEL(less_fast, {"Less", kFastVariant, 10, compare_supports, nullptr, make_compare<Compare::lt>});
VX_REGISTER_CPU_KERNEL(less_equal_fast, {"LessOrEqual", kFastVariant, 10, compare_supports, nullptr, make_compare<Compare::le>});
VX_REGISTER_CPU_KERNEL(greater_fast, {"Greater", kFastVariant, 10, compare_supports, nullptr, make_compare<Compare::gt>});
VX_REGISTER_CPU_KERNEL(greater_equal_fast,
                       {"GreaterOrEqual", kFastVariant, 10, compare_supports, nullptr, make_compare<Compare::ge>});

}  // namespace vx::cpu::fast

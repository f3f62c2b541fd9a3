#include "backends/vulkan/kernels/window3.h"

#include <climits>

#include "core/error.h"

namespace vx::vk {

std::vector<int32_t> Window3::spec_constants() const {
  std::vector<int32_t> v;
  for (const auto* a : {&in, &kernel, &stride, &dilation, &pad_begin, &out}) v.insert(v.end(), a->begin(), a->end());
  return v;
}

Window3 window3(const WindowGeometry& g, const std::vector<int64_t>& input) {
  const size_t rank = g.rank();
  VX_CHECK(rank >= 1 && rank <= 3 && input.size() == rank, Unsupported, "windows of ", rank, " spatial axes");
  Window3 w;
  for (size_t i = 0; i < rank; ++i) {
    size_t a = 3 - rank + i;
    for (int64_t v : {input[i], g.kernel[i], g.strides[i], g.dilations[i], g.pads_begin[i], g.pads_end[i], g.output[i]})
      VX_CHECK(v >= 0 && v <= INT_MAX, Unsupported, "window extent ", v, " beyond 32 bits");
    w.in[a] = int32_t(input[i]);
    w.kernel[a] = int32_t(g.kernel[i]);
    w.stride[a] = int32_t(g.strides[i]);
    w.dilation[a] = int32_t(g.dilations[i]);
    w.pad_begin[a] = int32_t(g.pads_begin[i]);
    w.pad_end[a] = int32_t(g.pads_end[i]);
    w.out[a] = int32_t(g.output[i]);
  }
  return w;
}

}  // namespace vx::vk

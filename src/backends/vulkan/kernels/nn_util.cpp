#include "backends/vulkan/kernels/nn_util.h"

#include <climits>
#include <cstring>

#include "core/half.h"

namespace vx::vk::nn {

DeviceType float_storage(const OpInfo& info, size_t input) {
  if (input >= info.inputs.size() || !info.has_input(input)) decline(info, "input ", input, " is missing");
  const OpTensor& t = info.inputs[input];
  if (t.dtype != DType::f32 && t.dtype != DType::f16) decline(info, "only float tensors run on the GPU, input ", input,
                                                             " is ", dtype_name(t.dtype));
  if (t.device != DeviceType::f32 && t.device != DeviceType::f16) decline(info, "float input stored as integers");
  return t.device;
}

std::vector<float> constant_values(const Tensor& t) {
  Tensor f = t.dtype() == DType::f32 ? t : t.to(DType::f32);
  const float* p = f.data<float>();
  return std::vector<float>(p, p + f.numel());
}

std::vector<uint8_t> pack(const std::vector<float>& values, DeviceType storage) {
  std::vector<uint8_t> out;
  if (storage == DeviceType::f16) {
    out.resize(values.size() * 2);
    for (size_t i = 0; i < values.size(); ++i) {
      uint16_t h = float_to_half(values[i]);
      std::memcpy(out.data() + 2 * i, &h, 2);
    }
  } else {
    out.resize(values.size() * 4);
    if (!values.empty()) std::memcpy(out.data(), values.data(), out.size());
  }
  if (out.empty()) out.resize(4);  // never an empty buffer
  return out;
}

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

std::array<uint32_t, 3> element_groups(const OpInfo& info, int64_t count) {
  checked_count32(info, count, "the output");
  return linear_groups(uint64_t(count), 256);
}

}  // namespace vx::vk::nn

#include "backends/vulkan/kernels/op_args.h"

#include <algorithm>
#include <cstring>
#include <limits>

#include "core/error.h"
#include "core/half.h"
#include "ops/shape_rules.h"

namespace vx::vk {

std::string label(const OpInfo& info) { return cat(info.node.op, " '", info.node.name, "'"); }

void require_inputs(const OpInfo& info, size_t n) {
  for (size_t i = 0; i < n; ++i)
    VX_CHECK(info.has_input(i), InvalidArgument, label(info), ": input ", i, " is missing");
  VX_CHECK(!info.outputs.empty() && info.node.outputs[0] != kNoValue, InvalidArgument, label(info), " has no output");
}

int64_t normalize_axis(const OpInfo& info, int64_t axis, int64_t rank) {
  return vx::normalize_axis(axis, rank, label(info));
}

std::vector<int64_t> tensor_ints(const Tensor& t) {
  std::vector<int64_t> v(size_t(t.numel()));
  if (t.dtype() == DType::i64) {
    if (!v.empty()) std::memcpy(v.data(), t.raw(), v.size() * sizeof(int64_t));
  } else {
    for (size_t i = 0; i < v.size(); ++i) v[i] = int64_t(t.get(int64_t(i)));
  }
  return v;
}

std::vector<double> tensor_doubles(const Tensor& t) {
  std::vector<double> v(size_t(t.numel()));
  for (size_t i = 0; i < v.size(); ++i) v[i] = t.get(int64_t(i));
  return v;
}

std::optional<std::vector<int64_t>> constant_ints(const OpInfo& info, size_t i, const std::string& what) {
  if (!info.has_input(i)) return std::nullopt;
  const Tensor* c = info.inputs[i].constant;
  if (c == nullptr || !c->defined()) decline(info, cat(what, " (input ", i, ") is computed at run time, not a constant"));
  return tensor_ints(*c);
}

std::vector<int64_t> required_constant_ints(const OpInfo& info, size_t i, const std::string& what) {
  if (!info.has_input(i)) decline(info, what, " (input ", i, ") is missing");
  return *constant_ints(info, i, what);
}

std::optional<std::vector<double>> constant_doubles(const OpInfo& info, size_t i, const std::string& what) {
  if (!info.has_input(i)) return std::nullopt;
  const Tensor* c = info.inputs[i].constant;
  if (c == nullptr || !c->defined()) decline(info, cat(what, " (input ", i, ") is computed at run time, not a constant"));
  return tensor_doubles(*c);
}

int64_t checked_constant_index(const OpInfo& info, int64_t index, int64_t extent) {
  VX_CHECK(index >= -extent && index < extent, InvalidArgument, label(info), ": index ", index,
           " is out of range for extent ", extent);
  return index < 0 ? index + extent : index;
}

Binding index_tensor_binding(const OpInfo& info, OpPlan& plan, size_t input,
                             const std::function<int64_t(size_t)>& extent_at) {
  const OpTensor& idx = info.inputs.at(input);
  if (idx.dtype == DType::f32 || idx.dtype == DType::f16) decline(info, "indices are not integers");
  if (idx.constant == nullptr || !idx.constant->defined()) return Binding::in(int(input));
  std::vector<int64_t> values = tensor_ints(*idx.constant);
  std::vector<uint8_t> blob(std::max<size_t>(values.size(), 1) * 4, 0);  // a buffer is never empty
  for (size_t i = 0; i < values.size(); ++i) {
    const int32_t w = int32_t(checked_constant_index(info, values[i], extent_at(i)));
    std::memcpy(blob.data() + i * 4, &w, 4);
  }
  plan.constants.push_back(std::move(blob));
  return Binding::constant_blob(int(plan.constants.size() - 1));
}

const char* type_name(DeviceType t) {
  switch (t) {
    case DeviceType::f16: return "f16";
    case DeviceType::i32: return "i32";
    default: return "f32";
  }
}

namespace {

// "stem.types", then "_feature" when there is one.
std::string join_variant(std::string_view stem, std::string_view types, std::string_view feature) {
  std::string name(stem);
  (name += '.') += types;
  if (!feature.empty()) (name += '_') += feature;
  return name;
}

}  // namespace

std::string shader_variant(std::string_view stem, std::initializer_list<DeviceType> types, std::string_view feature) {
  std::string joined;
  for (DeviceType t : types) (joined += joined.empty() ? "" : "_") += type_name(t);
  return join_variant(stem, joined, feature);
}

std::string move_variant(std::string_view stem, DeviceType t, std::string_view feature) {
  return join_variant(stem, t == DeviceType::f16 ? "f16" : "b32", feature);
}

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

std::array<uint32_t, 3> element_groups(const OpInfo& info, int64_t count) {
  checked_count32(info, count, "the output");
  return linear_groups(uint64_t(count), 256);
}

uint32_t checked_count32(const OpInfo& info, int64_t count, const char* what) {
  if (count < 0 || count > int64_t(std::numeric_limits<int32_t>::max()))
    decline(info, what, " has ", count, " elements, beyond the shaders' 32-bit indexing");
  return uint32_t(count);
}

int64_t product(const std::vector<int64_t>& dims, size_t begin, size_t end) { return extents_product(dims, begin, end); }

}  // namespace vx::vk

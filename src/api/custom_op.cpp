// register_custom_op (include/volvox/custom_op.hpp): one user definition becomes a shape function,
// a CPU kernel and (with SPIR-V) a Vulkan op, each registered in the engine's registries under the
// op's own domain, so the importer, the planner and both backends treat it like a built-in op.
#include "volvox/custom_op.hpp"

#include <set>

#include "api/api_types.h"
#include "backends/cpu/kernel_registry.h"
#include "backends/vulkan/kernels/op_kernel.h"
#include "backends/vulkan/shader_registry.h"
#include "core/attribute.h"
#include "ops/shape_fn.h"

namespace volvox {

namespace {

const vx::Attributes& attrs(const void* impl) { return *static_cast<const vx::Attributes*>(impl); }

}  // namespace

bool OpAttributes::has(const std::string& name) const { return attrs(impl_).has(name); }
int64_t OpAttributes::get_int(const std::string& name, int64_t fallback) const {
  return attrs(impl_).get_int(name, fallback);
}
float OpAttributes::get_float(const std::string& name, float fallback) const {
  return attrs(impl_).get_float(name, fallback);
}
std::string OpAttributes::get_string(const std::string& name, const std::string& fallback) const {
  return attrs(impl_).get_string(name, fallback);
}
std::vector<int64_t> OpAttributes::get_ints(const std::string& name, const std::vector<int64_t>& fallback) const {
  return attrs(impl_).get_ints(name, fallback);
}
std::vector<float> OpAttributes::get_floats(const std::string& name, const std::vector<float>& fallback) const {
  return attrs(impl_).get_floats(name, fallback);
}

namespace {

std::string op_label(const CustomOp& op) { return op.domain + "." + op.op_type; }

// Runs a user callback; its exceptions become vx::Error naming the op.
template <class Fn>
auto call_user(const std::string& label, const char* what, Fn&& fn) {
  try {
    return fn();
  } catch (const vx::Error&) {
    throw;
  } catch (const std::exception& e) {
    vx::fail(vx::ErrorCode::InvalidArgument, vx::cat("custom op ", label, ": ", what, " failed: ", e.what()));
  }
}

std::vector<TensorInfo> checked_outputs(const CustomOp& op, const vx::Node& node, const std::vector<TensorInfo>& in,
                                        const vx::Attributes& a) {
  const std::string label = op_label(op);
  std::vector<TensorInfo> out =
      call_user(label, "infer_outputs", [&] { return op.infer_outputs(in, OpAttributes(&a)); });
  VX_CHECK(out.size() == node.outputs.size(), InvalidArgument, "custom op ", label, " (node '", node.name,
           "'): infer_outputs gave ", out.size(), " outputs, the node has ", node.outputs.size());
  for (const TensorInfo& t : out) {
    vx::api::to_dtype(t.type);  // validates
    for (int64_t d : t.shape)
      VX_CHECK(d >= 0, InvalidArgument, "custom op ", label, ": infer_outputs gave a negative dimension");
  }
  return out;
}

void register_shape(const CustomOp& op) {
  vx::register_shape_fn(
      op.op_type,
      [op](const vx::Node& node, vx::Graph& graph) {
        std::vector<TensorInfo> in;
        for (vx::ValueId id : node.inputs) {
          if (id == vx::kNoValue) {
            in.push_back({});
            continue;
          }
          const vx::Value& v = graph.value(id);
          in.push_back({vx::api::to_api(v.dtype), v.shape.dims()});
        }
        std::vector<TensorInfo> out = checked_outputs(op, node, in, node.attrs);
        for (size_t i = 0; i < out.size(); ++i) {
          if (node.outputs[i] == vx::kNoValue) continue;
          vx::Value& v = graph.value(node.outputs[i]);
          v.dtype = vx::api::to_dtype(out[i].type);
          v.shape = vx::Shape(out[i].shape);
        }
        return true;
      },
      op.domain);
}

void register_cpu(const CustomOp& op) {
  vx::cpu::KernelEntry entry;
  entry.op = op.op_type;
  entry.domain = op.domain;
  entry.variant = "custom";
  entry.run = [op](vx::cpu::KernelContext& ctx) {
    const vx::Node& node = ctx.node();
    std::vector<TensorInfo> in_info;
    std::vector<TensorRef> in;
    for (size_t i = 0; i < ctx.num_inputs(); ++i) {
      if (!ctx.has_input(i)) {
        in_info.push_back({});
        in.push_back({});
        continue;
      }
      const vx::Tensor& t = ctx.input(i);
      in_info.push_back({vx::api::to_api(t.dtype()), t.shape().dims()});
      // The kernel's inputs are read-only by contract; TensorRef is one type for both directions.
      in.push_back({in_info.back().type, in_info.back().shape, const_cast<void*>(t.raw())});
    }
    std::vector<TensorInfo> out_info = checked_outputs(op, node, in_info, node.attrs);
    std::vector<TensorRef> out;
    for (size_t i = 0; i < out_info.size(); ++i) {
      vx::Tensor& t = ctx.output(i, vx::api::to_dtype(out_info[i].type), vx::Shape(out_info[i].shape));
      out.push_back({out_info[i].type, out_info[i].shape, t.raw()});
    }
    call_user(op_label(op), "cpu kernel", [&] {
      op.cpu(in, out, OpAttributes(&node.attrs));
      return 0;
    });
  };
  vx::cpu::register_kernel(std::move(entry));
}

void register_vulkan(const CustomOp& op) {
  const std::string shader = "custom." + op_label(op);
  vx::vk::register_shader(shader, op.vulkan.spirv);
  vx::vk::OpEntry entry;
  entry.op = op.op_type;
  entry.domain = op.domain;
  entry.plan = [op, shader](const vx::vk::OpInfo& info) {
    const std::string label = op_label(op);
    const bool fp16 = info.precision == vx::Precision::fp16;
    std::vector<TensorInfo> in, out;
    vx::vk::Dispatch d;
    d.shader = shader;
    for (size_t i = 0; i < info.inputs.size(); ++i) {
      VX_CHECK(info.has_input(i), Unsupported, "custom op ", label, ": omitted inputs are not passed to Vulkan kernels");
      VX_CHECK(!(fp16 && info.inputs[i].device == vx::vk::DeviceType::f16 && !op.vulkan.supports_fp16), Unsupported,
               "custom op ", label, ": its Vulkan kernel does not support fp16 storage");
      in.push_back({vx::api::to_api(info.inputs[i].dtype), info.inputs[i].shape.dims()});
      d.bindings.push_back(vx::vk::Binding::in(int(i)));
    }
    for (size_t i = 0; i < info.outputs.size(); ++i) {
      VX_CHECK(!(fp16 && info.outputs[i].device == vx::vk::DeviceType::f16 && !op.vulkan.supports_fp16), Unsupported,
               "custom op ", label, ": its Vulkan kernel does not support fp16 storage");
      out.push_back({vx::api::to_api(info.outputs[i].dtype), info.outputs[i].shape.dims()});
      d.bindings.push_back(vx::vk::Binding::out(int(i)));
    }
    VX_CHECK(d.bindings.size() <= vx::vk::kMaxOpBindings, Unsupported, "custom op ", label, " has ",
             d.bindings.size(), " tensors; Vulkan kernels take at most ", vx::vk::kMaxOpBindings);
    VulkanLaunch launch = call_user(label, "vulkan launch", [&] { return op.vulkan.launch(in, out, OpAttributes(&info.node.attrs)); });
    VX_CHECK(launch.push_constants.size() <= vx::vk::kOpPushConstantBytes, InvalidArgument, "custom op ", label,
             ": ", launch.push_constants.size(), " bytes of push constants (at most ", vx::vk::kOpPushConstantBytes, ")");
    VX_CHECK(launch.groups[0] > 0 && launch.groups[1] > 0 && launch.groups[2] > 0, InvalidArgument, "custom op ",
             label, ": empty workgroup count");
    d.push = launch.push_constants;
    d.groups = launch.groups;
    vx::vk::OpPlan plan;
    plan.dispatches.push_back(std::move(d));
    plan.variant = "custom";
    return plan;
  };
  vx::vk::register_op(std::move(entry));
}

}  // namespace

void register_custom_op(const CustomOp& op) {
  try {
    VX_CHECK(!op.domain.empty() && op.domain != "ai.onnx" && op.domain != "vx", InvalidArgument,
             "custom op '", op.op_type, "': domain '", op.domain, "' is reserved (use your own, e.g. com.example)");
    VX_CHECK(!op.op_type.empty(), InvalidArgument, "custom op in domain ", op.domain, " has no op_type");
    VX_CHECK(op.infer_outputs && op.cpu, InvalidArgument, "custom op ", op_label(op),
             " needs infer_outputs and a cpu kernel");
    VX_CHECK(op.vulkan.spirv.empty() || op.vulkan.launch, InvalidArgument, "custom op ", op_label(op),
             ": Vulkan SPIR-V given without a launch function");
    static std::mutex mutex;
    static std::set<std::string> registered;
    std::lock_guard<std::mutex> lock(mutex);
    VX_CHECK(!registered.count(op_label(op)), InvalidArgument, "custom op ", op_label(op), " is already registered");
    if (!op.vulkan.spirv.empty()) register_vulkan(op);  // first: it validates the SPIR-V
    register_shape(op);
    register_cpu(op);
    registered.insert(op_label(op));
  } catch (const vx::Error& e) {
    throw Exception(vx::api::to_c(e.code()), e.what());
  }
}

}  // namespace volvox

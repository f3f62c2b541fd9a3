// Vulkan kernels for general ONNX graphs: op type -> a factory that plans one node of a
// shape-bound graph as a list of compute dispatches (like ncnn's Vulkan layers, but declarative).
//
// A factory never touches Vulkan objects: it returns an OpPlan naming embedded shaders, push
// constants, dispatch sizes and bindings that refer to the node's tensors symbolically (input i,
// output i, a constant blob the plan uploads once, a scratch buffer). The executor
// (segment_executable.h) places tensors in its arena, uploads the constants, creates pipelines
// and descriptor sets, and records the dispatches in order with a barrier between them.
//
// Device storage: every tensor is dense row-major in ONNX's layout (no padding), element types:
//   float tensors: f32, or f16 when the executable runs at Precision::fp16 (fp32 arithmetic);
//   every integer tensor (int64/int32/uint8/int8) and bool: int32 on the device (converted at the
//   host boundary; int64 values outside int32 only occur in shape computations, which stay on the
//   CPU). See device_dtype().
#pragma once
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "backends/vulkan/kernels/conv3x3.h"  // Precision
#include "core/graph.h"
#include "core/tensor.h"

namespace vx::vk {

struct DeviceInfo;

enum class DeviceType { f32, f16, i32 };
// How a tensor of this ONNX dtype is stored on the device at this precision.
DeviceType device_dtype(DType onnx, Precision precision);
size_t device_type_bytes(DeviceType t);

// One input or output of the node being planned.
struct OpTensor {
  Shape shape;
  DType dtype = DType::f32;       // the ONNX dtype
  DeviceType device = DeviceType::f32;
  const Tensor* constant = nullptr;  // the value when it is a graph constant (weights, axes, ...), else null
};

struct OpInfo {
  const Node& node;
  const Graph& graph;
  int64_t opset = 0;
  Precision precision = Precision::fp32;
  const DeviceInfo& device;
  std::vector<OpTensor> inputs;   // one per node input; omitted optional ones are default OpTensors
  std::vector<bool> present;      // false for omitted optional inputs (kNoValue)
  std::vector<OpTensor> outputs;  // shapes and dtypes from shape inference
  // Whether the context enabled fp16 16x16x16 cooperative matrices (a device imported from an
  // application has them disabled even where the hardware has them: the extension may be off).
  bool coopmat = false;
  bool has_input(size_t i) const { return i < present.size() && present[i]; }
};

// What a binding refers to; resolved by the executor.
//
// index_status: the node's status words, uint[4], zero before each run. A shader that meets an
// index outside [-extent, extent) skips that access and records the first such index:
//   if (atomicCompSwap(status[0], 0u, 1u) == 0u) { status[1] = uint(index); status[2] = uint(extent); }
// After the submit the executor throws InvalidArgument "<Op> '<name>': index I is out of range for
// extent E", as the CPU kernels do (run-time indices; constant ones are checked when planning).
//
// counters: uint words of OpPlan::counter_words, zero when the executor is made and kept across
// runs; every dispatch that binds them leaves them zero again (a split-K GEMM's arrivals per tile).
struct Binding {
  enum class Kind { input, output, constant, scratch, index_status, counters } kind = Kind::input;
  int index = 0;
  static Binding in(int i) { return {Kind::input, i}; }
  static Binding out(int i) { return {Kind::output, i}; }
  static Binding constant_blob(int i) { return {Kind::constant, i}; }
  static Binding scratch_buffer(int i) { return {Kind::scratch, i}; }
  static Binding status() { return {Kind::index_status, 0}; }
  static Binding counter_words(int i) { return {Kind::counters, i}; }
};

inline constexpr uint32_t kMaxOpBindings = 8;
inline constexpr uint32_t kOpPushConstantBytes = 128;

struct Dispatch {
  std::string shader;                   // embedded SPIR-V, e.g. "eltwise_binary.f16_f16_f16"
  std::vector<int32_t> spec_constants;  // constant_id 0, 1, ...
  std::vector<Binding> bindings;        // storage buffers at binding 0, 1, ... (<= kMaxOpBindings)
  std::vector<uint8_t> push;            // push constants (<= kOpPushConstantBytes)
  std::array<uint32_t, 3> groups{1, 1, 1};
  template <class T>
  void set_push(const T& block) {
    static_assert(sizeof(T) <= kOpPushConstantBytes);
    push.resize(sizeof(T));
    std::memcpy(push.data(), &block, sizeof(T));
  }
};

// Vulkan allows a storage buffer's offset alignment up to 256 bytes: an alias offset that is a
// multiple of this binds on every device.
inline constexpr uint64_t kAliasOffsetAlignment = 256;

struct OpPlan {
  std::vector<Dispatch> dispatches;              // run in order, barrier between consecutive ones
  std::vector<std::vector<uint8_t>> constants;   // uploaded once (repacked weights, tables)
  std::vector<uint64_t> scratch_bytes;           // per-run temporaries, live only during this node
  std::vector<uint64_t> counter_words;           // zeroed once, left zero by each run (Binding::counters)
  // Reshape, Squeeze, Unsqueeze, Flatten, Identity, Dropout: the output is the input's bytes
  // (no dispatch); the executor makes output 0 share input 0's memory. With an offset (in elements,
  // whose bytes are a multiple of kAliasOffsetAlignment), output 0 is the run of input 0 that starts
  // there: a Gather of one leading slice.
  bool output0_aliases_input0 = false;
  int64_t output0_alias_offset = 0;
  std::string variant = "generic";  // recorded in the profile ("direct", "coopmat", ...)
};

// Plans one node; throws vx::Error(Unsupported) with a reason when it cannot run it on the GPU (the
// executor then runs the node on the CPU and reports it as a fallback).
using OpFactory = std::function<OpPlan(const OpInfo&)>;

struct OpEntry {
  std::string op;       // ONNX op type ("Add") or our own ("vx.FusedConv")
  std::string domain;   // "" for ai.onnx
  int priority = 0;     // higher tried first
  OpFactory plan;
};

void register_op(OpEntry entry);
// Every entry for this op type, highest priority first.
std::vector<const OpEntry*> find_ops(const std::string& op, const std::string& domain = "");
std::vector<std::string> registered_vulkan_ops();

// Static registration from an op's .cpp file (the library is linked as a whole archive):
//   VX_REGISTER_VK_OP(add, {"Add", "", 0, plan_binary});
#define VX_REGISTER_VK_OP(tag, ...) \
  static const bool vx_vk_op_registered_##tag = (::vx::vk::register_op(::vx::vk::OpEntry __VA_ARGS__), true)

// Dispatch size for `count` invocations in workgroups of `local` along x, spilling into y when
// x exceeds the device limit (shaders index as gl_GlobalInvocationID.y * (groups.x * local) + x).
std::array<uint32_t, 3> linear_groups(uint64_t count, uint32_t local = 256);

}  // namespace vx::vk

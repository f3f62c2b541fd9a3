#include "backends/vulkan/graph_executable.h"

#include <algorithm>
#include <cstring>

#include "backends/vulkan/host_conversion.h"
#include "backends/vulkan/kernels/op_kernel.h"  // linear_groups
#include "ops/fused_ops.h"
#include "plan/arena_planner.h"

namespace vx::vk {
namespace {

struct KernelChoice {
  std::string fallback = "auto";
  std::map<std::string, std::string> per_layer;
};

KernelChoice parse_kernels(const std::string& spec) {
  KernelChoice choice;
  size_t start = 0;
  bool first = true;
  while (start <= spec.size()) {
    size_t end = spec.find(',', start);
    if (end == std::string::npos) end = spec.size();
    std::string token = spec.substr(start, end - start);
    size_t eq = token.find('=');
    if (eq != std::string::npos) {
      std::string variant = token.substr(eq + 1);
      parse_variant(variant);  // validates
      choice.per_layer[token.substr(0, eq)] = variant;
    } else if (first && !token.empty()) {
      if (token != "auto") parse_variant(token);
      choice.fallback = token;
    } else {
      fail(ErrorCode::InvalidArgument, cat("bad kernel choice '", spec, "': expected VARIANT[,LAYER=VARIANT...]"));
    }
    first = false;
    start = end + 1;
  }
  return choice;
}

Tensor constant_of(const Graph& g, ValueId id, const Node& node, const char* what) {
  VX_CHECK(id != kNoValue && g.value(id).is_constant(), Unsupported, "node '", node.name, "': the ", what,
           " must be a constant for the Vulkan backend");
  return g.value(id).constant;
}

}  // namespace

VulkanGraphExecutable::VulkanGraphExecutable(const VulkanContext& ctx, const Graph& graph, const Shape& input_shape,
                                             const ExecutableOptions& options)
    : ctx_(ctx), options_(options), input_shape_(input_shape) {
  try {
    build(graph);
  } catch (...) {
    release();
    throw;
  }
}

VulkanGraphExecutable::~VulkanGraphExecutable() { release(); }

double VulkanGraphExecutable::flops() const {
  double total = 0;
  for (const auto& l : layers_) total += l.desc.flops();
  return total;
}

bool is_fused_conv_network(const Graph& graph) {
  if (graph.inputs.size() != 1 || graph.outputs.size() != 1 || graph.nodes.empty()) return false;
  const Value& input = graph.value(graph.inputs[0]);
  if (input.dtype != DType::f32 || input.shape.rank() != 4) return false;
  for (const Node& node : graph.nodes) {
    if (node.op != kFusedConv || node.outputs.size() != 1) return false;
    const Attributes& at = node.attrs;
    if (at.get_ints("kernel_shape", {}) != std::vector<int64_t>{3, 3} ||
        at.get_ints("pads", {1, 1, 1, 1}) != std::vector<int64_t>{1, 1, 1, 1} ||
        at.get_ints("strides", {1, 1}) != std::vector<int64_t>{1, 1} ||
        at.get_ints("dilations", {1, 1}) != std::vector<int64_t>{1, 1} || at.get_int("group", 1) != 1 ||
        !at.get_strings("post_ops", {}).empty() ||  // its layers have ReLU only
        at.get_int("global_mean", 0) != 0)
      return false;
    const size_t n_act = at.get_int("upsample_concat", 0) != 0 ? 2 : 1;
    if (node.inputs.size() != n_act + 2) return false;
    for (size_t i = n_act; i < n_act + 2; ++i)
      if (node.inputs[i] == kNoValue || !graph.value(node.inputs[i]).is_constant()) return false;
  }
  return true;
}

std::vector<LayerInfo> plan_fused_conv_network(const Graph& graph, const Shape& input_shape, Precision precision,
                                               const std::string& kernels, bool fast_math, bool device_has_coopmat) {
  VX_CHECK(graph.inputs.size() == 1 && graph.outputs.size() == 1, Unsupported,
           "the Vulkan executor runs graphs with one input and one output (this one has ", graph.inputs.size(),
           " and ", graph.outputs.size(), ")");
  VX_CHECK(input_shape.rank() == 4 && input_shape[0] == 1 && input_shape[1] > 0 && input_shape[2] > 0 &&
               input_shape[3] > 0,
           InvalidArgument, "Vulkan executor input shape ", input_shape.str(), " is not [1, C, H, W]");
  VX_CHECK(input_shape[2] <= 16384 && input_shape[3] <= 16384 && input_shape[1] <= 4096, InvalidArgument,
           "input shape ", input_shape.str(), " is too large");
  const KernelChoice choice = parse_kernels(kernels);
  struct Size {  // an activation's channels and resolution
    int channels = 0, height = 0, width = 0;
  };
  std::map<ValueId, Size> sizes;
  sizes[graph.inputs[0]] = {int(input_shape[1]), int(input_shape[2]), int(input_shape[3])};
  std::vector<LayerInfo> layers;
  for (const Node& node : graph.nodes) {
    VX_CHECK(node.op == kFusedConv, Unsupported, "node '", node.name, "': op '", node.op,
             "' is not supported by the Vulkan backend (it runs fused graphs of ", kFusedConv, ")");
    const Attributes& at = node.attrs;
    auto ints_are = [&](const char* name, std::vector<int64_t> want) {
      auto v = at.get_ints(name, want);
      VX_CHECK(v == want, Unsupported, "node '", node.name, "': attribute ", name,
               " is not what the Vulkan 3x3 conv supports");
    };
    ints_are("kernel_shape", {3, 3});
    ints_are("pads", {1, 1, 1, 1});
    ints_are("strides", {1, 1});
    ints_are("dilations", {1, 1});
    VX_CHECK(at.get_int("group", 1) == 1, Unsupported, "node '", node.name, "': grouped conv is not supported");
    ConvDesc d;
    d.relu = at.get_int("relu", 0) != 0;
    d.pool = at.get_int("pool", 0) != 0;
    d.upsample_concat = at.get_int("upsample_concat", 0) != 0;
    d.fast_math = fast_math;
    const size_t n_act = d.upsample_concat ? 2 : 1;
    VX_CHECK(node.inputs.size() == n_act + 2 && node.outputs.size() == 1, InvalidArgument, "node '", node.name,
             "' has ", node.inputs.size(), " inputs, expected ", n_act + 2);
    for (size_t i = 0; i < n_act; ++i)
      VX_CHECK(sizes.count(node.inputs[i]), InvalidArgument, "node '", node.name, "' reads value ",
               node.inputs[i] >= 0 ? graph.value(node.inputs[i]).name : std::string("<none>"),
               " that no earlier node produces");
    const Size& a = sizes[node.inputs[0]];
    if (d.upsample_concat) {
      const Size& b = sizes[node.inputs[1]];
      VX_CHECK(b.height == 2 * a.height && b.width == 2 * a.width, InvalidArgument, "node '", node.name,
               "': upsampled input ", a.height * 2, "x", a.width * 2, " does not match the skip input ", b.height,
               "x", b.width);
      d.height = b.height;
      d.width = b.width;
      d.cin_a = a.channels;
      d.cin_b = b.channels;
    } else {
      d.height = a.height;
      d.width = a.width;
      d.cin_a = a.channels;
    }
    Tensor w = constant_of(graph, node.inputs[n_act], node, "weight");
    VX_CHECK(w.rank() == 4, InvalidArgument, "node '", node.name, "': weights of shape ", w.shape().str());
    d.cout = int(w.dim(0));
    VX_CHECK(!d.pool || (d.height >= 2 && d.width >= 2), InvalidArgument, "node '", node.name, "': cannot pool ",
             d.height, "x", d.width);
    VX_CHECK(!sizes.count(node.outputs[0]), InvalidArgument, "node '", node.name, "' writes a value twice");
    sizes[node.outputs[0]] = {d.cout, d.out_height(), d.out_width()};

    std::string kernel = choice.fallback;
    if (auto it = choice.per_layer.find(node.name); it != choice.per_layer.end()) kernel = it->second;
    ConvVariant variant = kernel == "auto" ? choose_variant(d, precision, device_has_coopmat) : parse_variant(kernel);
    VX_CHECK(variant_supports(variant, d, precision, device_has_coopmat), Unsupported, "node '", node.name,
             "': kernel '", variant_name(variant), "' cannot run it here (",
             variant != ConvVariant::direct && variant != ConvVariant::tiled ? "needs fp16, a device with 16x16x16 fp16 cooperative matrices and <= 128 output channels; "
                                               "coopmat_up* also an upsample + concat layer without a pool"
                                             : "?",
             ")");
    layers.push_back({node.name, variant_name(variant), shader_name(variant, d, precision), d});
  }
  VX_CHECK(sizes.count(graph.outputs[0]), InvalidArgument, "graph output '", graph.value(graph.outputs[0]).name,
           "' is never produced");
  VX_CHECK(!layers.empty(), InvalidArgument, "graph has no nodes");
  // A misspelt layer in an override would otherwise be ignored without a word.
  for (const auto& [layer, variant] : choice.per_layer) {
    if (std::any_of(layers.begin(), layers.end(), [&](const auto& l) { return l.name == layer; })) continue;
    std::string names;
    for (const auto& l : layers) names += (names.empty() ? "" : ", ") + l.name;
    fail(ErrorCode::InvalidArgument, cat("kernel choice '", kernels, "' names layer '", layer,
                                         "', which this network does not have (layers: ", names, ")"));
  }
  return layers;
}

void VulkanGraphExecutable::build(const Graph& graph) {
  VX_CHECK(options_.precision == Precision::fp32 || ctx_.fp16_enabled(), Unsupported, "Vulkan device '",
           ctx_.info().name, "' lacks fp16 arithmetic or 16-bit storage: use fp32");
  layers_ = plan_fused_conv_network(graph, input_shape_, options_.precision, options_.kernels, options_.fast_math,
                                   ctx_.coopmat_enabled());
  element_bytes_ = options_.precision == Precision::fp16 ? 2 : 4;
  timestamps_ = options_.timestamps && ctx_.info().timestamps;

  // ---- activations and their lifetimes ----
  std::map<ValueId, Activation> acts;
  auto bytes_of = [&](const Activation& a) {
    return VkDeviceSize(a.height) * a.width * ((a.channels + 3) / 4) * 4 * element_bytes_;
  };
  const ValueId in_id = graph.inputs[0], out_id = graph.outputs[0];
  input_id_ = in_id;
  output_id_ = out_id;
  acts[in_id] = {int(input_shape_[1]), int(input_shape_[2]), int(input_shape_[3])};
  struct NodeIo {
    ValueId a, b, out;
  };
  std::vector<NodeIo> ios;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Node& node = graph.nodes[i];
    const ConvDesc& d = layers_[i].desc;
    ios.push_back({node.inputs[0], d.upsample_concat ? node.inputs[1] : node.inputs[0], node.outputs[0]});
    acts[node.outputs[0]] = {d.cout, d.out_height(), d.out_width()};
  }

  // Last reader of each value; the graph output lives to the end.
  std::map<ValueId, size_t> last_use;
  for (size_t i = 0; i < ios.size(); ++i) {
    last_use[ios[i].a] = i;
    last_use[ios[i].b] = i;
  }
  last_use[out_id] = ios.size();
  const VkDeviceSize alignment = std::max<VkDeviceSize>(256, ctx_.properties().limits.minStorageBufferOffsetAlignment);
  // Offsets from the liveness planner (src/plan): the input lives from step 0, each output from its
  // node's step, each value to its last reader (the graph output to the end). Sizes rounded up to
  // the storage-buffer offset alignment keep every offset aligned (the planner places buffers at 0
  // or at the end of another).
  std::vector<ValueId> order{in_id};
  std::vector<plan::BufferRequest> requests;
  auto request = [&](ValueId id, int first) {
    Activation& a = acts[id];
    a.bytes = bytes_of(a);
    const int last = last_use.count(id) ? int(last_use[id]) : first;  // a dead output is still written once
    requests.push_back({size_t((a.bytes + alignment - 1) / alignment * alignment), first, last});
    order.push_back(id);
  };
  order.clear();
  request(in_id, 0);
  for (size_t i = 0; i < ios.size(); ++i) request(ios[i].out, int(i));
  for (const auto& [id, a] : acts) sum_activation_bytes_ += a.bytes;
  const plan::ArenaLayout arena_layout = plan::plan_arena(requests);
  for (size_t k = 0; k < order.size(); ++k) {
    acts[order[k]].offset = VkDeviceSize(arena_layout.offsets[k]);
    VX_CHECK(acts[order[k]].offset % alignment == 0, Internal, "arena offset ", acts[order[k]].offset,
             " is not aligned to ", alignment);
  }
  const VkDeviceSize arena_size = std::max<VkDeviceSize>(arena_layout.arena_bytes, 16);
  input_ = acts[in_id];
  output_ = acts[out_id];
  output_shape_ = Shape{1, output_.channels, output_.height, output_.width};

  // ---- weights: packed on the host, uploaded once through a temporary staging buffer ----
  OffsetAllocator weight_alloc(alignment);
  std::vector<std::vector<uint8_t>> packed;
  std::vector<VkDeviceSize> weight_offsets;
  for (size_t i = 0; i < layers_.size(); ++i) {
    const Node& node = graph.nodes[i];
    const ConvDesc& d = layers_[i].desc;
    const size_t n_act = d.upsample_concat ? 2 : 1;
    ConvVariant v = parse_variant(layers_[i].kernel);
    VX_WITH_CONTEXT(cat("node '", node.name, "'"), {
      packed.push_back(pack_weights(v, d, options_.precision, constant_of(graph, node.inputs[n_act], node, "weight")));
      packed.push_back(pack_bias(d, constant_of(graph, node.inputs[n_act + 1], node, "bias")));
    });
    weight_offsets.push_back(weight_alloc.allocate(packed[packed.size() - 2].size()));
    weight_offsets.push_back(weight_alloc.allocate(packed.back().size()));
  }
  // The caller's tensors travel as they are, f32 NCHW (a memcpy each way); the conversion to and from
  // the kernels' layout and precision runs on the device (shaders/nchw_to_nhwc4.comp, nhwc4_to_nchw.comp).
  nchw_input_bytes_ = VkDeviceSize(input_.channels) * input_.height * input_.width * 4;
  nchw_output_bytes_ = VkDeviceSize(output_.channels) * output_.height * output_.width * 4;
  VX_CHECK(nchw_input_bytes_ / 4 < (VkDeviceSize(1) << 31) && nchw_output_bytes_ / 4 < (VkDeviceSize(1) << 31) &&
               VkDeviceSize(input_.height) * input_.width * ((input_.channels + 3) / 4) < (VkDeviceSize(1) << 31),
           Unsupported, "input shape ", input_shape_.str(), " has more elements than the kernels index");
  staging_output_offset_ = (nchw_input_bytes_ + alignment - 1) / alignment * alignment;
  const VkDeviceSize staging_size = staging_output_offset_ + nchw_output_bytes_;
  const MemoryNeeds needs{arena_size, weight_alloc.size() + 2 * staging_size, sum_activation_bytes_};
  if (options_.needs) *options_.needs = needs;
  check_memory_limit(needs, options_.max_memory_mb, {{graph.value(in_id).name, input_shape_}});
  weights_ = DeviceBuffer(ctx_, weight_alloc.size(), MemoryUse::DeviceLocal, "weights");
  arena_ = DeviceBuffer(ctx_, arena_size, MemoryUse::DeviceLocal, "activation arena");
  staging_ = DeviceBuffer(ctx_, staging_size, MemoryUse::Staging, "staging");
  nchw_io_ = DeviceBuffer(ctx_, staging_size, MemoryUse::DeviceLocal, "NCHW input and output");

  // ---- command buffers, queries ----
  commands_ = CommandContext(ctx_);
  cmd_full_ = commands_.allocate();
  cmd_resident_ = commands_.allocate();
  if (timestamps_) query_pool_ = create_timestamp_pool(ctx_, uint32_t(layers_.size() + 1));

  {  // upload the weights
    DeviceBuffer upload(ctx_, weight_alloc.size(), MemoryUse::Staging, "weight upload");
    for (size_t i = 0; i < packed.size(); ++i)
      std::memcpy(upload.mapped() + weight_offsets[i], packed[i].data(), packed[i].size());
    upload.flush();
    commands_.run_once([&](VkCommandBuffer cmd) {
      VkBufferCopy region{0, 0, weight_alloc.size()};
      vkCmdCopyBuffer(cmd, upload.buffer(), weights_.buffer(), 1, &region);
    });
  }

  // ---- pipelines and descriptor sets ----
  layout_ = std::make_unique<KernelLayout>(ctx_);
  const size_t sets = layers_.size() + 2;  // the layers, and the input and output conversions
  descriptor_pool_ = KernelLayout::create_pool(ctx_, uint32_t(sets), kKernelBindings);
  // A step of `shader` over these five buffer ranges (the one set layout: A, B, weights, bias, output).
  auto make_step = [&](const std::string& shader, const std::array<VkDescriptorBufferInfo, kKernelBindings>& infos) {
    auto& pipeline = pipelines_[shader];
    if (!pipeline) pipeline = std::make_unique<ComputePipeline>(ctx_, *layout_, shader);
    Step step;
    step.pipeline = pipeline.get();
    step.set = layout_->allocate_set(descriptor_pool_);
    KernelLayout::write_set(ctx_.device(), step.set, infos);
    return step;
  };
  for (size_t i = 0; i < layers_.size(); ++i) {
    const LayerInfo& layer = layers_[i];
    const Activation &a = acts[ios[i].a], &b = acts[ios[i].b], &out = acts[ios[i].out];
    Step step = make_step(layer.shader, {{
                                            {arena_.buffer(), a.offset, a.bytes},
                                            {arena_.buffer(), b.offset, b.bytes},
                                            {weights_.buffer(), weight_offsets[2 * i], packed[2 * i].size()},
                                            {weights_.buffer(), weight_offsets[2 * i + 1], packed[2 * i + 1].size()},
                                            {arena_.buffer(), out.offset, out.bytes},
                                        }});
    ConvVariant v = parse_variant(layer.kernel);
    step.push = push_constants(v, layer.desc);
    step.groups = dispatch_size(v, layer.desc);
    steps_.push_back(step);
  }
  // The layout conversions around the network for run(const Tensor&): src at binding 0, dst at 4.
  auto conversion = [&](const std::string& shader, const VkDescriptorBufferInfo& src, const VkDescriptorBufferInfo& dst,
                        const Activation& a, int64_t invocations) {
    Step step = make_step(shader, {src, src, src, src, dst});
    step.push = {a.channels, a.height * a.width, (a.channels + 3) / 4};
    step.groups = linear_groups(uint64_t(invocations));
    return step;
  };
  const VkDescriptorBufferInfo nchw_input{nchw_io_.buffer(), 0, nchw_input_bytes_},
      nchw_output{nchw_io_.buffer(), staging_output_offset_, nchw_output_bytes_};
  const bool half = element_bytes_ == 2;
  to_nhwc4_ = conversion(half ? "nchw_to_nhwc4.f32_f16" : "nchw_to_nhwc4.f32_f32", nchw_input, {arena_.buffer(), input_.offset, input_.bytes}, input_,
                         int64_t(input_.height) * input_.width * ((input_.channels + 3) / 4));
  from_nhwc4_ = conversion(half ? "nhwc4_to_nchw.f16_f32" : "nhwc4_to_nchw.f32_f32", {arena_.buffer(), output_.offset, output_.bytes}, nchw_output, output_,
                           int64_t(output_.height) * output_.width * output_.channels);

  record(cmd_full_, true);
  record(cmd_resident_, false);
}

void VulkanGraphExecutable::record_network(VkCommandBuffer cmd) {
  if (timestamps_) {
    vkCmdResetQueryPool(cmd, query_pool_, 0, uint32_t(steps_.size() + 1));
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, query_pool_, 0);
  }
  for (size_t i = 0; i < steps_.size(); ++i) {
    if (i > 0) barrier(cmd, kComputeReadWrite, kComputeReadWrite);
    record_step(cmd, steps_[i]);
    if (timestamps_) vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, query_pool_, uint32_t(i + 1));
  }
}

void VulkanGraphExecutable::record_step(VkCommandBuffer cmd, const Step& s) {
  vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, s.pipeline->pipeline());
  vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout_->pipeline_layout(), 0, 1, &s.set, 0, nullptr);
  vkCmdPushConstants(cmd, layout_->pipeline_layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, sizeof(s.push), s.push.data());
  vkCmdDispatch(cmd, s.groups[0], s.groups[1], s.groups[2]);
}

void VulkanGraphExecutable::record(VkCommandBuffer cmd, bool transfers) {
  begin_recording(cmd);
  if (transfers) {
    if (input_bound_) {  // the caller's buffer, written by anything before on the queue
      barrier(cmd, kAnyWrite, kComputeRead);
    } else {
      VkBufferCopy region{0, 0, staging_output_offset_};
      vkCmdCopyBuffer(cmd, staging_.buffer(), nchw_io_.buffer(), 1, &region);
      barrier(cmd, kTransferWrite, kComputeRead);
    }
    record_step(cmd, to_nhwc4_);
    barrier(cmd, kComputeWrite, kComputeRead);
  }
  record_network(cmd);
  if (transfers) {
    barrier(cmd, kComputeWrite, kComputeRead);
    record_step(cmd, from_nhwc4_);
    if (output_bound_) {  // for whatever the caller submits next
      barrier(cmd, kComputeWrite, kAnyReadWrite);
    } else {
      barrier(cmd, kComputeWrite, kTransferRead);
      VkBufferCopy region{staging_output_offset_, staging_output_offset_, staging_.size() - staging_output_offset_};
      vkCmdCopyBuffer(cmd, nchw_io_.buffer(), staging_.buffer(), 1, &region);
      barrier(cmd, kTransferWrite, kHostRead);
    }
  } else {
    // Later submissions write the arena again: order them after this one's reads and writes.
    barrier(cmd, kComputeReadWrite, kComputeReadWrite);
  }
  end_recording(cmd);
}

Tensor VulkanGraphExecutable::run(const Tensor& input) {
  VX_CHECK(input.defined() && input.dtype() == DType::f32 && input.shape() == input_shape_, InvalidArgument,
           "Vulkan executable bound to input ", input_shape_.str(), " f32 got ",
           input.defined() ? input.shape().str() : std::string("an empty tensor"));
  VX_CHECK(input_bound_ || input.raw() != nullptr, InvalidArgument, "input without data, and none bound on the device");
  if (!input_bound_) {
    to_device(input, DeviceType::f32, staging_.mapped());
    staging_.flush();
  }
  commands_.submit_and_wait(cmd_full_);
  read_timings();
  if (output_bound_) return Tensor::wrap(DType::f32, output_shape_, nullptr);  // in the caller's buffer
  staging_.invalidate();
  return from_device(staging_.mapped() + staging_output_offset_, DeviceType::f32, DType::f32, output_shape_);
}

void VulkanGraphExecutable::bind_device_values(const std::vector<runtime::DeviceValue>& values) {
  const VkDeviceSize alignment = std::max<VkDeviceSize>(4, ctx_.properties().limits.minStorageBufferOffsetAlignment);
  auto point = [&](const Step& step, uint32_t binding, VkDescriptorBufferInfo info) {
    VkWriteDescriptorSet w{VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    w.dstSet = step.set;
    w.dstBinding = binding;
    w.descriptorCount = 1;
    w.descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    w.pBufferInfo = &info;
    vkUpdateDescriptorSets(ctx_.device(), 1, &w, 0, nullptr);
  };
  // Checked before anything changes: a refused set leaves the executable as it was.
  for (const runtime::DeviceValue& v : values) {
    VX_CHECK(v.value == input_id_ || v.value == output_id_, Internal, "value ", v.value, " is not the network's input or output");
    VX_CHECK(v.buffer != 0 && v.offset % alignment == 0, InvalidArgument, "a bound buffer must be a VkBuffer at an offset "
             "that is a multiple of ", alignment, " (the device's minStorageBufferOffsetAlignment), not ", v.offset);
  }
  input_bound_ = output_bound_ = false;
  VkDescriptorBufferInfo input{nchw_io_.buffer(), 0, nchw_input_bytes_},
      output{nchw_io_.buffer(), staging_output_offset_, nchw_output_bytes_};
  for (const runtime::DeviceValue& v : values) {
    const bool is_input = v.value == input_id_;
    (is_input ? input : output) = {to_vk_buffer(v.buffer), v.offset, is_input ? nchw_input_bytes_ : nchw_output_bytes_};
    (is_input ? input_bound_ : output_bound_) = true;
  }
  point(to_nhwc4_, 0, input);
  point(from_nhwc4_, 4, output);
  record(cmd_full_, true);
}

void VulkanGraphExecutable::run_resident() {
  commands_.submit_and_wait(cmd_resident_);
  read_timings();
}

void VulkanGraphExecutable::run(size_t segment, runtime::HostValues& host, std::vector<double>& node_ms) {
  VX_CHECK(segment == 0, Internal, "a fused conv network is one segment");
  Tensor out = run(host[size_t(input_id_)]);
  if (!output_bound_) host[size_t(output_id_)] = std::move(out);
  for (size_t i = 0; i < timings_.size() && i < node_ms.size(); ++i) node_ms[i] = timings_[i].ms;
}

void VulkanGraphExecutable::read_timings() {
  timings_.clear();
  gpu_ms_ = 0;
  if (!timestamps_) return;
  std::vector<uint64_t> ticks(steps_.size() + 1);
  VX_VK_CHECK(vkGetQueryPoolResults(ctx_.device(), query_pool_, 0, uint32_t(ticks.size()),
                                    ticks.size() * sizeof(uint64_t), ticks.data(), sizeof(uint64_t),
                                    VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT));
  const double ms_per_tick = ctx_.info().timestamp_period_ns * 1e-6;
  for (size_t i = 0; i < steps_.size(); ++i)
    timings_.push_back({layers_[i].name, layers_[i].kernel, double(ticks[i + 1] - ticks[i]) * ms_per_tick});
  gpu_ms_ = double(ticks.back() - ticks.front()) * ms_per_tick;
}

void VulkanGraphExecutable::release() {
  VkDevice device = ctx_.device();
  destroy_tracked(device, query_pool_, vkDestroyQueryPool, ObjectKind::QueryPool);
  commands_ = CommandContext();  // frees its command buffers
  destroy_tracked(device, descriptor_pool_, vkDestroyDescriptorPool, ObjectKind::DescriptorPool);  // frees its sets
  steps_.clear();
  pipelines_.clear();
  layout_.reset();
  weights_ = DeviceBuffer();
  arena_ = DeviceBuffer();
  staging_ = DeviceBuffer();
  nchw_io_ = DeviceBuffer();
}

}  // namespace vx::vk

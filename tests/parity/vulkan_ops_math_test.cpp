// The Vulkan plans of ONNX's math ops (src/backends/vulkan/ops/{matmul,conv,pool,norm}.cpp) against
// the CPU reference kernels (double accumulation), one node at a time, on lavapipe in CI with the
// Khronos validation layer on when installed (any warning or error fails the test). Shapes are odd
// on purpose (1x17 by 17x5, batches that broadcast, 7x9 images with 5 outputs, groups 3, stride 2,
// dilation 2, asymmetric pads) and small because lavapipe is slow.
//
// Each plan runs through PlanRunner below: every tensor in its own host-visible buffer, one
// descriptor set per dispatch, a barrier between dispatches (what the executor does, minus the
// arena). fp16 cases round the inputs to fp16 first, so that the reference sees the same values.
//
// Tolerances: fp32 storage: max |gpu - ref| <= 1e-4 * max(1, max |ref|).
//             fp16 storage (fp32 accumulation, one rounding of the output and of repacked weights):
//             <= 1e-2 * max(1, max |ref|).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>

#include "backends/vulkan/context.h"
#include "backends/vulkan/memory.h"
#include "backends/vulkan/ops/nn_util.h"
#include "backends/vulkan/ops/op_kernel.h"
#include "common/test_util.h"
#include "core/half.h"
#include "passes/fused_ops.h"
#include "runtime/graph_runner.h"

namespace vx::vk {
namespace {

// ---------------- a minimal executor of one OpPlan ----------------

class PlanRunner {
 public:
  explicit PlanRunner(const VulkanContext& ctx) : ctx_(ctx), device_(ctx.device()) {
    VkDescriptorSetLayoutBinding b[kMaxOpBindings];
    for (uint32_t i = 0; i < kMaxOpBindings; ++i)
      b[i] = {i, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
    VkDescriptorSetLayoutCreateInfo dci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
    dci.bindingCount = kMaxOpBindings;
    dci.pBindings = b;
    VX_VK_CHECK(vkCreateDescriptorSetLayout(device_, &dci, nullptr, &set_layout_));
    VkPushConstantRange push{VK_SHADER_STAGE_COMPUTE_BIT, 0, kOpPushConstantBytes};
    VkPipelineLayoutCreateInfo pci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
    pci.setLayoutCount = 1;
    pci.pSetLayouts = &set_layout_;
    pci.pushConstantRangeCount = 1;
    pci.pPushConstantRanges = &push;
    VX_VK_CHECK(vkCreatePipelineLayout(device_, &pci, nullptr, &pipeline_layout_));
    VkCommandPoolCreateInfo cpi{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
    cpi.queueFamilyIndex = ctx.queue_family();
    VX_VK_CHECK(vkCreateCommandPool(device_, &cpi, nullptr, &command_pool_));
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VX_VK_CHECK(vkCreateFence(device_, &fci, nullptr, &fence_));
  }
  ~PlanRunner() {
    vkDestroyFence(device_, fence_, nullptr);
    vkDestroyCommandPool(device_, command_pool_, nullptr);
    vkDestroyPipelineLayout(device_, pipeline_layout_, nullptr);
    vkDestroyDescriptorSetLayout(device_, set_layout_, nullptr);
  }

  // Inputs and outputs as device bytes (absent inputs: empty vectors); returns the outputs' bytes.
  std::vector<std::vector<uint8_t>> run(const OpPlan& plan, const std::vector<std::vector<uint8_t>>& inputs,
                                        const std::vector<size_t>& output_bytes) {
    std::vector<DeviceBuffer> in, out, constants, scratch;
    auto make = [&](std::vector<DeviceBuffer>& list, size_t bytes, const uint8_t* data, const char* what) {
      list.emplace_back(ctx_, std::max<size_t>(bytes, 16), MemoryUse::Staging, what);
      if (data && bytes) std::memcpy(list.back().mapped(), data, bytes);
      else std::memset(list.back().mapped(), 0, std::max<size_t>(bytes, 16));
      list.back().flush();
    };
    for (const auto& v : inputs) make(in, v.size(), v.data(), "input");
    for (size_t bytes : output_bytes) make(out, bytes, nullptr, "output");
    for (const auto& v : plan.constants) make(constants, v.size(), v.data(), "constant");
    for (uint64_t bytes : plan.scratch_bytes) make(scratch, size_t(bytes), nullptr, "scratch");
    auto resolve = [&](const Binding& b) -> VkBuffer {
      std::vector<DeviceBuffer>* list = b.kind == Binding::Kind::input    ? &in
                                        : b.kind == Binding::Kind::output ? &out
                                        : b.kind == Binding::Kind::constant ? &constants
                                                                             : &scratch;
      VX_CHECK(b.index >= 0 && size_t(b.index) < list->size(), Internal, "binding to a missing buffer");
      return (*list)[size_t(b.index)].buffer();
    };

    const uint32_t sets = uint32_t(std::max<size_t>(plan.dispatches.size(), 1));
    VkDescriptorPoolSize size{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, sets * kMaxOpBindings};
    VkDescriptorPoolCreateInfo dpi{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
    dpi.maxSets = sets;
    dpi.poolSizeCount = 1;
    dpi.pPoolSizes = &size;
    VkDescriptorPool pool = VK_NULL_HANDLE;
    VX_VK_CHECK(vkCreateDescriptorPool(device_, &dpi, nullptr, &pool));
    std::vector<VkPipeline> pipelines;
    std::vector<VkShaderModule> modules;
    VkCommandBuffer cmd = VK_NULL_HANDLE;
    try {
      VkCommandBufferAllocateInfo cai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
      cai.commandPool = command_pool_;
      cai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
      cai.commandBufferCount = 1;
      VX_VK_CHECK(vkAllocateCommandBuffers(device_, &cai, &cmd));
      VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
      begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
      VX_VK_CHECK(vkBeginCommandBuffer(cmd, &begin));
      for (size_t i = 0; i < plan.dispatches.size(); ++i) {
        const Dispatch& d = plan.dispatches[i];
        std::span<const uint32_t> code = embedded_shader(d.shader);
        VX_CHECK(!code.empty(), Internal, "shader '", d.shader, "' is not embedded");
        VkShaderModuleCreateInfo mci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
        mci.codeSize = code.size() * 4;
        mci.pCode = code.data();
        modules.push_back(VK_NULL_HANDLE);
        VX_VK_CHECK(vkCreateShaderModule(device_, &mci, nullptr, &modules.back()));
        std::vector<VkSpecializationMapEntry> entries;
        for (uint32_t s = 0; s < d.spec_constants.size(); ++s) entries.push_back({s, s * 4, 4});
        VkSpecializationInfo spec{uint32_t(entries.size()), entries.data(), d.spec_constants.size() * 4,
                                  d.spec_constants.data()};
        VkComputePipelineCreateInfo pci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
        pci.stage.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO;
        pci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
        pci.stage.module = modules.back();
        pci.stage.pName = "main";
        pci.stage.pSpecializationInfo = entries.empty() ? nullptr : &spec;
        pci.layout = pipeline_layout_;
        pipelines.push_back(VK_NULL_HANDLE);
        VX_VK_CHECK(vkCreateComputePipelines(device_, VK_NULL_HANDLE, 1, &pci, nullptr, &pipelines.back()));

        VkDescriptorSetAllocateInfo sai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
        sai.descriptorPool = pool;
        sai.descriptorSetCount = 1;
        sai.pSetLayouts = &set_layout_;
        VkDescriptorSet set = VK_NULL_HANDLE;
        VX_VK_CHECK(vkAllocateDescriptorSets(device_, &sai, &set));
        std::vector<VkDescriptorBufferInfo> infos(d.bindings.size());
        std::vector<VkWriteDescriptorSet> writes(d.bindings.size());
        for (size_t b = 0; b < d.bindings.size(); ++b) {
          infos[b] = {resolve(d.bindings[b]), 0, VK_WHOLE_SIZE};
          writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
          writes[b].dstSet = set;
          writes[b].dstBinding = uint32_t(b);
          writes[b].descriptorCount = 1;
          writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
          writes[b].pBufferInfo = &infos[b];
        }
        vkUpdateDescriptorSets(device_, uint32_t(writes.size()), writes.data(), 0, nullptr);
        if (i > 0) {
          VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
          barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
          barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
          vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1,
                               &barrier, 0, nullptr, 0, nullptr);
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines.back());
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1, &set, 0, nullptr);
        if (!d.push.empty())
          vkCmdPushConstants(cmd, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0, uint32_t(d.push.size()), d.push.data());
        vkCmdDispatch(cmd, d.groups[0], d.groups[1], d.groups[2]);
      }
      VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
      to_host.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
      to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
      vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0,
                           nullptr, 0, nullptr);
      VX_VK_CHECK(vkEndCommandBuffer(cmd));
      ctx_.submit_and_wait(cmd, fence_);
    } catch (...) {
      release(pool, pipelines, modules, cmd);
      throw;
    }
    release(pool, pipelines, modules, cmd);
    std::vector<std::vector<uint8_t>> result;
    for (size_t i = 0; i < out.size(); ++i) {
      out[i].invalidate();
      result.emplace_back(out[i].mapped(), out[i].mapped() + output_bytes[i]);
    }
    return result;
  }

 private:
  void release(VkDescriptorPool pool, std::vector<VkPipeline>& pipelines, std::vector<VkShaderModule>& modules,
               VkCommandBuffer cmd) {
    for (VkPipeline p : pipelines) vkDestroyPipeline(device_, p, nullptr);
    for (VkShaderModule m : modules) vkDestroyShaderModule(device_, m, nullptr);
    if (cmd) vkFreeCommandBuffers(device_, command_pool_, 1, &cmd);
    vkDestroyDescriptorPool(device_, pool, nullptr);
  }

  const VulkanContext& ctx_;
  VkDevice device_;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

// ---------------- one-node cases ----------------

struct Input {
  Tensor value;         // undefined: an omitted optional input
  bool constant = false;
};

struct OneNode {
  std::string op;
  Attributes attrs;
  std::vector<Input> inputs;
  size_t outputs = 1;
  int64_t opset = 17;
};

Tensor round_to_half(const Tensor& t) { return t.to(DType::f16).to(DType::f32); }

std::vector<uint8_t> to_device(const Tensor& t, DeviceType type) {
  return nn::pack(nn::constant_values(t), type);
}

Tensor from_device(const std::vector<uint8_t>& bytes, const Shape& shape, DeviceType type) {
  Tensor t(DType::f32, shape);
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) {
    if (type == DeviceType::f16) {
      uint16_t h;
      std::memcpy(&h, bytes.data() + 2 * i, 2);
      p[i] = half_to_float(h);
    } else {
      std::memcpy(&p[i], bytes.data() + 4 * i, 4);
    }
  }
  return t;
}

class VulkanMathOps : public ::testing::TestWithParam<Precision> {
 protected:
  static void SetUpTestSuite() {
    try {
      ContextOptions o;
      o.validation = true;
      ctx_ = new VulkanContext(o);
      runner_ = new PlanRunner(*ctx_);
    } catch (const Error& e) {
      skip_reason_ = e.what();
    }
  }
  static void TearDownTestSuite() {
    delete runner_;
    runner_ = nullptr;
    delete ctx_;
    ctx_ = nullptr;
  }
  void SetUp() override {
    if (!ctx_) GTEST_SKIP() << "no Vulkan device: " << skip_reason_;
    if (GetParam() == Precision::fp16 && !ctx_->fp16_enabled()) GTEST_SKIP() << "the device has no fp16 storage";
    seen_messages_ = ctx_->validation_messages().size();
  }
  void TearDown() override {
    if (!ctx_) return;
    auto messages = ctx_->validation_messages();
    for (size_t i = seen_messages_; i < messages.size(); ++i) ADD_FAILURE() << "validation: " << messages[i];
  }

  // Plans `c` (expecting the given variant prefix when not empty), runs it and compares every
  // output with the CPU reference.
  void check(OneNode c, const std::string& what, const std::string& variant = "") {
    const Precision precision = GetParam();
    const DeviceType storage = precision == Precision::fp16 ? DeviceType::f16 : DeviceType::f32;
    if (precision == Precision::fp16) {
      for (Input& in : c.inputs) {
        if (in.value.defined()) in.value = round_to_half(in.value);
      }
    }
    Graph g;
    g.opsets[""] = c.opset;
    std::vector<ValueId> ids;
    std::vector<Tensor> feeds;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      const Input& in = c.inputs[i];
      if (!in.value.defined()) {
        ids.push_back(kNoValue);
      } else if (in.constant) {
        ids.push_back(g.add_constant(cat("c", i), in.value));
      } else {
        ids.push_back(g.add_value(cat("x", i), DType::f32, in.value.shape()));
        g.inputs.push_back(ids.back());
        feeds.push_back(in.value);
      }
    }
    std::vector<ValueId> outs;
    for (size_t i = 0; i < c.outputs; ++i) outs.push_back(g.add_value(cat("y", i), DType::f32, Shape()));
    g.add_node(c.op, "node", ids, outs, c.attrs);
    g.outputs = outs;
    RunnerOptions ro;
    ro.optimize = false;
    ro.reference_only = true;
    GraphRunner reference(g, ro);
    std::vector<Tensor> expected = reference.run(feeds);
    ASSERT_EQ(expected.size(), c.outputs) << what;

    OpInfo info{g.nodes[0], g, c.opset, precision, ctx_->info(), {}, {}, {}};
    for (size_t i = 0; i < c.inputs.size(); ++i) {
      OpTensor t;
      if (c.inputs[i].value.defined()) {
        t.shape = c.inputs[i].value.shape();
        t.device = device_dtype(DType::f32, precision);
        if (c.inputs[i].constant) t.constant = &g.value(ids[i]).constant;
      }
      info.inputs.push_back(t);
      info.present.push_back(c.inputs[i].value.defined());
    }
    for (const Tensor& e : expected) info.outputs.push_back({e.shape(), DType::f32, storage, nullptr});
    std::vector<const OpEntry*> entries = find_ops(c.op);
    ASSERT_FALSE(entries.empty()) << c.op << " has no Vulkan plan";
    OpPlan plan;
    try {
      plan = entries[0]->plan(info);
    } catch (const Error& e) {
      FAIL() << what << ": declined: " << e.what();
    }
    if (!variant.empty()) {
      EXPECT_EQ(plan.variant.substr(0, variant.size()), variant) << what;
    }
    std::vector<std::vector<uint8_t>> in_bytes;
    for (const Input& in : c.inputs) in_bytes.push_back(in.value.defined() ? to_device(in.value, storage) : std::vector<uint8_t>());
    std::vector<size_t> out_bytes;
    for (const Tensor& e : expected) out_bytes.push_back(size_t(e.numel()) * device_type_bytes(storage));
    std::vector<std::vector<uint8_t>> got = runner_->run(plan, in_bytes, out_bytes);
    for (size_t i = 0; i < expected.size(); ++i) {
      Tensor y = from_device(got[i], expected[i].shape(), storage);
      double peak = 1.0;
      for (int64_t j = 0; j < expected[i].numel(); ++j) peak = std::max(peak, std::abs(expected[i].get(j)));
      const double tol = (precision == Precision::fp16 ? 1e-2 : 1e-4) * peak;
      const double err = test::max_abs_diff(y, expected[i]);
      EXPECT_LE(err, tol) << what << " (" << precision_name(precision) << ", " << plan.variant << ") output " << i
                          << ": max abs error " << err;
    }
  }

  static VulkanContext* ctx_;
  static PlanRunner* runner_;
  static std::string skip_reason_;
  size_t seen_messages_ = 0;
};
VulkanContext* VulkanMathOps::ctx_ = nullptr;
PlanRunner* VulkanMathOps::runner_ = nullptr;
std::string VulkanMathOps::skip_reason_;

Tensor rnd(Shape s, uint64_t seed, float lo = -1.0f, float hi = 1.0f) { return test::random_tensor(std::move(s), seed, lo, hi); }

// Sets an environment variable for one scope (the plans read VOLVOX_VK_CONV / VOLVOX_VK_GEMM).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    setenv(name, value, 1);
  }
  ~ScopedEnv() {
    if (old_) setenv(name_, old_->c_str(), 1);
    else unsetenv(name_);
  }

 private:
  const char* name_;
  std::optional<std::string> old_;
};

// ---------------- MatMul, Gemm ----------------

TEST_P(VulkanMathOps, MatMul) {
  struct Case {
    Shape a, b;
    bool b_constant;
  };
  const Case cases[] = {
      {{1, 17}, {17, 5}, false},          {{1, 17}, {17, 5}, true},          {{70, 33}, {33, 65}, false},
      {{3, 1, 7, 9}, {9, 11}, true},      {{3, 1, 7, 9}, {4, 9, 11}, false}, {{17}, {17, 5}, false},
      {{2, 3, 17}, {17}, false},          {{5}, {5}, false},                 {{2, 1, 3, 4, 6}, {1, 5, 1, 6, 7}, false},
      {{129, 40}, {40, 3}, true},         {{1, 600}, {600, 70}, true},       {{2, 3, 300}, {300, 20}, false},
  };
  uint64_t seed = 1;
  for (const Case& c : cases) {
    OneNode n{"MatMul", {}, {{rnd(c.a, seed++)}, {rnd(c.b, seed++), c.b_constant}}};
    check(n, cat("MatMul ", c.a.str(), " x ", c.b.str(), c.b_constant ? " (constant B)" : ""));
  }
}

TEST_P(VulkanMathOps, Gemm) {
  struct Case {
    int64_t m, k, n;
    bool ta, tb;
    float alpha, beta;
    Shape c;  // empty rank 0 with c_present false: no C
    bool c_present, b_constant, c_constant;
  };
  const Case cases[] = {
      {1, 17, 5, false, false, 1.0f, 1.0f, {5}, true, true, true},
      {7, 9, 11, true, false, 0.5f, 2.0f, {7, 1}, true, false, false},
      {7, 9, 11, false, true, 1.5f, 1.0f, {7, 11}, true, false, true},
      {7, 9, 11, true, true, 1.0f, -1.0f, {}, true, true, false},
      {65, 70, 66, false, true, 1.0f, 1.0f, {66}, true, true, true},
      {3, 4, 5, false, false, 1.0f, 1.0f, {}, false, false, false},
  };
  uint64_t seed = 100;
  for (const Case& c : cases) {
    Attributes a;
    a.set("transA", int64_t(c.ta));
    a.set("transB", int64_t(c.tb));
    a.set("alpha", c.alpha);
    a.set("beta", c.beta);
    Shape as = c.ta ? Shape{c.k, c.m} : Shape{c.m, c.k}, bs = c.tb ? Shape{c.n, c.k} : Shape{c.k, c.n};
    OneNode n{"Gemm", a, {{rnd(as, seed++)}, {rnd(bs, seed++), c.b_constant}}};
    if (c.c_present) n.inputs.push_back({rnd(c.c, seed++), c.c_constant});
    check(n, cat("Gemm ", c.m, "x", c.k, "x", c.n, c.ta ? " transA" : "", c.tb ? " transB" : "", " C ",
                 c.c_present ? c.c.str() : "none"));
  }
}

// Every GEMM user with K forced into 3 chunks (partial sums, then the reduce pass).
TEST_P(VulkanMathOps, SplitK) {
  ScopedEnv env("VOLVOX_VK_SPLITK", "3");
  uint64_t seed = 150;
  check(OneNode{"MatMul", {}, {{rnd(Shape{3, 1, 7, 90}, seed++)}, {rnd(Shape{4, 90, 11}, seed++)}}}, "MatMul split K",
        "tiled_splitk3");
  Attributes a;
  a.set("transB", int64_t(1));
  a.set("alpha", 0.5f);
  check(OneNode{"Gemm", a, {{rnd(Shape{5, 200}, seed++)}, {rnd(Shape{9, 200}, seed++), true}, {rnd(Shape{9}, seed++), true}}},
        "Gemm split K", "tiled_splitk3");
  ScopedEnv conv("VOLVOX_VK_CONV", "gemm");
  Attributes c;
  c.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  c.set("relu", int64_t(1));
  check(OneNode{kFusedConv, c, {{rnd(Shape{2, 24, 5, 6}, seed++)}, {rnd(Shape{7, 24, 3, 3}, seed++), true}, {rnd(Shape{7}, seed++), true}}},
        "vx.FusedConv split K", "gemm_tiled_splitk3");
}

// ---------------- Conv, vx.FusedConv, ConvTranspose ----------------

struct ConvCase {
  Shape x, w;
  std::vector<int64_t> strides, dilations, pads;
  int64_t group;
  std::string auto_pad;
  bool bias;
};

Attributes conv_attrs(const ConvCase& c) {
  Attributes a;
  if (!c.strides.empty()) a.set("strides", c.strides);
  if (!c.dilations.empty()) a.set("dilations", c.dilations);
  if (!c.pads.empty()) a.set("pads", c.pads);
  if (c.group != 1) a.set("group", c.group);
  if (!c.auto_pad.empty()) a.set("auto_pad", c.auto_pad);
  return a;
}

const ConvCase kConvCases[] = {
    // 2-D: 5 outputs, stride 2, dilation 2, asymmetric pads, groups 3
    {{1, 3, 7, 9}, {5, 3, 3, 3}, {2, 2}, {2, 2}, {1, 0, 2, 1}, 1, "", true},
    {{2, 6, 7, 9}, {9, 2, 3, 3}, {2, 1}, {1, 2}, {0, 1, 2, 1}, 3, "", true},
    {{1, 6, 7, 9}, {6, 1, 3, 3}, {1, 1}, {}, {1, 1, 1, 1}, 6, "", true},           // depthwise
    {{1, 4, 7, 9}, {8, 1, 5, 3}, {2, 2}, {}, {}, 4, "SAME_UPPER", false},         // depthwise x2
    {{1, 5, 7, 9}, {7, 5, 4, 2}, {3, 2}, {}, {}, 1, "SAME_LOWER", true},
    {{1, 5, 7, 9}, {7, 5, 3, 3}, {}, {}, {}, 1, "VALID", false},
    {{2, 17, 5, 6}, {19, 17, 1, 1}, {}, {}, {}, 1, "", true},                     // pointwise
    {{1, 33, 9, 10}, {70, 33, 3, 3}, {}, {}, {1, 1, 1, 1}, 1, "", true},          // several tiles
    {{1, 4, 17}, {6, 2, 3}, {2}, {2}, {1, 2}, 2, "", true},                       // 1-D
    {{1, 3, 4, 5, 6}, {4, 3, 2, 3, 2}, {1, 2, 1}, {}, {1, 0, 1, 0, 1, 1}, 1, "", true},  // 3-D
};

TEST_P(VulkanMathOps, Conv) {
  uint64_t seed = 200;
  for (const char* mode : {"auto", "direct", "gemm"}) {
    ScopedEnv env("VOLVOX_VK_CONV", mode);
    for (const ConvCase& c : kConvCases)
      for (bool constant_w : {true, false}) {
        OneNode n{"Conv", conv_attrs(c), {{rnd(c.x, seed++)}, {rnd(c.w, seed++, -0.5f, 0.5f), constant_w}}};
        if (c.bias) n.inputs.push_back({rnd(Shape{c.w[0]}, seed++), constant_w});
        std::string expect = std::string(mode) == "auto" ? "" : mode;
        check(n, cat("Conv ", mode, " x ", c.x.str(), " w ", c.w.str(), " group ", c.group, " ", c.auto_pad,
                     constant_w ? " constant W" : " W input"), expect);
      }
  }
}

TEST_P(VulkanMathOps, FusedConvReluPool) {
  uint64_t seed = 300;
  for (bool pool : {false, true}) {
    Attributes a;
    a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
    a.set("relu", int64_t(1));
    a.set("pool", int64_t(pool));
    OneNode n{kFusedConv, a, {{rnd(Shape{1, 5, 9, 11}, seed++)}, {rnd(Shape{6, 5, 3, 3}, seed++), true},
                              {rnd(Shape{6}, seed++), true}}};
    check(n, cat("vx.FusedConv relu", pool ? " pool" : ""));
  }
}

TEST_P(VulkanMathOps, ConvTranspose) {
  struct Case {
    Shape x, w;
    Attributes a;
    bool bias;
  };
  auto attrs = [](std::vector<std::pair<std::string, std::vector<int64_t>>> ints, int64_t group = 1,
                  std::string auto_pad = "") {
    Attributes a;
    for (auto& [k, v] : ints) a.set(k, v);
    if (group != 1) a.set("group", group);
    if (!auto_pad.empty()) a.set("auto_pad", auto_pad);
    return a;
  };
  const Case cases[] = {
      {{1, 3, 4, 5}, {3, 2, 3, 3}, attrs({{"strides", {2, 2}}}), true},
      {{1, 6, 4, 5}, {6, 2, 3, 2}, attrs({{"strides", {2, 3}}, {"pads", {1, 0, 0, 1}}, {"output_padding", {1, 1}}}, 3), true},
      {{2, 4, 3, 5}, {4, 3, 3, 3}, attrs({{"strides", {2, 1}}, {"dilations", {2, 2}}, {"pads", {1, 2, 0, 1}}}), false},
      {{1, 2, 3, 4}, {2, 3, 3, 3}, attrs({{"strides", {2, 2}}, {"output_shape", {7, 9}}}), true},
      {{1, 2, 3, 4}, {2, 3, 3, 3}, attrs({{"strides", {2, 2}}}, 1, "SAME_UPPER"), true},
      {{1, 2, 3, 4}, {2, 3, 4, 3}, attrs({{"strides", {2, 2}}}, 1, "SAME_LOWER"), false},
      {{1, 4, 7}, {4, 1, 3}, attrs({{"strides", {3}}}, 2), true},
      {{1, 2, 2, 3, 2}, {2, 2, 2, 2, 3}, attrs({{"strides", {2, 1, 2}}}), true},
  };
  uint64_t seed = 400;
  for (const Case& c : cases)
    for (bool constant_w : {true, false}) {
      OneNode n{"ConvTranspose", c.a, {{rnd(c.x, seed++)}, {rnd(c.w, seed++), constant_w}}};
      if (c.bias) n.inputs.push_back({rnd(Shape{c.w[1] * c.a.get_int("group", 1)}, seed++), constant_w});
      check(n, cat("ConvTranspose x ", c.x.str(), " w ", c.w.str(), constant_w ? " constant W" : " W input"));
    }
}

// ---------------- pooling ----------------

TEST_P(VulkanMathOps, Pooling) {
  struct Case {
    std::string op;
    Shape x;
    std::vector<int64_t> kernel, strides, pads, dilations;
    int64_t ceil_mode, include_pad;
    std::string auto_pad;
  };
  const Case cases[] = {
      {"MaxPool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
      {"MaxPool", {2, 2, 7, 9}, {3, 2}, {2, 2}, {1, 1, 1, 1}, {2, 1}, 1, 0, ""},
      {"MaxPool", {1, 2, 7, 9}, {2, 2}, {2, 2}, {}, {}, 0, 0, "SAME_UPPER"},
      {"MaxPool", {1, 2, 11}, {3}, {2}, {1, 1}, {}, 1, 0, ""},
      {"MaxPool", {1, 2, 4, 5, 6}, {2, 2, 3}, {2, 1, 2}, {}, {}, 0, 0, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 1, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 1, ""},
      {"AveragePool", {1, 3, 7, 9}, {3, 2}, {2, 2}, {1, 1, 0, 1}, {}, 1, 0, ""},
      {"AveragePool", {1, 2, 7, 9}, {2, 3}, {2, 2}, {}, {}, 0, 1, "SAME_LOWER"},
      {"LpPool", {1, 3, 7, 9}, {3, 3}, {2, 2}, {1, 0, 1, 1}, {}, 0, 0, ""},
  };
  uint64_t seed = 500;
  for (const Case& c : cases) {
    Attributes a;
    a.set("kernel_shape", c.kernel);
    if (!c.strides.empty()) a.set("strides", c.strides);
    if (!c.pads.empty()) a.set("pads", c.pads);
    if (!c.dilations.empty()) a.set("dilations", c.dilations);
    if (c.ceil_mode) a.set("ceil_mode", c.ceil_mode);
    if (c.include_pad) a.set("count_include_pad", c.include_pad);
    if (!c.auto_pad.empty()) a.set("auto_pad", c.auto_pad);
    check(OneNode{c.op, a, {{rnd(c.x, seed++)}}, 1, 19},
          cat(c.op, " ", c.x.str(), " kernel ", Shape(c.kernel).str(), c.ceil_mode ? " ceil" : "",
              c.include_pad ? " include_pad" : "", " ", c.auto_pad));
  }
  for (const char* op : {"GlobalAveragePool", "GlobalMaxPool", "GlobalLpPool"})
    for (Shape s : {Shape{2, 3, 7, 9}, Shape{1, 5, 300}, Shape{1, 2, 3, 4, 5}})
      check(OneNode{op, {}, {{rnd(s, seed++)}}}, cat(op, " ", s.str()));
}

// ---------------- normalisations ----------------

TEST_P(VulkanMathOps, BatchNormalization) {
  uint64_t seed = 600;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{3, 4}, Shape{1, 5, 3, 2, 3}}) {
      const int64_t c = s[1];
      Attributes a;
      a.set("epsilon", 1e-3f);
      OneNode n{"BatchNormalization", a,
                {{rnd(s, seed++)}, {rnd(Shape{c}, seed++, 0.5f, 1.5f), constant}, {rnd(Shape{c}, seed++), constant},
                 {rnd(Shape{c}, seed++), constant}, {rnd(Shape{c}, seed++, 0.2f, 2.0f), constant}}};
      check(n, cat("BatchNormalization ", s.str(), constant ? " constant" : " inputs"), constant ? "folded" : "direct");
    }
}

TEST_P(VulkanMathOps, InstanceNormalization) {
  uint64_t seed = 700;
  for (bool constant : {true, false})
    for (Shape s : {Shape{2, 3, 5, 7}, Shape{1, 4, 600}, Shape{1, 2, 3, 2, 3}}) {
      OneNode n{"InstanceNormalization", {},
                {{rnd(s, seed++, -2.0f, 3.0f)}, {rnd(Shape{s[1]}, seed++), constant}, {rnd(Shape{s[1]}, seed++), constant}}};
      check(n, cat("InstanceNormalization ", s.str(), constant ? " constant" : " inputs"));
    }
}

TEST_P(VulkanMathOps, LayerNormalization) {
  struct Case {
    Shape x;
    int64_t axis;
    Shape scale, bias;  // rank 0 bias: absent
    bool constant, stats;
  };
  const Case cases[] = {
      {{2, 3, 17}, -1, {17}, {17}, true, false},  {{2, 3, 17}, 1, {3, 17}, {3, 17}, false, false},
      {{5, 700}, -1, {700}, {}, true, true},      {{2, 3, 4, 5}, 2, {1, 5}, {4, 1}, true, true},
      {{3, 7}, 0, {3, 7}, {3, 7}, false, true},
  };
  uint64_t seed = 800;
  for (const Case& c : cases) {
    Attributes a;
    a.set("axis", c.axis);
    a.set("epsilon", 1e-4f);
    OneNode n{"LayerNormalization", a, {{rnd(c.x, seed++, -3.0f, 5.0f)}, {rnd(c.scale, seed++), c.constant}}, c.stats ? 3u : 1u};
    if (c.bias.rank() > 0) n.inputs.push_back({rnd(c.bias, seed++), c.constant});
    check(n, cat("LayerNormalization ", c.x.str(), " axis ", c.axis, c.stats ? " with statistics" : ""));
  }
}

INSTANTIATE_TEST_SUITE_P(All, VulkanMathOps, ::testing::Values(Precision::fp32, Precision::fp16),
                         [](const auto& info) { return std::string(precision_name(info.param)); });

}  // namespace
}  // namespace vx::vk

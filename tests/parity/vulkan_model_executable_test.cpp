// The Vulkan model executor on multi-node graphs, against the CPU: GPU segments with a CPU fallback
// node between them (transfers both ways), aliases, constants, shape computations folded at bind
// time, int64 and bool at the host boundary, data-dependent shapes, the runner's plan cache,
// timestamps and object release. Validation layer on (any message fails). Tolerances as in
// vulkan_op_test_util.h (fp32: 1e-5 relative + 1e-6; fp16 storage: 1e-2 relative + 1e-3).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "backends/cpu/kernel_registry.h"
#include "backends/vulkan/vk_common.h"
#include "common/test_util.h"
#include "common/vulkan_op_test_util.h"
#include "core/half.h"
#include "formats/npy.h"
#include "formats/onnx_import.h"
#include "ops/shape_fn.h"
#include "backends/vulkan/vulkan_compute_device.h"
#include "session/device_model_runner.h"

namespace vx::test {
namespace {

class VulkanExecutor : public VulkanOpTest {};

// A test-only op exercising what op families rely on: several dispatches, a scratch buffer, a
// constant blob and two outputs. y0 = x + [0, 1, 2, ...] (through scratch), y1 = x.
struct UnaryPushMirror {  // eltwise_unary.comp's push block
  uint32_t count = 0;
  int32_t op = 0;
  float alpha = 0, beta = 0, gamma = 0;
  int32_t flags = 0, imin = 0, imax = 0;
};
struct BinaryPushMirror {  // eltwise_binary.comp's push block
  uint32_t count = 0;
  int32_t op = 0;
  float alpha = 0, beta = 0, gamma = 0;
  int32_t flags = 0;
  int32_t dims[6]{}, sa[6]{}, sb[6]{}, sc[6]{};
};

vk::OpPlan plan_scratch_blob_test(const vk::OpInfo& info) {
  const vk::OpTensor& x = info.inputs[0];
  VX_CHECK(x.device == vk::DeviceType::f32 || x.device == vk::DeviceType::f16, Unsupported, "floats only");
  const uint32_t n = uint32_t(x.shape.numel());
  vk::OpPlan plan;
  std::vector<float> ramp(n);
  for (uint32_t i = 0; i < n; ++i) ramp[i] = float(i);
  if (x.device == vk::DeviceType::f32) {
    plan.constants.push_back(std::vector<uint8_t>(reinterpret_cast<uint8_t*>(ramp.data()),
                                                  reinterpret_cast<uint8_t*>(ramp.data() + n)));
  } else {
    std::vector<uint8_t> bytes(n * 2);
    for (uint32_t i = 0; i < n; ++i) {
      const uint16_t h = float_to_half(ramp[i]);
      std::memcpy(bytes.data() + i * 2, &h, 2);
    }
    plan.constants.push_back(bytes);
  }
  plan.scratch_bytes.push_back(uint64_t(n) * vk::device_type_bytes(x.device));
  const char* t = x.device == vk::DeviceType::f32 ? "f32" : "f16";
  vk::Dispatch copy_in;  // scratch = x
  copy_in.shader = cat("eltwise_unary.", t, "_", t);
  copy_in.bindings = {vk::Binding::in(0), vk::Binding::scratch_buffer(0)};
  copy_in.set_push(UnaryPushMirror{n});
  copy_in.groups = vk::linear_groups(n);
  vk::Dispatch add;  // y0 = scratch + blob
  add.shader = cat("eltwise_binary.", t, "_", t, "_", t);
  add.bindings = {vk::Binding::scratch_buffer(0), vk::Binding::constant_blob(0), vk::Binding::out(0)};
  BinaryPushMirror bp;
  bp.count = n;
  bp.flags = 7;
  for (int d = 0; d < 6; ++d) bp.dims[d] = 1;
  bp.dims[5] = int32_t(n);
  add.set_push(bp);
  add.groups = vk::linear_groups(n);
  vk::Dispatch copy_out = copy_in;  // y1 = x
  copy_out.bindings = {vk::Binding::in(0), vk::Binding::out(1)};
  plan.dispatches = {copy_in, add, copy_out};
  plan.variant = "test";
  return plan;
}

VX_REGISTER_VK_OP(scratch_blob_test, {"ScratchBlobTest", "vx.test", 0, plan_scratch_blob_test});
// Shape functions of ops in their own domain are registered under that domain.
const bool scratch_blob_test_shape_registered = (register_shape_fn(
                                                     "ScratchBlobTest",
                                                     [](const Node& node, Graph& g) {
                                                       for (ValueId y : node.outputs) {
                                                         g.value(y).shape = g.value(node.inputs[0]).shape;
                                                         g.value(y).dtype = g.value(node.inputs[0]).dtype;
                                                       }
                                                       return true;
                                                     },
                                                     "vx.test"),
                                                 true);

TEST_F(VulkanExecutor, ScratchConstantBlobsAndTwoOutputs) {
  Graph g;
  g.opsets[""] = 18;
  g.opsets["vx.test"] = 1;
  ValueId x = g.add_value("x", DType::f32, Shape{3, 37});
  ValueId y0 = g.add_value("y0", DType::f32, Shape{}), y1 = g.add_value("y1", DType::f32, Shape{});
  ValueId r = g.add_value("r", DType::f32, Shape{});
  g.add_node("ScratchBlobTest", "test", {x}, {y0, y1}).domain = "vx.test";
  g.add_node("Relu", "relu", {y1}, {r});
  g.inputs = {x};
  g.outputs = {y0, r};
  Tensor in = random_tensor(Shape{3, 37}, 9, -2, 2);
  Tensor want0 = in.clone(), want1 = in.clone();
  for (int64_t i = 0; i < in.numel(); ++i) {
    want0.data<float>()[i] += float(i);
    want1.data<float>()[i] = std::max(0.0f, want1.data<float>()[i]);
  }
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    runtime::ExecutableOptions o;
    o.precision = p;
    auto exe = make_executable(vk::compute_device(ctx()), g, {}, o);
    ASSERT_TRUE(exe->fallbacks().empty()) << exe->placement_report();
    EXPECT_GE(exe->memory_needs().other_bytes, uint64_t(in.numel()) * (p == Precision::fp16 ? 2 : 4));
    const Tolerance tol = p == Precision::fp16 ? Tolerance{2e-3, 2e-3} : default_tolerance(p);
    EXPECT_TRUE(outputs_match({want0, want1}, exe->run({in}), tol)) << precision_name(p);
  }
}

// A float op with a CPU kernel (Det's) and neither a Vulkan op nor a shape function: the CPU
// fallback of the tests below (every ONNX op gets a Vulkan op sooner or later).
VX_REGISTER_CPU_KERNEL(cpu_only_det_test, {"CpuOnlyDet", "reference", 0, nullptr,
                                           [](cpu::KernelContext& c) { cpu::find_reference_kernel("Det")->run(c); },
                                           nullptr, "vx.test"});

// x [B,3,3] -> Mul(x, 2) -> vx.test.CpuOnlyDet (no Vulkan op: CPU) -> Add(det, y) -> Relu -> out0;
// Identity(mul) -> out1.
Graph mixed_graph() {
  Graph g;
  g.name = "mixed";
  g.opsets[""] = 18;
  ValueId x = g.add_value("x", DType::f32, Shape{-1, 3, 3});
  ValueId y = g.add_value("y", DType::f32, Shape{-1});
  g.inputs = {x, y};
  ValueId two = g.add_constant("two", Tensor::from<float>({}, {2.0f}));
  ValueId m = g.add_value("m", DType::f32, Shape{});
  ValueId d = g.add_value("d", DType::f32, Shape{});
  ValueId s = g.add_value("s", DType::f32, Shape{});
  ValueId r = g.add_value("r", DType::f32, Shape{});
  ValueId i = g.add_value("i", DType::f32, Shape{});
  g.add_node("Mul", "mul", {x, two}, {m});
  g.add_node("CpuOnlyDet", "det", {m}, {d}).domain = "vx.test";
  g.add_node("Add", "add", {d, y}, {s});
  g.add_node("Relu", "relu", {s}, {r});
  g.add_node("Identity", "identity", {m}, {i});
  g.outputs = {r, i};
  return g;
}

TEST_F(VulkanExecutor, GpuCpuGpuSegmentsMatchTheCpu) {
  Graph g = mixed_graph();
  std::vector<Tensor> inputs = {random_tensor(Shape{4, 3, 3}, 1), random_tensor(Shape{4}, 2, -0.5f, 0.5f)};
  std::vector<Tensor> expected = run_cpu_reference(g, inputs);
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    runtime::ExecutableOptions o;
    o.precision = p;
    // CpuOnlyDet has no shape function: the sample inputs let the executor observe its output shape.
    auto exe = make_executable(vk::compute_device(ctx()), g, {{"x", Shape{4, 3, 3}}, {"y", Shape{4}}}, o, &inputs);
    EXPECT_EQ(exe->segment_count(), 3u);  // mul | det | add, relu, identity
    auto fallbacks = exe->fallbacks();
    ASSERT_EQ(fallbacks.size(), 1u);
    EXPECT_EQ(fallbacks[0].op, "vx.test.CpuOnlyDet");
    EXPECT_NE(fallbacks[0].reason.find("no Vulkan op"), std::string::npos) << fallbacks[0].reason;
    EXPECT_FALSE(exe->floats_all_preferred());
    for (int run = 0; run < 2; ++run) {  // the recorded command buffers are resubmitted
      std::vector<Tensor> got = exe->run(inputs);
      const std::vector<Tensor>& want = p == Precision::fp16 ? run_cpu_reference(g, round_to_fp16(inputs)) : expected;
      // Det of 3x3 cubes the error of fp16 storage: 3e-2 relative there.
      EXPECT_TRUE(outputs_match(want, got, p == Precision::fp16 ? Tolerance{3e-2, 3e-3} : default_tolerance(p)))
          << precision_name(p) << " run " << run;
    }
  }
}

TEST_F(VulkanExecutor, WithoutSampleInputsUnknownShapesStayOnTheCpu) {
  Graph g = mixed_graph();
  std::vector<Tensor> inputs = {random_tensor(Shape{2, 3, 3}, 1), random_tensor(Shape{2}, 2)};
  auto exe = make_executable(vk::compute_device(ctx()), g, {{"x", Shape{2, 3, 3}}, {"y", Shape{2}}}, {});
  ASSERT_EQ(exe->fallbacks().size(), 3u);  // CpuOnlyDet, and Add and Relu of its (unknown) output shape
  EXPECT_NE(exe->fallbacks()[1].reason.find("not known when planning"), std::string::npos) << exe->fallbacks()[1].reason;
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, inputs), exe->run(inputs), {}));
}

TEST_F(VulkanExecutor, ShapeComputationsFoldAndIntegersCrossTheBoundary) {
  // x f32 [2,3,4] -> Shape -> Gather(1) -> (3) ; Reshape-free: Cast(x > 0) to int64 -> out_i64;
  // k int64 input [2,3,4] -> Cast to float -> Add x -> out_f.
  Graph g;
  g.opsets[""] = 18;
  ValueId x = g.add_value("x", DType::f32, Shape{2, 3, 4});
  ValueId k = g.add_value("k", DType::i64, Shape{2, 3, 4});
  g.inputs = {x, k};
  ValueId shape = g.add_value("shape", DType::i64, Shape{3});
  ValueId idx = g.add_constant("idx", Tensor::from<int64_t>({}, {1}));
  ValueId dim = g.add_value("dim", DType::i64, Shape{});
  ValueId gt = g.add_value("gt", DType::boolean, Shape{});
  ValueId zero = g.add_constant("zero", Tensor::from<float>({}, {0.0f}));
  ValueId as_int = g.add_value("as_int", DType::i64, Shape{});
  ValueId kf = g.add_value("kf", DType::f32, Shape{});
  ValueId sum = g.add_value("sum", DType::f32, Shape{});
  ValueId dimf = g.add_value("dimf", DType::f32, Shape{});
  ValueId scaled = g.add_value("scaled", DType::f32, Shape{});
  Attributes to_i64, to_f32;
  to_i64.set("to", int64_t(7));
  to_f32.set("to", int64_t(1));
  g.add_node("Shape", "shape", {x}, {shape});
  g.add_node("Gather", "gather", {shape, idx}, {dim});
  g.add_node("Cast", "dim_to_float", {dim}, {dimf}, to_f32);
  g.add_node("Greater", "gt", {x, zero}, {gt});
  g.add_node("Cast", "to_i64", {gt}, {as_int}, to_i64);
  g.add_node("Cast", "k_to_f32", {k}, {kf}, to_f32);
  g.add_node("Add", "add", {x, kf}, {sum});
  g.add_node("Mul", "scale", {sum, dimf}, {scaled});
  g.outputs = {as_int, scaled};
  Tensor kt(DType::i64, Shape{2, 3, 4});
  for (int64_t i = 0; i < kt.numel(); ++i) kt.data<int64_t>()[i] = i * 37 - 400;
  std::vector<Tensor> inputs = {random_tensor(Shape{2, 3, 4}, 5), kt};
  auto exe = make_executable(vk::compute_device(ctx()), g, {}, {});
  // Shape, Gather and the Cast of the folded dim became constants; everything left is on the GPU.
  EXPECT_TRUE(exe->fallbacks().empty()) << exe->placement_report();
  EXPECT_TRUE(exe->floats_all_preferred());
  for (const auto& p : exe->placements()) EXPECT_FALSE(p.on_host) << p.node << ": " << p.reason;
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, inputs), exe->run(inputs), default_tolerance(Precision::fp32)));
}

// Greater (GPU) -> NonZero (CPU, data-dependent shape) -> Cast to float (GPU): shapes are observed on
// the first inputs; other data changes them, which the runner answers by rebuilding.
TEST_F(VulkanExecutor, DataDependentShapesAreObservedAndRebuilt) {
  Graph g;
  g.opsets[""] = 18;
  ValueId x = g.add_value("x", DType::f32, Shape{6});
  g.inputs = {x};
  ValueId zero = g.add_constant("zero", Tensor::from<float>({}, {0.0f}));
  ValueId gt = g.add_value("gt", DType::boolean, Shape{});
  ValueId nz = g.add_value("nz", DType::i64, Shape{});
  ValueId f = g.add_value("f", DType::f32, Shape{});
  Attributes to_f32;
  to_f32.set("to", int64_t(1));
  g.add_node("Greater", "gt", {x, zero}, {gt});
  g.add_node("NonZero", "nonzero", {gt}, {nz});
  g.add_node("Cast", "cast", {nz}, {f}, to_f32);
  g.outputs = {f};
  Tensor a = Tensor::from<float>({6}, {1, -1, 2, -2, 3, -3});
  Tensor b = Tensor::from<float>({6}, {1, 1, 2, -2, 3, 3});
  DeviceModelRunner runner(vk::compute_device(ctx()), g);
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {a}), runner.run({a}), {}));
  auto first = runner.last_executable();
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {b}), runner.run({b}), {}));
  EXPECT_NE(runner.last_executable(), first);  // rebuilt for the new shape of nz
  EXPECT_THROW(first->run({b}), Error);
}

TEST_F(VulkanExecutor, RunnerCachesOneExecutablePerInputShape) {
  Graph g = mixed_graph();
  DeviceModelRunner runner(vk::compute_device(ctx()), g);
  for (int64_t b : {2, 5, 2, 5, 2}) {
    std::vector<Tensor> in = {random_tensor(Shape{b, 3, 3}, uint64_t(b)), random_tensor(Shape{b}, uint64_t(b + 1))};
    EXPECT_TRUE(outputs_match(run_cpu_reference(g, in), runner.run(in), {})) << "batch " << b;
  }
  EXPECT_EQ(runner.cache().size(), 2u);
  EXPECT_EQ(runner.cache().misses(), 2u);
  EXPECT_EQ(runner.cache().hits(), 3u);
}

TEST_F(VulkanExecutor, ArenaSharesMemoryAlongAChain) {
  Graph g;
  g.opsets[""] = 18;
  ValueId v = g.add_value("x", DType::f32, Shape{1000});
  g.inputs = {v};
  for (int i = 0; i < 10; ++i) {
    ValueId next = g.add_value(cat("v", i), DType::f32, Shape{});
    g.add_node(i % 2 ? "Relu" : "Neg", cat("n", i), {v}, {next});
    v = next;
  }
  g.outputs = {v};
  Tensor x = random_tensor(Shape{1000}, 3);
  auto exe = make_executable(vk::compute_device(ctx()), g, {}, {});
  EXPECT_LE(exe->memory_needs().arena_bytes, 3u * 4096u);  // two or three 4000-byte buffers, not eleven
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, {x}), exe->run({x}), {}));
}

// Q, K and V as Gathers of a stacked product's leading slices are aliases into it (no dispatch),
// and the product stays alive until the last of them is read: nodes in between whose results could
// take its memory read the right values.
TEST_F(VulkanExecutor, LeadingSlicesAreAliasesThatKeepTheirRootAlive) {
  Graph g;
  g.opsets[""] = 18;
  const ValueId x = g.add_value("x", DType::f32, Shape{128, 3, 64});
  g.inputs = {x};
  const ValueId stacked = g.add_value("stacked", DType::f32, Shape{});
  g.add_node("Transpose", "stack", {x}, {stacked}).attrs.set("perm", std::vector<int64_t>{1, 0, 2});
  ValueId slice[3];
  for (int i = 0; i < 3; ++i) {
    slice[i] = g.add_value(cat("s", i), DType::f32, Shape{});
    g.add_node("Gather", cat("gather", i), {stacked, g.add_constant(cat("i", i), Tensor::from<int64_t>(Shape{}, {i}))},
               {slice[i]});
  }
  ValueId v = slice[0];
  for (int i = 0; i < 4; ++i) {  // results as large as a slice, which the arena may place anywhere free
    const ValueId next = g.add_value(cat("r", i), DType::f32, Shape{});
    g.add_node(i % 2 ? "Neg" : "Relu", cat("chain", i), {v}, {next});
    v = next;
  }
  const ValueId sum = g.add_value("sum", DType::f32, Shape{}), out = g.add_value("out", DType::f32, Shape{});
  g.add_node("Add", "add_k", {v, slice[1]}, {sum});
  g.add_node("Mul", "mul_v", {sum, slice[2]}, {out});
  g.outputs = {out, slice[1]};
  const std::vector<Tensor> inputs = {random_tensor(Shape{128, 3, 64}, 8)};
  for (Precision p : {Precision::fp32, Precision::fp16}) {
    if (p == Precision::fp16 && !ctx().fp16_enabled()) continue;
    runtime::ExecutableOptions o;
    o.precision = p;
    o.timestamps = runtime::Timestamps::per_node;
    auto exe = make_executable(vk::compute_device(ctx()), g, {}, o);
    Profile profile;
    const std::vector<Tensor> got = exe->run(inputs, &profile);
    const std::vector<Tensor> want = run_cpu_reference(g, p == Precision::fp16 ? round_to_fp16(inputs) : inputs);
    EXPECT_TRUE(outputs_match(want, got, default_tolerance(p))) << precision_name(p);
    int aliases = 0;
    for (const auto& e : profile.entries)
      if (e.op == "Gather") aliases += e.variant == "vulkan:alias" ? 1 : 0;
    EXPECT_EQ(aliases, 3) << precision_name(p);
  }
}

// x [4, 6] -> (Relu, Reshape to [6, 4] or back) `pairs` times.
Graph relus_and_reshapes(int pairs) {
  Graph g;
  g.opsets[""] = 17;
  ValueId v = g.add_value("x", DType::f32, Shape{4, 6});
  g.inputs = {v};
  for (int i = 0; i < pairs; ++i) {
    const ValueId relu = g.add_value(cat("r", i), DType::f32, Shape{});
    g.add_node("Relu", cat("relu", i), {v}, {relu});
    const ValueId shape = g.add_constant(cat("s", i), Tensor::from<int64_t>(Shape{2}, {i % 2 ? 4 : 6, i % 2 ? 6 : 4}));
    v = g.add_value(cat("v", i), DType::f32, Shape{});
    g.add_node("Reshape", cat("reshape", i), {relu, shape}, {v});
  }
  g.outputs = {v};
  return g;
}

// Aliases (Reshape) record no timestamp, so they cost the GPU nothing and profile as 0 ms; the
// dispatches around them keep theirs.
TEST_F(VulkanExecutor, AliasesRecordNoTimestamp) {
  const Graph g = relus_and_reshapes(4);
  const std::vector<Tensor> inputs = {random_tensor(Shape{4, 6}, 5)};
  runtime::ExecutableOptions o;
  o.timestamps = runtime::Timestamps::per_node;
  auto exe = make_executable(vk::compute_device(ctx()), g, {}, o);
  for (int run = 0; run < 2; ++run) {  // the second run reuses the query pool
    Profile profile;
    EXPECT_TRUE(outputs_match(run_cpu_reference(g, inputs), exe->run(inputs, &profile), {}));
    ASSERT_EQ(profile.entries.size(), 8u);
    for (const auto& e : profile.entries) {
      if (e.variant == "vulkan:alias") {
        EXPECT_EQ(e.milliseconds, 0.0) << e.node;
      }
      EXPECT_GE(e.milliseconds, 0.0) << e.node;
    }
  }
}

// per_segment: two timestamps around the GPU work, whose time the nodes share equally (the aliases
// too: the profile cannot tell them apart), and results as with per-node timestamps.
TEST_F(VulkanExecutor, SegmentTimestampsShareTheSegmentsTime) {
  if (!ctx().info().timestamps) GTEST_SKIP() << ctx().info().name << " has no timestamps on its compute queue";
  const Graph g = relus_and_reshapes(2);
  const std::vector<Tensor> inputs = {random_tensor(Shape{4, 6}, 6)};
  runtime::ExecutableOptions o;
  o.timestamps = runtime::Timestamps::per_segment;
  auto exe = make_executable(vk::compute_device(ctx()), g, {}, o);
  for (int run = 0; run < 2; ++run) {
    Profile profile;
    EXPECT_TRUE(outputs_match(run_cpu_reference(g, inputs), exe->run(inputs, &profile), {}));
    ASSERT_EQ(profile.entries.size(), 4u);
    EXPECT_GT(profile.entries[0].milliseconds, 0.0);
    for (const auto& e : profile.entries) EXPECT_EQ(e.milliseconds, profile.entries[0].milliseconds) << e.node;
    EXPECT_DOUBLE_EQ(exe->last_run_device_ms(), profile.total_ms());
  }
  // Without a profile the run still records its device time (what `volvox bench` reports).
  EXPECT_TRUE(outputs_match(run_cpu_reference(g, inputs), exe->run(inputs), {}));
  EXPECT_GT(exe->last_run_device_ms(), 0.0);
}

TEST_F(VulkanExecutor, ProfilesEveryNodeAndRejectsWrongInputs) {
  Graph g = mixed_graph();
  std::vector<Tensor> inputs = {random_tensor(Shape{2, 3, 3}, 1), random_tensor(Shape{2}, 2)};
  runtime::ExecutableOptions o;
  o.timestamps = runtime::Timestamps::per_node;
  auto exe = make_executable(vk::compute_device(ctx()), g, {{"x", Shape{2, 3, 3}}, {"y", Shape{2}}}, o, &inputs);
  EXPECT_EQ(exe->fallbacks().size(), 1u);
  Profile profile;
  exe->run(inputs, &profile);
  ASSERT_EQ(profile.entries.size(), 5u);
  EXPECT_EQ(profile.entries[0].variant.rfind("vulkan:", 0), 0u);
  EXPECT_EQ(profile.entries[1].variant.rfind("cpu:", 0), 0u);
  for (const auto& e : profile.entries) EXPECT_GE(e.milliseconds, 0.0);
  try {
    exe->run({random_tensor(Shape{3, 3, 3}, 1), inputs[1]});
    FAIL() << "a wrong input shape was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::InvalidArgument);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
}

TEST_F(VulkanExecutor, ReleasesEveryObject) {
  const int before = vk::live_objects();
  {
    Graph g = mixed_graph();
    DeviceRunnerOptions o;
    o.timestamps = runtime::Timestamps::per_node;
    DeviceModelRunner runner(vk::compute_device(ctx()), g, o);
    runner.run({random_tensor(Shape{2, 3, 3}, 1), random_tensor(Shape{2}, 2)});
    runner.run({random_tensor(Shape{3, 3, 3}, 1), random_tensor(Shape{3}, 2)});
    EXPECT_GT(vk::live_objects(), before);
  }
  EXPECT_EQ(vk::live_objects(), before);
}

// `volvox run / bench --device vulkan` end to end on an ONNX suite model (test_add_bcast).
TEST_F(VulkanExecutor, CliRunsAndBenchesOnVulkan) {
  const char* env = std::getenv("VOLVOX_ONNX_TESTDATA");
  const std::filesystem::path model_dir =
      std::filesystem::path(env ? env : "/usr/share/libonnx-testdata/data") / "node/test_add_bcast";
  if (!std::filesystem::exists(model_dir / "model.onnx")) GTEST_SKIP() << "libonnx-testdata is not installed";
  const std::filesystem::path dir = temp_dir();
  const std::filesystem::path data = model_dir / "test_data_set_0";
  write_npy(dir / "x.npy", read_onnx_tensor_file(data / "input_0.pb"));
  write_npy(dir / "y.npy", read_onnx_tensor_file(data / "input_1.pb"));
  auto cli = [&](const std::string& args, const std::string& log) {
    const std::string cmd = cli_path() + " " + args + " > " + (dir / log).string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(dir / log);
    return std::make_pair(rc, std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>()));
  };
  const std::string model = (model_dir / "model.onnx").string();
  const std::string io = " -i x=" + (dir / "x.npy").string() + " -i y=" + (dir / "y.npy").string() + " -o " + dir.string();
  for (const char* precision : {"fp32", "fp16"}) {
    auto [rc, text] = cli("run " + model + io + " --device vulkan --precision " + precision + " --profile", "run.txt");
    ASSERT_EQ(rc, 0) << text;
    EXPECT_NE(text.find("vulkan:"), std::string::npos) << text;  // the profile names the GPU variant
    EXPECT_NE(text.find("sum (Add): vulkan"), std::string::npos) << text;
    const double tol = std::string(precision) == "fp16" ? 1e-2 : 1e-6;
    EXPECT_LE(max_abs_diff(read_npy(dir / "sum.npy"), read_onnx_tensor_file(data / "output_0.pb")), tol) << precision;
  }
  auto [rc, text] = cli("bench " + model + " --device vulkan --runs 2 --json", "bench.txt");
  ASSERT_EQ(rc, 0) << text;
  EXPECT_NE(text.find("\"engine\":\"vulkan\""), std::string::npos) << text;
  // Bad options fail with one line.
  for (const std::string& bad : {std::string("--device vulkan --precision fp8"), std::string("--device vulkan:99")}) {
    auto [bad_rc, message] = cli("run " + model + io + " " + bad, "bad.txt");
    EXPECT_NE(bad_rc, 0) << bad;
    EXPECT_EQ(std::count(message.begin(), message.end(), '\n'), 1) << message;
  }
}

}  // namespace
}  // namespace vx::test

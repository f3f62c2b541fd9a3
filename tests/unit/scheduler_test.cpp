// The scheduler and the scheduled executable with a stand-in device: a backend that is not on the
// host, runs only the ops it is given, and keeps its own copies of values (so a value the
// scheduler forgot to list as a receive or a send is missing and the run fails).
#include <gtest/gtest.h>

#include <map>
#include <set>

#include "backends/cpu/cpu_backend.h"
#include "backends/cpu/eager_runner.h"
#include "backends/cpu/host_kernel_context.h"
#include "backends/cpu/kernel_registry.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "passes/shape_inference.h"
#include "runtime/bind_graph.h"
#include "runtime/scheduled_executable.h"

namespace vx::test {
namespace {

bool all_equal(const std::vector<Tensor>& a, const std::vector<Tensor>& b, double tolerance) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (a[i].shape() != b[i].shape() || max_abs_diff(a[i], b[i]) > tolerance) return false;
  return true;
}

class FakeDevice final : public runtime::Backend {
 public:
  explicit FakeDevice(std::set<std::string> ops) : ops_(std::move(ops)) {}
  std::string name() const override { return "fake"; }
  bool on_host() const override { return false; }
  runtime::NodeSupport supports(const runtime::BoundGraph& bound, size_t n) override {
    ++asked;
    const Node& node = bound.graph.nodes[n];
    if (!ops_.count(node.op)) return {false, "", cat("no fake ", node.op)};
    return {true, "fake-kernel", ""};
  }
  std::unique_ptr<runtime::CompiledSegments> compile(const runtime::BoundGraph& bound,
                                                     const std::vector<const runtime::Segment*>& segments) override {
    return std::make_unique<Compiled>(bound.graph, segments, *this);
  }
  int asked = 0;
  int copies_in = 0, copies_out = 0;

 private:
  class Compiled final : public runtime::CompiledSegments {
   public:
    Compiled(const Graph& g, std::vector<const runtime::Segment*> segments, FakeDevice& device)
        : g_(g), segments_(std::move(segments)), device_(device), memory_(g.values.size()) {
      for (size_t i = 0; i < g.values.size(); ++i)
        if (g.values[i].is_constant()) memory_[i] = g.values[i].constant;
    }
    void run(size_t k, runtime::HostValues& host, std::vector<double>& node_ms) override {
      const runtime::Segment& seg = *segments_[k];
      for (ValueId id : seg.receives) {
        memory_[size_t(id)] = host[size_t(id)].clone();
        ++device_.copies_in;
      }
      for (size_t n : seg.nodes) {
        const Node& node = g_.nodes[n];
        for (ValueId id : node.inputs)
          VX_CHECK(id == kNoValue || memory_[size_t(id)].defined(), Internal, "the device lacks '",
                   g_.value(id).name, "'");
        HostKernelContext context(g_, node, memory_);
        cpu::find_reference_kernel(node.op)->run(context);
        node_ms[n] = 1.0;
      }
      for (ValueId id : seg.sends) {
        host[size_t(id)] = memory_[size_t(id)].clone();
        ++device_.copies_out;
      }
    }

   private:
    const Graph& g_;
    std::vector<const runtime::Segment*> segments_;
    FakeDevice& device_;
    std::vector<Tensor> memory_;  // the device's own copies
  };
  std::set<std::string> ops_;
};

// x -> Relu -> Sigmoid -> Neg (device, host, device) + a branch the device reads twice.
struct MixedGraph {
  GraphBuilder b;
  MixedGraph() {
    const ValueId x = b.input("x", Shape{2, 3});
    const ValueId r = b.node("Relu", {x});
    const ValueId s = b.node("Sigmoid", {r});
    const ValueId n = b.node("Neg", {s});
    const ValueId a = b.node("Add", {n, x});  // x reaches the device once, in the first segment
    b.g.outputs = {a, r};                     // r is also an output: sent although the host has it
  }
};

std::unique_ptr<runtime::ScheduledExecutable> scheduled(const Graph& g, FakeDevice*& device,
                                                        std::set<std::string> ops) {
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  auto fake = std::make_unique<FakeDevice>(std::move(ops));
  device = fake.get();
  backends.push_back(std::move(fake));
  backends.push_back(std::make_unique<cpu::CpuBackend>());
  return std::make_unique<runtime::ScheduledExecutable>(runtime::bind_graph(g, {}), std::move(backends));
}

TEST(Scheduler, SegmentsAlternateAndValuesCrossOnceEachWay) {
  MixedGraph m;
  FakeDevice* device = nullptr;
  auto exe = scheduled(m.b.g, device, {"Relu", "Neg", "Add"});
  ASSERT_EQ(exe->segment_count(), 3u);  // Relu | Sigmoid | Neg, Add
  const auto& p = exe->placements();
  EXPECT_EQ(p[0].backend_name, "fake");
  EXPECT_TRUE(p[1].on_host);
  EXPECT_EQ(p[1].reason, "fake: no fake Sigmoid");
  EXPECT_EQ(exe->fallbacks().size(), 1u);
  EXPECT_FALSE(exe->floats_all_preferred());
  Profile profile;
  const std::vector<Tensor> got = exe->run(m.b.feeds, &profile);
  EXPECT_TRUE(all_equal(run_graph_eager(m.b.g, m.b.feeds), got, 0));
  // In: x (once, though two segments read it) and Sigmoid's output. Out: Relu's (the host and the
  // caller read it) and Add's (the caller).
  EXPECT_EQ(device->copies_in, 2);
  EXPECT_EQ(device->copies_out, 2);
  ASSERT_EQ(profile.entries.size(), 4u);
  EXPECT_EQ(profile.entries[0].variant, "fake:fake-kernel");
  EXPECT_EQ(profile.entries[1].variant.rfind("cpu:", 0), 0u) << profile.entries[1].variant;
}

TEST(Scheduler, ShapeComputationsStayOnTheHostWithoutAskingTheDevice) {
  GraphBuilder b;
  const ValueId x = b.input("x", Shape{2, 3});
  const ValueId shape = b.g.add_value("shape", DType::i64, {});
  b.g.add_node("Shape", "shape_of_x", {x}, {shape});
  const ValueId flipped = b.g.add_value("flipped", DType::i64, {});
  b.g.add_node("Mul", "flip", {shape, b.constant(i64s({-1, 1}))}, {flipped});  // int64 from host values
  const ValueId extents = b.g.add_value("extents", DType::i64, {});
  b.g.add_node("Abs", "extents", {flipped}, {extents});
  b.g.outputs = {b.node("Relu", {x}), extents};
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  auto fake = std::make_unique<FakeDevice>(std::set<std::string>{"Mul", "Abs", "Relu"});
  FakeDevice* device = fake.get();
  backends.push_back(std::move(fake));
  backends.push_back(std::make_unique<cpu::CpuBackend>());
  // Bound by hand: bind_graph would fold the shape arithmetic into constants.
  runtime::BoundGraph bound;
  bound.graph = b.g;
  infer_shapes(bound.graph, &bound.shape_known);
  runtime::ScheduledExecutable exe(std::move(bound), std::move(backends));
  const auto& p = exe.placements();
  ASSERT_EQ(p.size(), 4u);
  EXPECT_TRUE(p[0].on_host);  // Shape: the fake lacks it, a fallback
  EXPECT_FALSE(p[0].by_design);
  EXPECT_TRUE(p[1].by_design && p[1].on_host) << p[1].node;  // int64 arithmetic on host values
  EXPECT_TRUE(p[2].by_design && p[2].on_host) << p[2].node;
  EXPECT_FALSE(p[3].on_host);
  EXPECT_EQ(device->asked, 2);  // Shape and Relu; never the shape arithmetic
  EXPECT_EQ(exe.fallbacks().size(), 1u);
  EXPECT_TRUE(all_equal(run_graph_eager(b.g, b.feeds), exe.run(b.feeds), 0));
}

TEST(Scheduler, NoBackendForANodeNamesIt) {
  GraphBuilder b;
  const ValueId x = b.input("x", Shape{2});
  b.g.outputs = {b.node("NoSuchOp", {x})};
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  backends.push_back(std::make_unique<FakeDevice>(std::set<std::string>{}));
  backends.push_back(std::make_unique<cpu::CpuBackend>());
  runtime::BoundGraph bound;
  bound.graph = b.g;
  bound.shape_known.assign(b.g.values.size(), true);  // NoSuchOp has no shape function
  try {
    runtime::ScheduledExecutable exe(std::move(bound), std::move(backends));
    ADD_FAILURE() << "scheduled a node nothing runs";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    const std::string what = e.what();
    EXPECT_NE(what.find("NoSuchOp"), std::string::npos) << what;
    EXPECT_NE(what.find("fake: no fake NoSuchOp"), std::string::npos) << what;
    EXPECT_NE(what.find("cpu: no CPU kernel"), std::string::npos) << what;
  }
}

TEST(Scheduler, AHostValueOfAnotherShapeThanPlannedThrowsShapeChanged) {
  // NonZero's output shape depends on data: observed on the samples, the device is compiled for it.
  GraphBuilder b;
  const ValueId x = b.input("x", Shape{6});
  const ValueId nz = b.g.add_value("nz", DType::i64, {});
  b.g.add_node("NonZero", "nonzero", {x}, {nz});
  const ValueId f = b.g.add_value("f", DType::f32, {});
  Attributes to_float;
  to_float.set("to", int64_t(1));
  b.g.add_node("Cast", "to_float", {nz}, {f}, to_float);
  b.g.outputs = {b.node("Relu", {f})};
  Tensor three(DType::f32, Shape{6}), four(DType::f32, Shape{6});
  for (int i = 0; i < 6; ++i) {
    three.data<float>()[i] = i < 3 ? 1.0f : 0.0f;
    four.data<float>()[i] = i < 4 ? 1.0f : 0.0f;
  }
  const std::vector<Tensor> samples = {three};
  std::vector<std::unique_ptr<runtime::Backend>> backends;
  backends.push_back(std::make_unique<FakeDevice>(std::set<std::string>{"Relu"}));
  backends.push_back(std::make_unique<cpu::CpuBackend>());
  runtime::ScheduledExecutable exe(runtime::bind_graph(b.g, {}, &samples, run_graph_eager), std::move(backends));
  EXPECT_EQ(exe.placements().back().backend_name, "fake");
  EXPECT_TRUE(all_equal(run_graph_eager(b.g, samples), exe.run(samples), 0));
  EXPECT_THROW(exe.run({four}), runtime::ShapeChanged);
}

}  // namespace
}  // namespace vx::test

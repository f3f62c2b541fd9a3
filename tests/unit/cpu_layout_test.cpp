// The CPU backend's layout decision (backends/cpu/fast/cpu_layout.h): activations stay in a oneDNN
// convolution's layout (NHWC, nChw16c for Winograd, or nChw8c on AVX2) through the layout followers (fast unary
// and binary kernels, GlobalAveragePool / GlobalMaxPool) and fall back to NCHW where a graph
// output or a reader without such a kernel needs it. Each graph is optimised as an ONNX import is
// (so convolutions become vx.FusedConv), planned with make_cpu_plan and run on the fast kernels;
// the outputs must match the unoptimised graph on the reference kernels (1e-4 of the output's
// peak), and the cpu.layout_* attributes of the plan must say which values left NCHW.
#include <cmath>
#include <map>

#include "backends/cpu/cpu_executable.h"
#include "backends/cpu/fast/cpu_layout.h"
#include "backends/cpu/fast/fused_conv_onednn.h"
#include "common/graph_builder.h"
#include "common/test_util.h"
#include "ops/fused_ops.h"
#include "passes/optimize_onnx.h"

// A named namespace: in the unity build this file shares a translation unit with other tests.
namespace vx::cpu_layout_test {

using cpu::Layout;
using Builder = test::GraphBuilder;
using test::count_ops;

Attributes with(std::initializer_list<std::pair<const char*, Attribute>> list) {
  Attributes a;
  for (const auto& [k, v] : list) a.set(k, v);
  return a;
}

ValueId conv(Builder& b, ValueId x, int64_t c_in, int64_t c_out, int64_t k, bool relu = false) {
  const float bound = 1.0f / std::sqrt(float(c_in * k * k));
  const ValueId w = b.constant(test::random_tensor({c_out, c_in, k, k}, b.seed++, -bound, bound));
  const ValueId bias = b.constant(test::random_tensor({c_out}, b.seed++));
  const ValueId y = b.node("Conv", {x, w, bias},
                           with({{"kernel_shape", std::vector<int64_t>{k, k}},
                                 {"pads", std::vector<int64_t>(4, k / 2)}}));
  return relu ? b.node("Relu", {y}) : y;
}

// Squeeze-and-excitation: GlobalAveragePool (or GlobalMaxPool), 1x1 conv + Relu, 1x1 conv +
// HardSigmoid, then the gate multiplies x (gate first when `gate_first`).
ValueId squeeze_excite(Builder& b, ValueId x, int64_t c, bool max_pool = false, bool gate_first = false) {
  const ValueId pooled = b.node(max_pool ? "GlobalMaxPool" : "GlobalAveragePool", {x});
  const ValueId squeezed = conv(b, pooled, c, 8, 1, true);
  const ValueId gate = b.node("HardSigmoid", {conv(b, squeezed, 8, c, 1)}, with({{"alpha", 0.2f}, {"beta", 0.5f}}));
  return gate_first ? b.node("Mul", {gate, x}) : b.node("Mul", {x, gate});
}

struct Prepared {
  Graph fused;
  cpu::CpuExecutable fast;

  // The layout the plan stores `name` in: its producer's cpu.layout_output (NCHW when absent).
  Layout stored(const std::string& name) const {
    const Graph& g = fast.plan().graph;
    const ValueId id = g.find(name);
    EXPECT_NE(id, kNoValue) << name;
    for (const Node& n : g.nodes)
      for (ValueId o : n.outputs)
        if (o == id) return Layout(n.attrs.get_int(cpu::kLayoutOutputAttr, 0));
    return Layout::nchw;
  }
  // The node of the plan that produces `name`.
  const Node& producer(const std::string& name) const {
    const Graph& g = fast.plan().graph;
    const ValueId id = g.find(name);
    for (const Node& n : g.nodes)
      for (ValueId o : n.outputs)
        if (o == id) return n;
    ADD_FAILURE() << "no producer of " << name;
    return g.nodes.at(0);
  }
  // How many steps of the plan carry a non-NCHW layout in their attributes.
  int non_nchw_steps() const {
    int count = 0;
    for (const Node& n : fast.plan().graph.nodes) {
      bool any = n.attrs.get_int(cpu::kLayoutOutputAttr, 0) != 0;
      for (int64_t l : n.attrs.get_ints(cpu::kLayoutInputsAttr)) any = any || l != 0;
      count += any;
    }
    return count;
  }
};

std::map<std::string, Shape> input_shapes(const Graph& g) {
  std::map<std::string, Shape> shapes;
  for (ValueId id : g.inputs) shapes[g.value(id).name] = g.value(id).shape;
  return shapes;
}

// Optimises and plans b's graph; its outputs on the fast kernels must match the unoptimised graph
// on the reference kernels, with one and with three threads (the kernels split work differently).
std::unique_ptr<Prepared> check(const Builder& b) {
  Graph fused = b.g;
  optimize_onnx(fused);
  auto p = std::unique_ptr<Prepared>(
      new Prepared{fused, cpu::CpuExecutable(cpu::make_cpu_plan(fused, input_shapes(fused)))});
  cpu::CpuOptions ref_options;
  ref_options.reference_only = true;
  cpu::CpuExecutable reference(cpu::make_cpu_plan(b.g, input_shapes(b.g), true), ref_options);
  const std::vector<Tensor> want = reference.run(b.feeds);
  for (int threads : {1, 3}) {
    ThreadPool pool(threads);
    cpu::CpuOptions options;
    options.pool = &pool;
    cpu::CpuExecutable fast(cpu::make_cpu_plan(fused, input_shapes(fused)), options);
    const std::vector<Tensor> got = fast.run(b.feeds);
    EXPECT_EQ(got.size(), want.size());
    for (size_t i = 0; i < want.size() && i < got.size(); ++i)
      EXPECT_LE(test::max_diff_over_peak(got[i], want[i]), 1e-4) << "output " << i << ", " << threads << " threads";
  }
  return p;
}

std::string name(const Builder& b, ValueId id) { return b.g.value(id).name; }

// The layout a direct (not Winograd) convolution from c_in to c_out channels writes on this CPU:
// nChw8c on AVX2 where the output channels divide by 8 and the input's do too or are fewer than 8
// (a stem, which reads plain NCHW), else NHWC.
Layout direct_layout(int64_t c_in, int64_t c_out) {
  const bool blocked_source = c_in % 8 == 0 || (c_in < 8 && cpu::fast::onednn_takes_plain_stems());
  return cpu::fast::onednn_prefers_blocked8() && blocked_source && c_out % 8 == 0 ? Layout::nchw8c : Layout::nhwc;
}

// Variants: GlobalAveragePool with 24 channels, GlobalMaxPool, the gate as Mul's first operand,
// and 21 channels (not a multiple of 4: the pool's and the Mul's channel tails), with max pool
// on a 1 x 150 image.
TEST(CpuLayout, SqueezeExciteStaysInTheConvsLayout) {
  for (int variant = 0; variant < 5; ++variant) {
    Builder b;
    const int64_t c = variant >= 3 ? 21 : 24;
    const bool max_pool = variant == 1 || variant == 4;
    const ValueId x = b.input("x", variant == 4 ? Shape{2, 5, 1, 150} : Shape{2, 5, 13, 11});
    const ValueId y = conv(b, x, 5, c, 3, true);
    const ValueId se = squeeze_excite(b, y, c, max_pool, variant == 2);
    const ValueId out = conv(b, se, c, 40, 3);
    b.g.outputs = {out};
    const auto p = check(b);
    SCOPED_TRACE(variant);
    EXPECT_EQ(count_ops(p->fused, kFusedConv), 4);
    const Layout first = direct_layout(5, c);
    EXPECT_EQ(p->stored(name(b, y)), first);
    EXPECT_EQ(p->stored(name(b, se)), first);
    EXPECT_EQ(p->stored(name(b, out)), Layout::nchw);  // a graph output
    const Node& mul = p->producer(name(b, se));
    EXPECT_EQ(mul.op, "Mul");
    // Every input of the Mul is named in the first conv's layout: the activation, and the
    // layout-free gate.
    EXPECT_EQ(mul.attrs.get_ints(cpu::kLayoutInputsAttr), (std::vector<int64_t>{int64_t(first), int64_t(first)}));
    // The convolutions after the first (which reads the graph input) read the pooled values and
    // gates in their own working layout (no reorder of 1x1 values), the last one the gated
    // activation in the first conv's layout.
    const Graph& planned = p->fast.plan().graph;
    for (const Node& n : planned.nodes)
      if (n.op == kFusedConv && n.inputs[0] != planned.inputs[0]) {
        const Layout work = cpu::fast::onednn_working_layout(n, planned);
        const bool reads_gated = n.inputs[0] == planned.find(name(b, se));
        EXPECT_EQ(n.attrs.get_ints(cpu::kLayoutInputsAttr),
                  (std::vector<int64_t>{int64_t(reads_gated ? first : work)})) << n.name;
        const Shape& weights = planned.value(n.inputs[1]).shape;  // [out, in, k, k]
        EXPECT_EQ(work, direct_layout(weights[1], weights[0])) << n.name;
        const bool graph_output = n.outputs[0] == planned.outputs[0];
        EXPECT_EQ(n.attrs.get_int(cpu::kLayoutOutputAttr, -1), int64_t(graph_output ? Layout::nchw : work)) << n.name;
      }
    const std::string pool_op = max_pool ? "GlobalMaxPool" : "GlobalAveragePool";
    ASSERT_EQ(count_ops(p->fast.plan().graph, pool_op), 1);
    for (const Node& n : p->fast.plan().graph.nodes)
      if (n.op == pool_op) {
        EXPECT_EQ(n.attrs.get_ints(cpu::kLayoutInputsAttr), (std::vector<int64_t>{int64_t(first)}));
      }
  }
}

TEST(CpuLayout, SqueezeExciteStaysBlockedAfterAWinogradConv) {
  for (bool max_pool : {false, true}) {
    Builder b;
    const ValueId x = b.input("x", {2, 16, 64, 66});
    const ValueId y = conv(b, x, 16, 32, 3, true);  // 3x3, 16 -> 32 channels, >= 64x64 pixels: Winograd
    const ValueId se = squeeze_excite(b, y, 32, max_pool);
    const ValueId z = b.node("HardSwish", {b.node("Add", {se, b.input("shift", {1, 32, 1, 1})})});
    const ValueId out = conv(b, z, 32, 16, 3);
    b.g.outputs = {out};
    const auto p = check(b);
    SCOPED_TRACE(max_pool);
    // Where oneDNN has no Winograd (AVX2 CPUs) the same chain stays in the conv's nChw8c instead.
    const Layout work = cpu::fast::onednn_has_winograd() ? Layout::nchw16c : direct_layout(16, 32);
    EXPECT_EQ(p->stored(name(b, y)), work);
    EXPECT_EQ(p->stored(name(b, se)), work);
    EXPECT_EQ(p->stored(name(b, z)), work);
    EXPECT_EQ(p->producer(name(b, out)).attrs.get_ints(cpu::kLayoutInputsAttr), (std::vector<int64_t>{int64_t(work)}));
  }
}

// ResNet's stem: conv, then a 3x3 / 2 max pool with pads, then convolutions; also an average
// pool (count_include_pad both ways) into a residual Add, and a pool that is the graph's output
// (NCHW, forced back into the conv before it). Odd sizes and 21 channels (no whole vectors); the
// last variant has 8 input and 24 pooled channels (nChw8c on AVX2).
TEST(CpuLayout, WindowedPoolsFollowTheConv) {
  for (int variant = 0; variant < 4; ++variant) {
    SCOPED_TRACE(variant);
    Builder b;
    const int64_t c_in = variant == 3 ? 8 : 3, c = variant == 3 ? 24 : 21;
    const ValueId x = b.input("x", {2, c_in, 23, 19});
    const ValueId y = conv(b, x, c_in, c, 3, true);
    const char* op = variant == 0 || variant == 3 ? "MaxPool" : "AveragePool";
    Attributes window = with({{"kernel_shape", std::vector<int64_t>{3, 3}},
                              {"strides", std::vector<int64_t>{2, 2}},
                              {"pads", std::vector<int64_t>{1, 1, 1, 1}}});
    if (variant == 1) window.set("count_include_pad", int64_t(1));
    const ValueId pooled = b.node(op, {y}, window);
    if (variant == 2) {
      b.g.outputs = {pooled};
      const auto p = check(b);
      EXPECT_EQ(p->stored(name(b, y)), Layout::nchw);
      EXPECT_EQ(p->stored(name(b, pooled)), Layout::nchw);
      continue;
    }
    const ValueId z = conv(b, pooled, c, c, 3, true);
    const ValueId sum = b.node("Add", {z, pooled});
    b.g.outputs = {conv(b, sum, c, 8, 1)};
    const auto p = check(b);
    const Layout work = direct_layout(c_in, c);
    EXPECT_EQ(p->stored(name(b, y)), work);
    EXPECT_EQ(p->stored(name(b, pooled)), work);
    EXPECT_EQ(p->producer(name(b, pooled)).attrs.get_ints(cpu::kLayoutInputsAttr), (std::vector<int64_t>{int64_t(work)}));
  }
}

// ResNet's stem, 7x7 / 2 from 3 channels, reads the graph input as it is (NCHW) and writes its
// working layout (nChw8c on AVX2); a second stem reads a 3-channel convolution's output (NHWC,
// reordered back to NCHW). Both feed a 3x3 / 2 max pool and a convolution. Results are compared
// with the reference kernels by check().
TEST(CpuLayout, StemsReadPlainChannels) {
  Builder b;
  const ValueId x = b.input("x", {2, 3, 29, 31});
  auto stem = [&](ValueId in, int64_t c_out) {
    const ValueId w = b.constant(test::random_tensor({c_out, 3, 7, 7}, b.seed++, -0.1f, 0.1f));
    const ValueId y = b.node("Relu", {b.node("Conv", {in, w}, with({{"kernel_shape", std::vector<int64_t>{7, 7}},
                                                                   {"strides", std::vector<int64_t>{2, 2}},
                                                                   {"pads", std::vector<int64_t>(4, 3)}}))});
    return b.node("MaxPool", {y}, with({{"kernel_shape", std::vector<int64_t>{3, 3}},
                                        {"strides", std::vector<int64_t>{2, 2}},
                                        {"pads", std::vector<int64_t>{1, 1, 1, 1}}}));
  };
  const ValueId first = stem(x, 16);
  const ValueId three = conv(b, b.node("Relu", {conv(b, x, 3, 24, 3)}), 24, 3, 1);  // ends in 3 channels
  const ValueId second = stem(three, 24);
  b.g.outputs = {conv(b, first, 16, 8, 3), conv(b, second, 24, 8, 1)};
  const auto p = check(b);
  const Layout work = direct_layout(3, 16);
  EXPECT_EQ(p->stored(name(b, first)), work);
  EXPECT_EQ(p->stored(name(b, second)), work);
  const Layout three_layout = p->stored(name(b, three));
  EXPECT_NE(three_layout, Layout::nchw8c);  // 3 channels: not in whole blocks
  const Graph& planned = p->fast.plan().graph;
  int stems = 0;
  for (const Node& n : planned.nodes)
    if (n.op == kFusedConv && planned.value(n.inputs[1]).shape[1] == 3) {
      ++stems;
      const Layout source = n.inputs[0] == planned.inputs[0] ? Layout::nchw : three_layout;
      EXPECT_EQ(n.attrs.get_ints(cpu::kLayoutInputsAttr), (std::vector<int64_t>{int64_t(source)})) << n.name;
      EXPECT_EQ(n.attrs.get_int(cpu::kLayoutOutputAttr, -1), int64_t(work)) << n.name;
    }
  EXPECT_EQ(stems, 3);  // the 3x3 from x to 24 channels is one too
}

TEST(CpuLayout, UnaryChainsFollowTheConv) {
  Builder b;
  const ValueId x = b.input("x", {2, 3, 10, 9});
  const ValueId y = conv(b, x, 3, 24, 3);
  // y has two readers, so the Relu is not fused into the convolution as a post-op.
  const ValueId r = b.node("Relu", {y});
  const ValueId chain = b.node("Neg", {b.node("Abs", {r})});
  b.g.outputs = {conv(b, chain, 24, 40, 3), conv(b, y, 24, 8, 1)};
  const auto p = check(b);
  EXPECT_EQ(count_ops(p->fused, "Relu") + count_ops(p->fused, "Abs") + count_ops(p->fused, "Neg"), 3);
  const Layout work = direct_layout(3, 24);
  EXPECT_EQ(p->stored(name(b, y)), work);
  EXPECT_EQ(p->stored(name(b, r)), work);
  EXPECT_EQ(p->stored(name(b, chain)), work);
}

TEST(CpuLayout, BinaryOpsWithScalarsAndPerChannelOperands) {
  Builder b;
  const ValueId x = b.input("x", {2, 4, 9, 7});
  // Run-time operands (graph inputs), so the passes cannot fold them into the weights.
  const ValueId s = b.input("s", {});
  const ValueId per_channel = b.input("pc", {40, 1, 1});
  const ValueId per_image = b.input("pi", {2, 1, 1, 1});
  const ValueId both = b.input("pb", {2, 40, 1, 1});
  const ValueId y = conv(b, x, 4, 40, 3);
  const ValueId a = b.node("Add", {y, s});
  const ValueId d = b.node("Sub", {per_channel, a});  // the per-channel operand first
  const ValueId e = b.node("Div", {d, b.node("Abs", {per_image})});
  const ValueId f = b.node("Max", {both, e});
  const ValueId out = conv(b, f, 40, 24, 3);
  b.g.outputs = {out};
  const auto p = check(b);
  for (ValueId v : {y, a, d, e, f}) EXPECT_EQ(p->stored(name(b, v)), direct_layout(4, 40)) << name(b, v);
}

TEST(CpuLayout, ResidualAddOfTwoConvOutputs) {
  Builder b;
  const ValueId x = b.input("x", {2, 7, 11, 10});
  // Both convolutions end in a Relu, so the Add is not fused into either as a residual.
  const ValueId sum = b.node("Add", {conv(b, x, 7, 24, 3, true), conv(b, x, 7, 24, 1, true)});
  const ValueId out = conv(b, sum, 24, 40, 3);
  b.g.outputs = {out};
  const auto p = check(b);
  EXPECT_EQ(count_ops(p->fused, "Add"), 1);
  const Layout work = direct_layout(7, 24);
  EXPECT_EQ(p->stored(name(b, sum)), work);
  EXPECT_EQ(p->producer(name(b, sum)).attrs.get_ints(cpu::kLayoutInputsAttr),
            (std::vector<int64_t>{int64_t(work), int64_t(work)}));
}

// A residual read for the last time by the convolution that adds it (not also its X) is added in place: the fused
// convolution writes into R's buffer (cpu.residual_in_place, PlanStep::output_reuses_input). Where R
// is read later it is not; where the arena cannot share R's buffer (a graph input) the kernel
// copies R first. All three against the reference kernels (check()).
TEST(CpuLayout, ResidualsAreAddedInPlaceWhereNothingReadsThemLater) {
  auto block = [](bool read_later) {
    Builder b;
    const ValueId x = b.input("x", {2, 8, 9, 11});
    const ValueId y1 = conv(b, x, 8, 24, 3, true);
    const ValueId y2 = conv(b, y1, 24, 24, 3, true);
    const ValueId sum = b.node("Relu", {b.node("Add", {conv(b, y2, 24, 24, 1), y1})});
    b.g.outputs = {conv(b, sum, 24, 40, 1)};
    if (read_later) b.g.outputs.push_back(conv(b, y1, 24, 16, 1));
    return std::make_pair(b, std::make_pair(y1, sum));
  };
  for (bool read_later : {false, true}) {
    const auto [b, values] = block(read_later);
    const auto p = check(b);
    const Node& fused = p->producer(name(b, values.second));
    ASSERT_EQ(fused.op, kFusedConvResidual);
    const Plan& plan = p->fast.plan();
    const int64_t r_at = plan.arena_offset[size_t(plan.graph.find(name(b, values.first)))];
    const int64_t y_at = plan.arena_offset[size_t(plan.graph.find(name(b, values.second)))];
    EXPECT_GE(r_at, 0);
    EXPECT_EQ(fused.attrs.get_int(cpu::kResidualInPlaceAttr, 0), read_later ? 0 : 1) << read_later;
    EXPECT_EQ(r_at == y_at, !read_later) << read_later;
  }
  // R a graph input, spatially 1x1 (so in the working layout): marked, but not in the arena.
  Builder b;
  const ValueId x = b.input("x", {3, 24, 1, 1});
  const ValueId y = conv(b, x, 24, 24, 1, true);
  const ValueId sum = b.node("Relu", {b.node("Add", {conv(b, y, 24, 24, 1), x})});
  b.g.outputs = {conv(b, sum, 24, 40, 1)};
  const auto p = check(b);
  const Node& fused = p->producer(name(b, sum));
  ASSERT_EQ(fused.op, kFusedConvResidual);
  EXPECT_EQ(fused.attrs.get_int(cpu::kResidualInPlaceAttr, 0), 1);
  EXPECT_EQ(p->fast.plan().arena_offset[size_t(p->fast.plan().graph.find("x"))], -1);
}

TEST(CpuLayout, OperandsInDifferentLayoutsFallBackToNchw) {
  if (!cpu::fast::onednn_has_winograd())
    GTEST_SKIP() << "needs two working layouts: oneDNN has no Winograd (nChw16c) on this CPU, so these convolutions "
                    "share one";
  Builder b;
  const ValueId x = b.input("x", {1, 16, 64, 65});
  const ValueId blocked = conv(b, x, 16, 32, 3, true);  // Winograd: nChw16c
  const ValueId plain = conv(b, x, 16, 32, 1, true);    // 1x1: NHWC
  const ValueId sum = b.node("Add", {blocked, plain});
  b.g.outputs = {conv(b, sum, 32, 16, 1)};
  const auto p = check(b);
  EXPECT_EQ(p->stored(name(b, blocked)), Layout::nchw);
  EXPECT_EQ(p->stored(name(b, plain)), Layout::nchw);
  EXPECT_EQ(p->stored(name(b, sum)), Layout::nchw);
  EXPECT_FALSE(p->producer(name(b, sum)).attrs.has(cpu::kLayoutInputsAttr));
}

TEST(CpuLayout, AGraphOutputInTheMiddleForcesNchwBackToTheConv) {
  Builder b;
  const ValueId x = b.input("x", {2, 5, 12, 9});
  const ValueId y = conv(b, x, 5, 24, 3, true);
  const ValueId se = squeeze_excite(b, y, 24);
  const ValueId out = conv(b, se, 24, 40, 1);
  b.g.outputs = {out, se};  // the gated activation is also a graph output
  const auto p = check(b);
  EXPECT_EQ(p->stored(name(b, se)), Layout::nchw);
  EXPECT_EQ(p->stored(name(b, y)), Layout::nchw);
  EXPECT_FALSE(p->producer(name(b, se)).attrs.has(cpu::kLayoutInputsAttr));
  EXPECT_EQ(p->non_nchw_steps(), 2);  // only the two 1x1 convolutions of the gate (layout-free values)
}

TEST(CpuLayout, ReadersWithoutAFastKernelForceNchw) {
  {
    Builder b;  // conv -> Relu -> Softplus (reference only): both back to NCHW
    const ValueId x = b.input("x", {2, 3, 8, 9});
    const ValueId y = conv(b, x, 3, 24, 3);
    const ValueId r = b.node("Relu", {y});
    b.g.outputs = {b.node("Softplus", {r}), conv(b, y, 24, 16, 1)};
    const auto p = check(b);
    EXPECT_EQ(p->stored(name(b, r)), Layout::nchw);
    EXPECT_EQ(p->stored(name(b, y)), Layout::nchw);
  }
  {
    Builder b;  // the activation itself read by a Softplus too: the SE block runs in NCHW
    const ValueId x = b.input("x", {2, 3, 8, 9});
    const ValueId y = conv(b, x, 3, 24, 3, true);
    const ValueId se = squeeze_excite(b, y, 24);
    b.g.outputs = {conv(b, se, 24, 16, 3), b.node("Softplus", {y})};
    const auto p = check(b);
    EXPECT_EQ(p->stored(name(b, y)), Layout::nchw);
    EXPECT_EQ(p->stored(name(b, se)), Layout::nchw);
  }
  {
    Builder b;  // an Add whose other operand is not 1x1 (broadcast over the batch) is no follower
    const ValueId x = b.input("x", {2, 3, 8, 9});
    const ValueId y = conv(b, x, 3, 24, 3, true);
    const ValueId sum = b.node("Add", {y, b.input("z", {1, 24, 8, 9})});
    b.g.outputs = {conv(b, sum, 24, 16, 3)};
    const auto p = check(b);
    EXPECT_EQ(p->stored(name(b, y)), Layout::nchw);
    EXPECT_EQ(p->stored(name(b, sum)), Layout::nchw);
  }
}

TEST(CpuLayout, ReferenceOnlyPlansStayNchw) {
  Builder b;
  const ValueId x = b.input("x", {2, 5, 13, 11});
  b.g.outputs = {conv(b, squeeze_excite(b, conv(b, x, 5, 24, 3, true), 24), 24, 40, 3)};
  Graph fused = b.g;
  optimize_onnx(fused);
  const Plan plan = cpu::make_cpu_plan(fused, input_shapes(fused), true);
  for (const Node& n : plan.graph.nodes) {
    EXPECT_FALSE(n.attrs.has(cpu::kLayoutInputsAttr)) << n.name;
    EXPECT_FALSE(n.attrs.has(cpu::kLayoutOutputAttr)) << n.name;
  }
}

}  // namespace vx::cpu_layout_test

// The planner: no two simultaneously-live activations share a byte (brute force), on a U-Net-like
// graph and on random DAGs; arena runs equal runs with every value allocated; the LRU plan cache.
#include <random>

#include "backends/cpu/cpu_executable.h"
#include "common/test_util.h"
#include "core/error.h"
#include "passes/optimize.h"
#include "plan/arena_planner.h"
#include "plan/plan.h"
#include "plan/plan_cache.h"

namespace vx {
namespace {

std::string slot_name(const Plan& plan, const ArenaSlot& s) {
  return s.value == kNoValue ? "scratch of step " + std::to_string(s.first_step) : plan.graph.value(s.value).name;
}

void expect_no_overlap(const Plan& plan) {
  for (size_t i = 0; i < plan.arena_slots.size(); ++i) {
    const ArenaSlot& a = plan.arena_slots[i];
    EXPECT_EQ(a.offset % plan::kArenaAlignment, 0u);
    EXPECT_LE(a.offset + a.bytes, plan.arena_bytes);
    for (size_t j = i + 1; j < plan.arena_slots.size(); ++j) {
      const ArenaSlot& b = plan.arena_slots[j];
      const bool live_together = a.first_step <= b.last_step && b.first_step <= a.last_step;
      const bool disjoint = a.offset + a.bytes <= b.offset || b.offset + b.bytes <= a.offset;
      EXPECT_TRUE(!live_together || disjoint)
          << slot_name(plan, a) << " [" << a.offset << ", +" << a.bytes << ") steps " << a.first_step
          << ".." << a.last_step << " overlaps " << slot_name(plan, b) << " [" << b.offset << ", +"
          << b.bytes << ") steps " << b.first_step << ".." << b.last_step;
    }
  }
}

// Checks the slots cover exactly the activations: not inputs, outputs or constants.
void expect_slots_are_activations(const Plan& plan) {
  size_t sum = 0;
  for (const ArenaSlot& s : plan.arena_slots) {
    sum += s.bytes;
    if (s.value == kNoValue) {  // a step's scratch
      EXPECT_EQ(s.first_step, s.last_step);
      EXPECT_EQ(plan.steps[size_t(s.first_step)].scratch_bytes, s.bytes);
      continue;
    }
    const Value& v = plan.graph.value(s.value);
    EXPECT_FALSE(v.is_constant());
    EXPECT_EQ(std::count(plan.graph.outputs.begin(), plan.graph.outputs.end(), s.value), 0);
    EXPECT_EQ(std::count(plan.graph.inputs.begin(), plan.graph.inputs.end(), s.value), 0);
    EXPECT_EQ(s.bytes, size_t(v.shape.numel()) * dtype_size(v.dtype));
  }
  EXPECT_EQ(sum, plan.sum_activation_bytes);
}

Attributes conv_attrs(int64_t k) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{k, k});
  a.set("pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
  return a;
}

// A U-Net-like graph: encoder convs with pools, decoder with upsample + concat.
Graph unet_like_graph(int levels) {
  Graph g;
  g.name = "unet";
  uint64_t seed = 10;
  ValueId scales = g.add_constant("scales", Tensor::from<float>({4}, {1, 1, 2, 2}));
  ValueId x = g.add_value("input", DType::f32, {1, 3, -1, -1});
  g.inputs = {x};
  auto conv = [&](const std::string& name, ValueId in, int64_t cin, int64_t cout) {
    ValueId w = g.add_constant(name + ".w", test::random_tensor({cout, cin, 3, 3}, seed++, -0.2f, 0.2f));
    ValueId b = g.add_constant(name + ".b", test::random_tensor({cout}, seed++));
    ValueId y = g.add_value(name, DType::f32, {});
    g.add_node("Conv", name, {in, w, b}, {y}, conv_attrs(3));
    ValueId r = g.add_value(name + ".relu", DType::f32, {});
    g.add_node("Relu", name + "_relu", {y}, {r});
    return r;
  };
  std::vector<ValueId> skips;
  std::vector<int64_t> skip_channels;
  ValueId cur = conv("enc0", x, 3, 4);
  int64_t c = 4;
  for (int l = 1; l <= levels; ++l) {
    skips.push_back(cur);
    skip_channels.push_back(c);
    ValueId p = g.add_value("pool" + std::to_string(l), DType::f32, {});
    Attributes pa;
    pa.set("kernel_shape", std::vector<int64_t>{2, 2});
    pa.set("strides", std::vector<int64_t>{2, 2});
    g.add_node("MaxPool", "pool" + std::to_string(l), {cur}, {p}, pa);
    cur = conv("enc" + std::to_string(l), p, c, c + 2);
    c += 2;
  }
  for (int l = levels; l >= 1; --l) {
    ValueId up = g.add_value("up" + std::to_string(l), DType::f32, {});
    Attributes ra;
    ra.set("mode", std::string("nearest"));
    ra.set("coordinate_transformation_mode", std::string("asymmetric"));
    ra.set("nearest_mode", std::string("floor"));
    g.add_node("Resize", "up" + std::to_string(l), {cur, kNoValue, scales}, {up}, ra);
    ValueId cat = g.add_value("cat" + std::to_string(l), DType::f32, {});
    Attributes ca;
    ca.set("axis", int64_t(1));
    g.add_node("Concat", "cat" + std::to_string(l), {up, skips[size_t(l - 1)]}, {cat}, ca);
    cur = conv("dec" + std::to_string(l), cat, c + skip_channels[size_t(l - 1)], skip_channels[size_t(l - 1)]);
    c = skip_channels[size_t(l - 1)];
  }
  g.outputs = {cur};
  g.validate();
  return g;
}

// A random DAG of Relu, Concat (axis 1) and 1x1 Conv nodes over [1, c, 5, 3] tensors, with one
// or two graph outputs.
Graph random_dag(uint64_t seed, int nodes) {
  std::mt19937_64 rng(seed);
  Graph g;
  g.name = "random" + std::to_string(seed);
  std::vector<ValueId> values = {g.add_value("input", DType::f32, {1, 2, 5, 3})};
  std::vector<int64_t> channels = {2};
  g.inputs = {values[0]};
  for (int i = 0; i < nodes; ++i) {
    const std::string name = cat("n", i);  // not "n" + to_string: GCC 12 false -Wrestrict (bug 105329)
    auto pick = [&] {
      // Prefer recent values so that lifetimes vary: some short, some spanning the graph.
      size_t n = values.size();
      size_t back = std::min<size_t>(n - 1, size_t(rng() % 4 == 0 ? rng() % n : rng() % std::min<size_t>(n, 3)));
      return n - 1 - back;
    };
    ValueId y = g.add_value(name, DType::f32, {});
    const int kind = int(rng() % 3);
    size_t a = pick();
    if (kind == 0) {
      g.add_node("Relu", name, {values[a]}, {y});
      channels.push_back(channels[a]);
    } else if (kind == 1) {
      size_t b = pick();
      Attributes ca;
      ca.set("axis", int64_t(1));
      if (channels[a] + channels[b] > 24) b = a = 0;
      g.add_node("Concat", name, {values[a], values[b]}, {y}, ca);
      channels.push_back(channels[a] + channels[b]);
    } else {
      int64_t cout = 1 + int64_t(rng() % 9);
      ValueId w = g.add_constant(name + ".w", test::random_tensor({cout, channels[a], 1, 1}, rng()));
      g.add_node("Conv", name, {values[a], w}, {y}, conv_attrs(1));
      channels.push_back(cout);
    }
    values.push_back(y);
  }
  g.outputs = {values.back()};
  if (rng() % 2) g.outputs.push_back(values[values.size() / 2]);
  g.validate();
  return g;
}

TEST(ArenaPlanner, GreedyBestFitReusesFreedGaps) {
  // A (100 bytes, steps 0-1), B (1000, 1-2), C (50, 2-3): C may reuse A's bytes, not B's.
  plan::ArenaLayout l = plan::plan_arena({{100, 0, 1}, {1000, 1, 2}, {50, 2, 3}});
  EXPECT_EQ(l.offsets[1], 0u);     // largest first
  EXPECT_EQ(l.offsets[0], 1024u);  // above B (overlaps it in time)
  EXPECT_EQ(l.offsets[2], 1024u);  // A is dead by step 2: best fit is A's place
  EXPECT_EQ(l.arena_bytes, 1024u + 128u);
}

TEST(ArenaPlanner, AlignmentRoundsEverySizeAndOffset) {
  // As above with a device's 256-byte storage-buffer offset alignment: the same placement, each
  // buffer taking whole 256-byte units (C's 50 bytes take one, like A's 100).
  plan::ArenaLayout l = plan::plan_arena({{100, 0, 1}, {1000, 1, 2}, {50, 2, 3}}, 256);
  EXPECT_EQ(l.offsets[1], 0u);
  EXPECT_EQ(l.offsets[0], 1024u);
  EXPECT_EQ(l.offsets[2], 1024u);
  EXPECT_EQ(l.arena_bytes, 1024u + 256u);
  // A (300 bytes, steps 0-1), B (700, 0-3), C (100, 2-3), D (0, 2-2): B takes 768 bytes, so A goes
  // at 768 (704 with 64); C takes A's place once A is dead; D, empty, still takes a unit above C.
  l = plan::plan_arena({{300, 0, 1}, {700, 0, 3}, {100, 2, 3}, {0, 2, 2}}, 256);
  EXPECT_EQ(l.offsets[1], 0u);
  EXPECT_EQ(l.offsets[0], 768u);
  EXPECT_EQ(l.offsets[2], 768u);
  EXPECT_EQ(l.offsets[3], 1024u);
  EXPECT_EQ(l.arena_bytes, 1280u);
  // Random lifetimes: every offset aligned, no two buffers alive together share a byte, and the
  // default alignment is kArenaAlignment.
  std::mt19937_64 rng(7);
  for (size_t alignment : {size_t(1), size_t(4), size_t(64), size_t(256), size_t(4096)}) {
    std::vector<plan::BufferRequest> requests;
    for (int i = 0; i < 40; ++i) {
      const int first = int(rng() % 20);
      requests.push_back({size_t(rng() % 5000), first, first + int(rng() % 6)});
    }
    const plan::ArenaLayout layout = plan::plan_arena(requests, alignment);
    for (size_t i = 0; i < requests.size(); ++i) {
      const size_t bytes_i = plan::align_up(std::max<size_t>(requests[i].bytes, 1), alignment);
      EXPECT_EQ(layout.offsets[i] % alignment, 0u);
      EXPECT_LE(layout.offsets[i] + bytes_i, layout.arena_bytes);
      for (size_t j = i + 1; j < requests.size(); ++j) {
        const plan::BufferRequest &a = requests[i], &b = requests[j];
        if (a.last_step < b.first_step || b.last_step < a.first_step) continue;
        const size_t bytes_j = plan::align_up(std::max<size_t>(b.bytes, 1), alignment);
        EXPECT_TRUE(layout.offsets[i] + bytes_i <= layout.offsets[j] || layout.offsets[j] + bytes_j <= layout.offsets[i])
            << "alignment " << alignment << ": buffers " << i << " and " << j << " overlap";
      }
    }
    if (alignment == plan::kArenaAlignment) {
      const plan::ArenaLayout by_default = plan::plan_arena(requests);
      EXPECT_EQ(by_default.offsets, layout.offsets);
      EXPECT_EQ(by_default.arena_bytes, layout.arena_bytes);
    }
  }
}

TEST(Plan, UNetLikeGraphHasNoOverlapsAndSaves) {
  for (bool fused : {false, true}) {
    Graph g = unet_like_graph(3);
    if (fused) optimize_for_inference(g);
    Plan p = make_plan(g, {{"input", Shape({1, 3, 32, 24})}});
    expect_no_overlap(p);
    expect_slots_are_activations(p);
    EXPECT_LT(p.arena_bytes, p.sum_activation_bytes) << p.str();
    EXPECT_EQ(p.graph.value(p.graph.outputs[0]).shape, Shape({1, 4, 32, 24}));
    const std::string s = p.str();
    EXPECT_NE(s.find(fused ? "vx.FusedConv" : "MaxPool"), std::string::npos) << s;
    EXPECT_NE(s.find("dec1"), std::string::npos) << s;
  }
}

TEST(Plan, RandomDagsHaveNoOverlapsAndRunLikeUnshared) {
  for (uint64_t seed = 1; seed <= 25; ++seed) {
    Graph g = random_dag(seed, 8 + int(seed % 17));
    Plan p = cpu::make_cpu_plan(g, {{"input", Shape({1, 2, 5, 3})}}, true);
    expect_no_overlap(p);
    expect_slots_are_activations(p);
    if (HasFailure()) FAIL() << "seed " << seed << "\n" << p.str();

    // Running with the shared arena must give exactly what running with every value in its own
    // allocation gives.
    Plan unshared = p;
    unshared.arena_offset.assign(unshared.arena_offset.size(), -1);
    unshared.arena_slots.clear();
    unshared.arena_bytes = 0;
    for (PlanStep& step : unshared.steps) step.scratch_offset = -1;
    cpu::CpuOptions options;
    options.reference_only = true;
    cpu::CpuExecutable shared_exe(p, options), unshared_exe(unshared, options);
    const Tensor x = test::random_tensor({1, 2, 5, 3}, seed);
    auto a = shared_exe.run({x});
    auto b = unshared_exe.run({x});
    ASSERT_EQ(a.size(), b.size());
    for (size_t i = 0; i < a.size(); ++i) ASSERT_EQ(test::max_abs_diff(a[i], b[i]), 0.0) << "seed " << seed;
  }
}

// A chain of Relus, each of whose outputs may take its input's buffer (PlanStep::output_reuses_input):
// the plan shares a buffer only where the input is an arena activation that no later step reads.
TEST(Plan, InPlaceOutputsShareTheirInputsBufferWhereNothingReadsItLater) {
  Graph g;
  g.name = "relu_chain";
  const ValueId x = g.add_value("x", DType::f32, {2, 3, 4, 5});
  g.inputs = {x};
  auto relu = [&](const std::string& name, std::vector<ValueId> in, const char* op = "Relu") {
    const ValueId y = g.add_value(name, DType::f32, {});
    g.add_node(op, name, std::move(in), {y});
    return y;
  };
  const ValueId a = relu("a", {x});     // step 0, from a graph input: its own buffer
  const ValueId b = relu("b", {a});     // a dies here: b takes a's buffer
  const ValueId c = relu("c", {b});     // and c too
  const ValueId d = relu("d", {c});     // c is read again by the Add: d has its own
  const ValueId e = relu("e", {c, d}, "Add");  // c dies here: e takes the buffer
  g.outputs = {relu("out", {e})};       // step 5: a graph output, never in the arena
  g.validate();
  const Plan p = make_plan(g, {}, {}, [](Plan& plan) {
    for (PlanStep& step : plan.steps) step.output_reuses_input = 0;
  });
  expect_no_overlap(p);
  expect_slots_are_activations(p);
  auto offset = [&](ValueId id) { return p.arena_offset[size_t(id)]; };
  EXPECT_GE(offset(a), 0);
  for (ValueId shared : {b, c, e}) EXPECT_EQ(offset(shared), offset(a)) << g.value(shared).name;
  EXPECT_GE(offset(d), 0);
  EXPECT_NE(offset(d), offset(a));
  EXPECT_EQ(offset(g.outputs[0]), -1);
  // One slot holds a, b, c and e: it lives until e's reader, step 5.
  for (const ArenaSlot& slot : p.arena_slots) {
    for (ValueId shared : {b, c, e}) EXPECT_NE(slot.value, shared);
    if (slot.value == a) {
      EXPECT_EQ(slot.last_step, 5);
    }
  }
  // Run it: the same values as every value in its own allocation.
  cpu::CpuOptions options;
  options.reference_only = true;
  Plan unshared = p;
  unshared.arena_offset.assign(unshared.arena_offset.size(), -1);
  unshared.arena_slots.clear();
  unshared.arena_bytes = 0;
  cpu::CpuExecutable shared_exe(p, options), unshared_exe(unshared, options);
  const Tensor in = test::random_tensor({2, 3, 4, 5}, 7, -1.0f, 1.0f);
  EXPECT_EQ(test::max_abs_diff(shared_exe.run({in})[0], unshared_exe.run({in})[0]), 0.0);
}

TEST(Plan, InputShapeErrors) {
  Graph g = unet_like_graph(2);
  try {
    make_plan(g, {{"input", Shape({1, 4, 8, 8})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("input 'input' has shape [1, 4, 8, 8] but the graph declares [1, 3, ?, ?]"),
              std::string::npos)
        << e.what();
  }
  try {
    make_plan(g, {});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("no shape given for graph input 'input'"), std::string::npos) << e.what();
  }
  try {
    make_plan(g, {{"input", Shape({1, 3, 8, 8})}, {"nope", Shape({1})}});
    FAIL();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("'nope', which is not an input"), std::string::npos) << e.what();
  }
}

TEST(PlanCache, EvictsTheLeastRecentlyUsed) {
  Graph g = unet_like_graph(1);
  PlanCache cache(2);
  int made = 0;
  auto get = [&](int64_t h) {
    std::map<std::string, Shape> key = {{"input", Shape({1, 3, h, 8})}};
    return cache.get_or_create(key, [&] {
      ++made;
      return std::make_shared<const Plan>(make_plan(g, key));
    });
  };
  auto p8 = get(8);
  auto p16 = get(16);
  EXPECT_EQ(made, 2);
  EXPECT_EQ(get(8).get(), p8.get());  // hit; 16 is now the least recently used
  EXPECT_EQ(made, 2);
  get(32);                            // evicts 16
  EXPECT_EQ(made, 3);
  EXPECT_EQ(cache.size(), 2u);
  EXPECT_TRUE(cache.contains({{"input", Shape({1, 3, 8, 8})}}));
  EXPECT_FALSE(cache.contains({{"input", Shape({1, 3, 16, 8})}}));
  EXPECT_TRUE(cache.contains({{"input", Shape({1, 3, 32, 8})}}));
  EXPECT_NE(get(16).get(), p16.get());  // re-made
  EXPECT_EQ(made, 4);
  EXPECT_EQ(cache.hits(), 1u);
  EXPECT_EQ(cache.misses(), 4u);
  EXPECT_EQ(get(32)->graph.value(get(32)->graph.outputs[0]).shape, Shape({1, 4, 32, 8}));
}

}  // namespace
}  // namespace vx

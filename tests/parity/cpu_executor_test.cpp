// The CPU executor: clear errors for bad inputs and unsupported ops, profiles, and ModelRunner's
// plan cache.
#include <omp.h>

#include "backends/cpu/cpu_executable.h"
#include "common/test_util.h"
#include "session/model_runner.h"

namespace vx {
namespace {

Graph conv_relu_graph() {
  Graph g;
  g.name = "small";
  ValueId x = g.add_value("image", DType::f32, {1, 2, -1, -1});
  ValueId w = g.add_constant("w", test::random_tensor({3, 2, 3, 3}, 1));
  ValueId b = g.add_constant("b", test::random_tensor({3}, 2));
  ValueId y = g.add_value("conv", DType::f32, {});
  ValueId r = g.add_value("relu", DType::f32, {});
  Attributes a;
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  g.add_node("Conv", "conv0", {x, w, b}, {y}, a);
  g.add_node("Relu", "relu0", {y}, {r});
  g.inputs = {x};
  g.outputs = {r};
  return g;
}

std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return e.what();
  }
  return "(no error)";
}

// oneDNN splits a primitive's work for the OpenMP team size of the thread that builds it: an
// executable builds its kernels for its own pool's size (with --threads 2 on 16 cores, convolutions
// once ran on 16 threads), and its results do not depend on the size.
TEST(CpuExecutor, BuildsItsKernelsForItsPoolsSize) {
  const Tensor image = test::random_tensor({1, 2, 9, 7}, 3);
  std::vector<Tensor> results;
  for (int threads : {1, 3}) {
    omp_set_num_threads(8);
    ThreadPool pool(threads);
    cpu::CpuOptions options;
    options.pool = &pool;
    cpu::CpuExecutable exe(cpu::make_cpu_plan(conv_relu_graph(), {{"image", Shape({1, 2, 9, 7})}}), options);
    EXPECT_EQ(omp_get_max_threads(), threads);
    results.push_back(exe.run({image})[0]);
  }
  EXPECT_LE(test::max_diff_over_peak(results[0], results[1]), 1e-6);
}

TEST(CpuExecutor, RejectsWrongInputs) {
  cpu::CpuExecutable exe(cpu::make_cpu_plan(conv_relu_graph(), {{"image", Shape({1, 2, 5, 4})}}));
  EXPECT_NE(error_of([&] { exe.run({test::random_tensor({1, 2, 5, 5}, 1)}); })
                .find("input 0 ('image') has shape [1, 2, 5, 5] but the plan was made for [1, 2, 5, 4]"),
            std::string::npos);
  EXPECT_NE(error_of([&] { exe.run({Tensor(DType::f16, {1, 2, 5, 4})}); })
                .find("input 0 ('image') has dtype f16, expected f32"),
            std::string::npos);
  EXPECT_NE(error_of([&] { exe.run({}); }).find("graph 'small' takes 1 inputs, got 0"), std::string::npos);
  EXPECT_NE(error_of([&] { exe.run({Tensor()}); }).find("input 0 ('image') is empty"), std::string::npos);
}

TEST(CpuExecutor, UnsupportedOpNamesNodeAndOp) {
  Graph g = conv_relu_graph();
  ValueId z = g.add_value("z", DType::f32, {});
  g.add_node("Frobnicate", "mystery_node", {g.outputs[0]}, {z});
  g.outputs = {z};
  try {
    cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"image", Shape({1, 2, 4, 4})}}));
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::Unsupported);
    EXPECT_NE(std::string(e.what()).find("no kernel for node 'mystery_node' (op 'Frobnicate')"), std::string::npos)
        << e.what();
  }
}

TEST(CpuExecutor, KernelErrorsNameTheNode) {
  Graph g = conv_relu_graph();
  g.nodes[1].op = "Concat";  // Concat axis 5 on a rank-4 tensor
  g.nodes[1].attrs.set("axis", int64_t(5));
  // Found while planning (shape inference), before anything runs.
  const std::string message = error_of([&] { cpu::make_cpu_plan(g, {{"image", Shape({1, 2, 4, 4})}}, true); });
  EXPECT_NE(message.find("relu0"), std::string::npos) << message;
  EXPECT_NE(message.find("axis 5 is out of range"), std::string::npos) << message;
}

TEST(CpuExecutor, ProfilesEveryNodeAndMatchesRunnerOutput) {
  Graph g = conv_relu_graph();
  cpu::CpuOptions options;
  options.reference_only = true;
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"image", Shape({1, 2, 6, 5})}}, true), options);
  Profile profile;
  const Tensor x = test::random_tensor({1, 2, 6, 5}, 9);
  Tensor y = exe.run({x}, &profile)[0];
  ASSERT_EQ(profile.entries.size(), 2u);
  EXPECT_EQ(profile.entries[0].node, "conv0");
  EXPECT_EQ(profile.entries[0].op, "Conv");
  EXPECT_EQ(profile.entries[0].variant, "reference");
  EXPECT_EQ(profile.entries[1].node, "relu0");
  EXPECT_GE(profile.entries[0].milliseconds, 0.0);
  EXPECT_NE(profile.str().find("conv0"), std::string::npos);
  for (int64_t i = 0; i < y.numel(); ++i) ASSERT_GE(y.get(i), 0.0);

  ModelRunnerOptions ro;
  ro.reference_only = true;
  ro.plan_cache_capacity = 2;
  ModelRunner runner(g, ro);
  EXPECT_EQ(runner.graph().nodes.size(), 1u);  // Conv + Relu fused
  EXPECT_EQ(test::max_abs_diff(runner.run({x})[0], y), 0.0);
  runner.run({test::random_tensor({1, 2, 3, 3}, 1)});
  runner.run({x});
  EXPECT_EQ(runner.cache().size(), 2u);
  EXPECT_EQ(runner.cache().misses(), 2u);
  EXPECT_EQ(runner.cache().hits(), 1u);
}

TEST(CpuExecutor, WritesIntoReusableOutputBuffers) {
  Graph g = conv_relu_graph();
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"image", Shape({1, 2, 7, 6})}}));
  const Tensor x = test::random_tensor({1, 2, 7, 6}, 4);
  const Tensor expected = exe.run({x})[0];
  Tensor buffer(DType::f32, {1, 3, 7, 6});
  std::vector<Tensor> outputs = {buffer};
  exe.run({x}, outputs);
  EXPECT_EQ(outputs[0].raw(), buffer.raw());  // written in place
  EXPECT_EQ(test::max_abs_diff(buffer, expected), 0.0);
  std::vector<Tensor> wrong = {Tensor(DType::f32, {1, 3, 7, 5})};
  const void* wrong_data = wrong[0].raw();
  exe.run({x}, wrong);
  EXPECT_NE(wrong[0].raw(), wrong_data);  // replaced, not overrun
  EXPECT_EQ(test::max_abs_diff(wrong[0], expected), 0.0);
}

// The executable keeps its constants between runs and drops everything else as a run ends, also
// when the run fails: a failed run leaves nothing behind for the next, and a caller's output
// buffer of one run is not written by a later run that did not pass it.
TEST(CpuExecutor, RunsAgainAfterAFailedRun) {
  Graph g;
  g.name = "gather_rows";
  ValueId data = g.add_value("data", DType::f32, {4, 3});
  ValueId rows = g.add_value("rows", DType::i64, {2});
  ValueId shift = g.add_constant("shift", Tensor::from<float>({3}, {1.0f, -2.0f, 0.5f}));
  ValueId shifted = g.add_value("shifted", DType::f32, {});
  ValueId picked = g.add_value("picked", DType::f32, {});
  g.add_node("Add", "add0", {data, shift}, {shifted});
  g.add_node("Gather", "gather0", {shifted, rows}, {picked});
  g.inputs = {data, rows};
  g.outputs = {picked};
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"data", Shape({4, 3})}, {"rows", Shape({2})}}));
  const Tensor x = test::random_tensor({4, 3}, 7);
  auto expected_rows = [&](int64_t r0, int64_t r1) {
    Tensor y(DType::f32, {2, 3});
    const float add[3] = {1.0f, -2.0f, 0.5f};
    for (int64_t c = 0; c < 3; ++c) {
      y.data<float>()[c] = x.data<float>()[r0 * 3 + c] + add[c];
      y.data<float>()[3 + c] = x.data<float>()[r1 * 3 + c] + add[c];
    }
    return y;
  };
  Tensor buffer(DType::f32, {2, 3});
  std::vector<Tensor> outputs = {buffer};
  exe.run({x, Tensor::from<int64_t>({2}, {3, 0})}, outputs);
  EXPECT_EQ(outputs[0].raw(), buffer.raw());
  EXPECT_EQ(test::max_abs_diff(buffer, expected_rows(3, 0)), 0.0);
  const Tensor before = buffer.clone();
  // A row out of range fails inside the Gather, after the Add has run.
  EXPECT_NE(error_of([&] { exe.run({x, Tensor::from<int64_t>({2}, {1, 9})}); }).find("gather0"), std::string::npos);
  for (int repeat = 0; repeat < 2; ++repeat) {
    const std::vector<Tensor> y = exe.run({x, Tensor::from<int64_t>({2}, {-1, 2})});  // -1: the last row
    EXPECT_EQ(test::max_abs_diff(y[0], expected_rows(3, 2)), 0.0);
    EXPECT_NE(y[0].raw(), buffer.raw());
  }
  EXPECT_EQ(test::max_abs_diff(buffer, before), 0.0);  // the earlier run's buffer was left alone

  // The same through ModelRunner (its planned runs go through a ScheduledExecutable's values).
  ModelRunner runner(g);
  EXPECT_EQ(test::max_abs_diff(runner.run({x, Tensor::from<int64_t>({2}, {3, 0})})[0], expected_rows(3, 0)), 0.0);
  EXPECT_NE(error_of([&] { runner.run({x, Tensor::from<int64_t>({2}, {1, 9})}); }).find("gather0"), std::string::npos);
  EXPECT_EQ(test::max_abs_diff(runner.run({x, Tensor::from<int64_t>({2}, {-1, 2})})[0], expected_rows(3, 2)), 0.0);
  EXPECT_EQ(runner.cache().misses(), 1u);  // one plan for all three runs
}

}  // namespace
}  // namespace vx

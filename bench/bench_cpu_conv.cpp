// CPU convolution speed on the base U-Net's layers (OIDN "base": widths 32 48 64 80 96 | 112 96 64
// 64 64 32, 9 input channels) at 1920x1088 (1080p padded to a multiple of 16, as the denoiser does).
//
//   bench_cpu_conv                       every layer alone (NCHW in and out) and the whole U-Net
//   bench_cpu_conv --width=960 --height=544 --threads=2
//
// Reports milliseconds and GFLOP/s (2 x MACs of a direct convolution, also for the Winograd layers)
// per layer; the whole-network benchmark also prints the plan and the per-node profile (internal
// layouts between layers). A layer alone includes the NCHW reorders at the executor boundary.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "core/thread_pool.h"
#include "ops/fused_ops.h"
#include "backends/cpu/cpu_executable.h"

namespace vx {
namespace {

int64_t g_width = 1920, g_height = 1088;

struct Layer {
  const char* name;
  int64_t c_low, c_skip, c_out;
  int level;  // output resolution = full / 2^level (before pooling)
  bool pool, upcat;
};

// Base U-Net, in execution order.
const Layer kLayers[] = {
    {"enc_conv0", 9, 0, 32, 0, false, false},      {"enc_conv1", 32, 0, 32, 0, true, false},
    {"enc_conv2", 32, 0, 48, 1, true, false},      {"enc_conv3", 48, 0, 64, 2, true, false},
    {"enc_conv4", 64, 0, 80, 3, true, false},      {"enc_conv5a", 80, 0, 96, 4, false, false},
    {"enc_conv5b", 96, 0, 96, 4, false, false},    {"dec_conv4a", 96, 64, 112, 3, false, true},
    {"dec_conv4b", 112, 0, 112, 3, false, false},  {"dec_conv3a", 112, 48, 96, 2, false, true},
    {"dec_conv3b", 96, 0, 96, 2, false, false},    {"dec_conv2a", 96, 32, 64, 1, false, true},
    {"dec_conv2b", 64, 0, 64, 1, false, false},    {"dec_conv1a", 64, 9, 64, 0, false, true},
    {"dec_conv1b", 64, 0, 32, 0, false, false},    {"dec_conv0", 32, 0, 3, 0, false, false},
};

double layer_gflop(const Layer& l) {
  const double pixels = double(g_width >> l.level) * double(g_height >> l.level);
  return 2.0 * double(l.c_low + l.c_skip) * double(l.c_out) * 9.0 * pixels * 1e-9;
}

Attributes conv_attrs(const Layer& l) {
  Attributes a;
  a.set("kernel_shape", std::vector<int64_t>{3, 3});
  a.set("pads", std::vector<int64_t>{1, 1, 1, 1});
  a.set("relu", int64_t(std::string(l.name) != "dec_conv0"));
  a.set("pool", int64_t(l.pool));
  a.set("upsample_concat", int64_t(l.upcat));
  return a;
}

Tensor filled(Shape shape, float v) {
  Tensor t(DType::f32, std::move(shape));
  float* p = t.data<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = v * float(i % 97) / 97.0f;
  return t;
}

void add_conv(Graph& g, const Layer& l, std::vector<ValueId> data, ValueId out) {
  const float bound = 1.0f / std::sqrt(float((l.c_low + l.c_skip) * 9));
  data.push_back(g.add_constant(std::string(l.name) + ".w", filled({l.c_out, l.c_low + l.c_skip, 3, 3}, bound)));
  data.push_back(g.add_constant(std::string(l.name) + ".b", filled({l.c_out}, 0.01f)));
  g.add_node(kFusedConv, l.name, data, {out}, conv_attrs(l));
}

// One layer alone: NCHW input(s) and output at the executor boundary.
void BM_Layer(benchmark::State& state) {
  const Layer& l = kLayers[state.range(0)];
  Graph g;
  const int64_t h = g_height >> l.level, w = g_width >> l.level;
  std::vector<Tensor> inputs;
  std::vector<ValueId> data;
  if (l.upcat) {
    data.push_back(g.add_value("low", DType::f32, {1, l.c_low, h / 2, w / 2}));
    data.push_back(g.add_value("skip", DType::f32, {1, l.c_skip, h, w}));
    inputs = {filled({1, l.c_low, h / 2, w / 2}, 1), filled({1, l.c_skip, h, w}, 1)};
  } else {
    data.push_back(g.add_value("x", DType::f32, {1, l.c_low, h, w}));
    inputs = {filled({1, l.c_low, h, w}, 1)};
  }
  g.inputs = data;
  ValueId y = g.add_value("y", DType::f32, {});
  add_conv(g, l, data, y);
  g.outputs = {y};
  // The backend's executable itself: later runs reuse the output buffer.
  std::map<std::string, Shape> shapes;
  for (size_t i = 0; i < inputs.size(); ++i) shapes[g.value(g.inputs[i]).name] = inputs[i].shape();
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, shapes));
  std::vector<Tensor> outputs;
  exe.run(inputs, outputs);  // warm up
  for (auto _ : state) exe.run(inputs, outputs);
  state.counters["GFLOP/s"] = benchmark::Counter(layer_gflop(l), benchmark::Counter::kIsIterationInvariantRate);
  state.SetLabel(l.name);
}
BENCHMARK(BM_Layer)->DenseRange(0, 15)->Unit(benchmark::kMillisecond)->MinTime(0.5)->UseRealTime();

// The whole base U-Net as fused nodes (what optimize_for_inference makes of the builder's graph).
void BM_UNet(benchmark::State& state) {
  Graph g;
  ValueId x = g.add_value("input", DType::f32, {1, 9, g_height, g_width});
  g.inputs = {x};
  std::map<std::string, ValueId> v;
  auto out = [&](const char* name) { return v[name] = g.add_value(name, DType::f32, {}); };
  add_conv(g, kLayers[0], {x}, out("enc_conv0"));
  add_conv(g, kLayers[1], {v["enc_conv0"]}, out("pool1"));
  add_conv(g, kLayers[2], {v["pool1"]}, out("pool2"));
  add_conv(g, kLayers[3], {v["pool2"]}, out("pool3"));
  add_conv(g, kLayers[4], {v["pool3"]}, out("pool4"));
  add_conv(g, kLayers[5], {v["pool4"]}, out("enc_conv5a"));
  add_conv(g, kLayers[6], {v["enc_conv5a"]}, out("enc_conv5b"));
  add_conv(g, kLayers[7], {v["enc_conv5b"], v["pool3"]}, out("dec_conv4a"));
  add_conv(g, kLayers[8], {v["dec_conv4a"]}, out("dec_conv4b"));
  add_conv(g, kLayers[9], {v["dec_conv4b"], v["pool2"]}, out("dec_conv3a"));
  add_conv(g, kLayers[10], {v["dec_conv3a"]}, out("dec_conv3b"));
  add_conv(g, kLayers[11], {v["dec_conv3b"], v["pool1"]}, out("dec_conv2a"));
  add_conv(g, kLayers[12], {v["dec_conv2a"]}, out("dec_conv2b"));
  add_conv(g, kLayers[13], {v["dec_conv2b"], x}, out("dec_conv1a"));
  add_conv(g, kLayers[14], {v["dec_conv1a"]}, out("dec_conv1b"));
  add_conv(g, kLayers[15], {v["dec_conv1b"]}, out("output"));
  g.outputs = {v["output"]};
  std::vector<Tensor> inputs = {filled({1, 9, g_height, g_width}, 1)};
  cpu::CpuExecutable exe(cpu::make_cpu_plan(g, {{"input", inputs[0].shape()}}));
  Profile profile;
  std::vector<Tensor> outputs;
  exe.run(inputs, outputs, &profile);
  double total_gflop = 0;
  for (const Layer& l : kLayers) total_gflop += layer_gflop(l);
  for (auto _ : state) exe.run(inputs, outputs, &profile);
  state.counters["GFLOP/s"] = benchmark::Counter(total_gflop, benchmark::Counter::kIsIterationInvariantRate);
  const Plan& plan = exe.plan();
  std::printf("%s", plan.str().c_str());
  std::printf("\nlast run, per node (%.1f GFLOP in all):\n%-12s %10s %8s\n", total_gflop, "node", "ms", "GFLOP/s");
  for (size_t i = 0; i < profile.entries.size() && i < 16; ++i)
    std::printf("%-12s %10.1f %8.1f\n", profile.entries[i].node.c_str(), profile.entries[i].milliseconds,
                layer_gflop(kLayers[i]) / profile.entries[i].milliseconds * 1e3);
}
BENCHMARK(BM_UNet)->Unit(benchmark::kMillisecond)->Iterations(2)->UseRealTime();

}  // namespace
}  // namespace vx

int main(int argc, char** argv) {
  // Our own flags first (--width, --height, --threads); the rest go to Google Benchmark.
  std::vector<char*> rest = {argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--width=", 8) == 0)
      vx::g_width = std::atoll(argv[i] + 8);
    else if (std::strncmp(argv[i], "--height=", 9) == 0)
      vx::g_height = std::atoll(argv[i] + 9);
    else if (std::strncmp(argv[i], "--threads=", 10) == 0)
      vx::ThreadPool::set_global_threads(std::atoi(argv[i] + 10));
    else
      rest.push_back(argv[i]);
  }
  int n = int(rest.size());
  benchmark::Initialize(&n, rest.data());
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}

// Weight-only int8 on a real model: the float model and the quantised one (optimize_onnx with
// int8_weights) on the same random input, median time of each and the output difference.
//   build/release/bench/onnx/bench_onnx_int8 bench/models/gpt2_decoder.onnx input_ids=1x128 [runs] [threads]
// Integer inputs get token ids in [0, 10), float inputs values in [-1, 1).
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>

#include "formats/onnx_import.h"
#include "passes/optimize_onnx.h"
#include "session/model_runner.h"

namespace {

vx::Shape parse_dims(const std::string& text) {
  std::vector<int64_t> dims;
  size_t at = 0;
  while (at <= text.size()) {
    const size_t x = text.find('x', at);
    dims.push_back(std::stoll(text.substr(at, x == std::string::npos ? std::string::npos : x - at)));
    if (x == std::string::npos) break;
    at = x + 1;
  }
  return vx::Shape(dims);
}

double median_ms(vx::ModelRunner& runner, const std::vector<vx::Tensor>& inputs, int runs) {
  runner.run(inputs);
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    const auto start = std::chrono::steady_clock::now();
    runner.run(inputs);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  // As the volvox tool does: GNU OpenMP's spinning threads are slow on a shared machine.
  if (std::getenv("OMP_WAIT_POLICY") == nullptr && std::getenv("GOMP_SPINCOUNT") == nullptr) {
    setenv("OMP_WAIT_POLICY", "passive", 1);
    execv("/proc/self/exe", argv);
  }
  if (argc < 3) {
    std::fprintf(stderr, "usage: %s MODEL.onnx NAME=AxB [runs] [threads]\n", argv[0]);
    return 2;
  }
  try {
    const std::string spec = argv[2];
    const int runs = argc > 3 ? std::atoi(argv[3]) : 5, threads = argc > 4 ? std::atoi(argv[4]) : 2;
    vx::Graph f32 = vx::import_onnx(argv[1]);
    vx::Graph int8 = f32;
    vx::optimize_onnx(f32);
    vx::OnnxOptimizeOptions options;
    options.int8_weights = true;
    vx::optimize_onnx(int8, options);
    const vx::Value& in = f32.value(f32.inputs.at(0));
    const vx::Shape shape = parse_dims(spec.substr(spec.find('=') + 1));
    vx::Tensor x(in.dtype, shape);
    std::mt19937 rng(1234);
    for (int64_t i = 0; i < x.numel(); ++i)
      x.set(i, in.dtype == vx::DType::f32 ? std::uniform_real_distribution<double>(-1, 1)(rng) : double(rng() % 10));
    size_t weight_bytes[2] = {0, 0};
    for (int q = 0; q < 2; ++q)
      for (const vx::Value& v : (q ? int8 : f32).values)
        if (v.is_constant()) weight_bytes[q] += v.constant.nbytes();
    vx::ModelRunnerOptions ro;
    ro.optimize = false;
    ro.threads = threads;
    vx::ModelRunner a(std::move(f32), ro), b(std::move(int8), ro);
    const vx::Tensor ya = a.run({x})[0], yb = b.run({x})[0];
    double peak = 0, diff = 0;
    for (int64_t i = 0; i < ya.numel(); ++i) {
      peak = std::max(peak, std::abs(ya.get(i)));
      diff = std::max(diff, std::abs(ya.get(i) - yb.get(i)));
    }
    const double ta = median_ms(a, {x}, runs), tb = median_ms(b, {x}, runs);
    std::printf("{\"model\": \"%s\", \"runs\": %d, \"threads\": %d, \"f32_median_ms\": %.2f, \"int8_median_ms\": %.2f, "
                "\"f32_weight_mib\": %.1f, \"int8_weight_mib\": %.1f, \"max_abs_diff\": %.4g, \"output_peak\": %.4g}\n",
                argv[1], runs, threads, ta, tb, weight_bytes[0] / 1048576.0, weight_bytes[1] / 1048576.0, diff, peak);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_onnx_int8: %s\n", e.what());
    return 1;
  }
  return 0;
}

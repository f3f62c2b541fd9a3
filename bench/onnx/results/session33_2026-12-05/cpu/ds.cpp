// ResNet-50's layer3.0 downsample (512 -> 1024, 1x1 stride 2, 28 -> 14) on oneDNN, 2 threads: the
// strided convolution in NHWC and nChw16c against a strided copy (NHWC) plus the stride-1 convolution.
#include <dnnl.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
struct Conv {
  convolution_forward prim; memory x, w, b, y; std::string impl;
};
Conv make(engine& eng, int ci, int co, int h, int s, tag t) {
  const int ho = (h - 1) / s + 1;
  memory::desc src({1, ci, h, h}, memory::data_type::f32, t), wei({co, ci, 1, 1}, memory::data_type::f32, tag::any),
      bia({co}, memory::data_type::f32, tag::x), dst({1, co, ho, ho}, memory::data_type::f32, t);
  convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, bia, dst, {s, s}, {0, 0}, {0, 0});
  convolution_forward::primitive_desc pd(d, primitive_attr(), eng);
  Conv c{convolution_forward(pd), memory(src, eng), memory(pd.weights_desc(), eng), memory(bia, eng), memory(pd.dst_desc(), eng), pd.impl_info_str()};
  std::memset(c.x.get_data_handle(), 0, src.get_size());
  return c;
}
template <class F> double median_ms(F f) {
  std::vector<double> t;
  for (int i = 0; i < 300; ++i) {
    auto a = std::chrono::steady_clock::now(); f(); auto b = std::chrono::steady_clock::now();
    if (i >= 50) t.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main(int argc, char** argv) {
  int ci = 512, co = 1024, h = 28;
  if (argc == 4) { ci = atoi(argv[1]); co = atoi(argv[2]); h = atoi(argv[3]); }
  engine eng(engine::kind::cpu, 0); stream st(eng);
  Conv strided = make(eng, ci, co, h, 2, tag::nhwc), blocked = make(eng, ci, co, h, 2, tag::nChw16c), unit = make(eng, ci, co, h / 2, 1, tag::nhwc);
  memory big(memory::desc({1, ci, h, h}, memory::data_type::f32, tag::nhwc), eng);
  auto run = [&](Conv& c) { c.prim.execute(st, {{DNNL_ARG_SRC, c.x}, {DNNL_ARG_WEIGHTS, c.w}, {DNNL_ARG_BIAS, c.b}, {DNNL_ARG_DST, c.y}}); st.wait(); };
  auto sub = [&]() {
    const float* s = (const float*)big.get_data_handle(); float* d = (float*)unit.x.get_data_handle(); const int ho = h / 2;
#pragma omp parallel for
    for (int y = 0; y < ho; ++y)
      for (int x = 0; x < ho; ++x) std::memcpy(d + (y * ho + x) * ci, s + (2 * y * h + 2 * x) * ci, ci * sizeof(float));
  };
  for (int r = 0; r < 3; ++r) {
    std::printf("%d->%d 1x1 s2 at %d: nhwc %.3f (%s)  nChw16c %.3f (%s)  copy+s1 %.3f (copy %.3f, conv %.3f, %s)\n", ci, co, h,
                median_ms([&] { run(strided); }), strided.impl.c_str(), median_ms([&] { run(blocked); }), blocked.impl.c_str(),
                median_ms([&] { sub(); run(unit); }), median_ms(sub), median_ms([&] { run(unit); }), unit.impl.c_str());
    std::fflush(stdout);
  }
}

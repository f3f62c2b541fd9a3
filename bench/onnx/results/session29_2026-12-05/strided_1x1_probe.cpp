// 1x1 stride-2 conv (NHWC) vs subsample copy + 1x1 stride-1 conv, oneDNN, bias+ReLU-free (residual sum style irrelevant)
// g++ -std=c++17 -O2 -fopenmp strided_1x1_probe.cpp -ldnnl -o s2 && OMP_NUM_THREADS=2 ./s2   (output: strided_1x1_probe.txt)
#include <dnnl.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
struct Layer { int ci, co, h; };
template <class F> double timeit(F f) {
  std::vector<double> t;
  for (int i = 0; i < 200; ++i) { auto a = std::chrono::steady_clock::now(); f(); auto b = std::chrono::steady_clock::now();
    if (i >= 20) t.push_back(std::chrono::duration<double, std::milli>(b - a).count()); }
  std::sort(t.begin(), t.end()); return t[t.size() / 2];
}
int main() {
  engine eng(engine::kind::cpu, 0); stream st(eng);
  Layer ls[] = {{256, 512, 56}, {512, 1024, 28}, {1024, 2048, 14}};
  for (auto l : ls) {
    for (int round = 0; round < 2; ++round) {
    const int ho = l.h / 2;
    auto mk = [&](int h, int s) {
      memory::desc src({1, l.ci, h, h}, memory::data_type::f32, tag::nhwc);
      memory::desc wei({l.co, l.ci, 1, 1}, memory::data_type::f32, tag::any);
      memory::desc bia({l.co}, memory::data_type::f32, tag::x);
      memory::desc dst({1, l.co, ho, ho}, memory::data_type::f32, tag::nhwc);
      convolution_forward::desc d(prop_kind::forward_inference, algorithm::convolution_direct, src, wei, bia, dst, {s, s}, {0, 0}, {0, 0});
      return convolution_forward::primitive_desc(d, eng);
    };
    auto p2 = mk(l.h, 2), p1 = mk(ho, 1);
    memory x(p2.src_desc(), eng), xs(p1.src_desc(), eng), w2(p2.weights_desc(), eng), w1(p1.weights_desc(), eng), b(p2.bias_desc(), eng), y(p2.dst_desc(), eng);
    std::memset(x.get_data_handle(), 0, size_t(l.ci) * l.h * l.h * 4);
    convolution_forward c2(p2), c1(p1);
    double t2 = timeit([&] { c2.execute(st, {{DNNL_ARG_SRC, x}, {DNNL_ARG_WEIGHTS, w2}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}}); st.wait(); });
    float* xp = (float*)x.get_data_handle(); float* sp = (float*)xs.get_data_handle();
    auto sub = [&] {
      #pragma omp parallel for
      for (int oy = 0; oy < ho; ++oy) for (int ox = 0; ox < ho; ++ox) std::memcpy(sp + (size_t(oy) * ho + ox) * l.ci, xp + (size_t(2 * oy) * l.h + 2 * ox) * l.ci, l.ci * 4);
    };
    double tc = timeit(sub);
    double t1 = timeit([&] { sub(); c1.execute(st, {{DNNL_ARG_SRC, xs}, {DNNL_ARG_WEIGHTS, w1}, {DNNL_ARG_BIAS, b}, {DNNL_ARG_DST, y}}); st.wait(); });
    printf("%4d->%4d %2d->%2d  s2 %.3f (%s)  copy %.3f  copy+s1 %.3f (%s)  ratio %.2f\n", l.ci, l.co, l.h, ho, t2, p2.impl_info_str(), tc, t1, p1.impl_info_str(), t1 / t2);
    }
  }
}

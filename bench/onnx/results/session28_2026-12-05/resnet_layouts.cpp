// ResNet-50's convolution shapes on oneDNN 2.6 (bias + ReLU) in NHWC, nChw16c and, for the 3x3 stride-1 layers, nChw16c
// with Winograd, 2 threads (session 28: whether a blocked region around Winograd would beat NHWC).
// g++ -std=c++17 -O2 resnet_layouts.cpp -ldnnl -o rl && OMP_NUM_THREADS=2 ./rl
#include <dnnl.hpp>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>
using namespace dnnl;
using tag = memory::format_tag;
struct Layer { int ci, co, k, s, h, count; };
double bench(const Layer& l, tag t, const char** impl, algorithm alg = algorithm::convolution_direct) {
  engine eng(engine::kind::cpu, 0); stream st(eng);
  const int p = l.k / 2, ho = (l.h + 2 * p - l.k) / l.s + 1;
  memory::desc src({1, l.ci, l.h, l.h}, memory::data_type::f32, t);
  memory::desc wei({l.co, l.ci, l.k, l.k}, memory::data_type::f32, tag::any);
  memory::desc bia({l.co}, memory::data_type::f32, tag::x);
  memory::desc dst({1, l.co, ho, ho}, memory::data_type::f32, t);
  post_ops po; po.append_eltwise(1, algorithm::eltwise_relu, 0, 0);
  primitive_attr attr; attr.set_post_ops(po);
  convolution_forward::desc d(prop_kind::forward_inference, alg, src, wei, bia, dst,
                              {l.s, l.s}, {p, p}, {p, p});
  static convolution_forward::primitive_desc keep;
  convolution_forward::primitive_desc pd(d, attr, eng);
  static std::string info; info = pd.impl_info_str(); *impl = info.c_str();
  memory xm(src, eng), wm(pd.weights_desc(), eng), bm(bia, eng), ym(pd.dst_desc(), eng);
  convolution_forward conv(pd);
  std::vector<double> times;
  for (int i = 0; i < 60; ++i) {
    auto a = std::chrono::steady_clock::now();
    conv.execute(st, {{DNNL_ARG_SRC, xm}, {DNNL_ARG_WEIGHTS, wm}, {DNNL_ARG_BIAS, bm}, {DNNL_ARG_DST, ym}});
    st.wait();
    auto b = std::chrono::steady_clock::now();
    if (i >= 10) times.push_back(std::chrono::duration<double, std::milli>(b - a).count());
  }
  std::sort(times.begin(), times.end());
  return times[times.size() / 2];
}
int main() {
  const Layer layers[] = {
      {64, 64, 1, 1, 56, 1},   {256, 64, 1, 1, 56, 2},  {64, 64, 3, 1, 56, 3},   {64, 256, 1, 1, 56, 4},
      {256, 128, 1, 1, 56, 1}, {128, 128, 3, 2, 56, 1}, {128, 512, 1, 1, 28, 4}, {256, 512, 1, 2, 56, 1},
      {512, 128, 1, 1, 28, 3}, {128, 128, 3, 1, 28, 3}, {512, 256, 1, 1, 28, 1}, {256, 256, 3, 2, 28, 1},
      {256, 1024, 1, 1, 14, 6}, {512, 1024, 1, 2, 28, 1}, {1024, 256, 1, 1, 14, 5}, {256, 256, 3, 1, 14, 5},
      {1024, 512, 1, 1, 14, 1}, {512, 512, 3, 2, 14, 1}, {512, 2048, 1, 1, 7, 3}, {1024, 2048, 1, 2, 14, 1},
      {2048, 512, 1, 1, 7, 2},  {512, 512, 3, 1, 7, 2}};
  double total_nhwc = 0, total_16c = 0, total_wino = 0;
  for (const Layer& l : layers) {
    const char *i1, *i2;
    double a = bench(l, tag::nhwc, &i1);
    std::string n1 = i1;
    double b = bench(l, tag::nChw16c, &i2);
    std::string n2 = i2;
    double w = 0;
    const char* i3 = "";
    if (l.k == 3 && l.s == 1) { w = bench(l, tag::nChw16c, &i3, algorithm::convolution_winograd); total_wino += (std::min(w, b) - b) * l.count; }
    printf("%4d->%4d k%d s%d %3d x%d  nhwc %.3f (%s)  nChw16c %.3f (%s)  ratio %.2f  wino %.3f (%s)\n", l.ci, l.co, l.k, l.s, l.h,
           l.count, a, n1.c_str(), b, n2.c_str(), b / a, w, i3);
    total_nhwc += a * l.count; total_16c += b * l.count;
  }
  printf("sum over the network: nhwc %.2f ms, nChw16c %.2f ms, nChw16c with Winograd where faster %.2f ms\n", total_nhwc, total_16c, total_16c + total_wino);
}
